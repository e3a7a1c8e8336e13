/// Why an image could not be read, prepared for a model, or interpreted.
///
/// Every case names what was wrong, so that a corrupt photo or an unsuitable model produces a
/// message a user can act on. Untrusted image bytes never crash the process: decoders throw these.
public enum VisionError: Error, Equatable, Sendable {
    /// The file could not be read from disk.
    case unreadableFile(path: String, reason: String)
    /// The bytes are not in a format this module decodes (JPEG, PNG, BMP).
    case unsupportedFormat(detail: String)
    /// The image data is corrupt or truncated; `format` is e.g. `"JPEG"`.
    case corruptImage(format: String, detail: String)
    /// A raw pixel buffer's size, stride or plane layout does not fit its width, height and format.
    case invalidBuffer(detail: String)
    /// A crop or region of interest lies outside the image or is empty.
    case invalidRegion(detail: String)
    /// The model's input or output tensors cannot be used for this task (wrong rank, type, ...).
    case unsupportedModel(detail: String)
    /// A labels file could not be read or does not match the model.
    case invalidLabels(detail: String)
    /// Detector or labeler options are out of range or contradict each other.
    case invalidOptions(detail: String)
}

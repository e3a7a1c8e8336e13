import OpenMLKit

/// Options of an ``ImageLabeler`` that runs a custom TensorFlow Lite classifier (ML Kit's
/// `CustomImageLabelerOptions`).
public final class CustomImageLabelerOptions {
    /// The model to run.
    public let localModel: CustomLocalModel
    /// Minimum confidence of returned labels; nil: the model metadata's score threshold, else 0.
    public var confidenceThreshold: Float?
    /// The maximum number of labels returned (ML Kit's default is 10).
    public var maxResultCount: Int = 10
    /// A labels file to use instead of the labels in the model's metadata.
    public var labelsPath: String?
    /// How the image is fitted to the model's input (ML Kit stretches it).
    public var scaleMode: ScaleMode = .stretch
    /// How pixels are sampled when the image is scaled to the model's input (not an ML Kit option).
    /// ``ResizeMethod/area`` (the default) averages the pixels each input pixel covers, as iOS's
    /// Core Image and vImage filter before shrinking; ``ResizeMethod/bilinear`` matches the
    /// TensorFlow Lite Task Library byte for byte.
    public var resizeMethod: ResizeMethod = .area
    /// Interpreter threads (nil: the runtime's default).
    public var threadCount: Int?

    /// Options for `localModel`.
    public init(localModel: CustomLocalModel) {
        self.localModel = localModel
    }
}

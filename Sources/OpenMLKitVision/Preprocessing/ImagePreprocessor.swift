import Foundation

/// How the image region is fitted to the model's input size.
public enum ScaleMode: Sendable {
    /// Scale the region to the input size independently in x and y (aspect ratio not kept). This is
    /// what ML Kit and the TensorFlow Lite Task Library do for classifiers and detectors.
    case stretch
    /// Keep the aspect ratio: use the largest centred part of the region that has the input's aspect
    /// ratio, cutting off the excess on two sides.
    case centerCrop
    /// Keep the aspect ratio and the whole region: scale it to fit inside the input and fill the
    /// bars on two sides with black (pixel value 0, then normalised like any pixel).
    case letterbox
}

/// Turns a ``VisionImage`` into the bytes of a model's image input tensor in one pass.
///
/// For every input pixel the preprocessor finds the matching point of the upright region (pixel
/// centres aligned, i.e. `x = left + (u + 0.5) · regionWidth / inputWidth − 0.5`), maps it through the
/// image's orientation to the stored pixels, samples them bilinearly (4 taps, edges clamped, no
/// antialiasing filter when shrinking), rounds to an 8-bit value (half up), converts the colour
/// (RGB, or BT.601 luminance for one-channel inputs) and normalises per ``InputImageFormat``.
/// Nothing is copied in between: values are written straight into the destination.
public enum ImagePreprocessor {
    /// Writes `image` (or its `region`, in upright pixels) into `destination` in NHWC order.
    ///
    /// - Parameters:
    ///   - region: part of the upright image to use; nil for the whole image.
    ///   - destination: at least ``InputImageFormat/byteCount`` bytes (e.g. the input tensor).
    /// - Returns: the mapping from input coordinates back to upright image pixels.
    /// - Throws: ``VisionError/invalidRegion(detail:)`` for an empty region or one outside the image,
    ///   ``VisionError/invalidBuffer(detail:)`` when `destination` is too small.
    @discardableResult
    public static func write(
        _ image: VisionImage, format: InputImageFormat, region: CGRect? = nil, scaleMode: ScaleMode = .stretch,
        into destination: UnsafeMutableRawBufferPointer
    ) throws -> CoordinateMapping {
        guard destination.count >= format.byteCount else {
            throw VisionError.invalidBuffer(
                detail: "destination has \(destination.count) bytes, the input needs \(format.byteCount)")
        }
        let mapping = try CoordinateMapping(image: image, format: format, region: region, scaleMode: scaleMode)
        try image.buffer.visitReader(
            Resampler(mapping: mapping, orientation: image.orientation, format: format, destination: destination))
        return mapping
    }

    /// The input tensor bytes for `image`, as ``write(_:format:region:scaleMode:into:)`` makes them.
    public static func data(
        for image: VisionImage, format: InputImageFormat, region: CGRect? = nil, scaleMode: ScaleMode = .stretch
    ) throws -> (data: Data, mapping: CoordinateMapping) {
        var data = Data(count: format.byteCount)
        let mapping = try data.withUnsafeMutableBytes {
            try write(image, format: format, region: region, scaleMode: scaleMode, into: $0)
        }
        return (data, mapping)
    }
}

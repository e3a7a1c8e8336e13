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
/// For every input pixel the preprocessor finds the matching part of the upright region, maps it
/// through the image's orientation to the stored pixels and samples them per ``ResizeMethod``:
/// - ``ResizeMethod/area`` (the default): the mean of the pixels under the input pixel's footprint
///   when the region is shrunk, which keeps a 12-megapixel photo shrunk to 224×224 from aliasing;
///   bilinear along an axis that is not shrunk;
/// - ``ResizeMethod/bilinear``: 4 taps at the pixel centre (`x = left + (u + 0.5) · regionWidth /
///   inputWidth − 0.5`, edges clamped) with no prefilter, exactly as the TensorFlow Lite Task Library.
///
/// The value is rounded to 8 bits (half up), converted (RGB, or BT.601 luminance for one-channel
/// inputs) and normalised per ``InputImageFormat``, and written straight into the destination.
public enum ImagePreprocessor {
    /// Writes `image` (or its `region`, in upright pixels) into `destination` in NHWC order.
    ///
    /// - Parameters:
    ///   - image: the image to read, with its orientation.
    ///   - format: the model input's size, channels, element type and normalisation.
    ///   - region: part of the upright image to use; nil for the whole image.
    ///   - scaleMode: how the region is fitted to the input's aspect ratio.
    ///   - resizeMethod: how pixels are sampled when the region is scaled (area averaging by default).
    ///   - destination: at least ``InputImageFormat/byteCount`` bytes (e.g. the input tensor).
    /// - Returns: the mapping from input coordinates back to upright image pixels.
    /// - Throws: ``VisionError/invalidRegion(detail:)`` for an empty region or one outside the image,
    ///   ``VisionError/invalidBuffer(detail:)`` when `destination` is too small.
    @discardableResult
    public static func write(
        _ image: VisionImage, format: InputImageFormat, region: CGRect? = nil, scaleMode: ScaleMode = .stretch,
        resizeMethod: ResizeMethod = .area, into destination: UnsafeMutableRawBufferPointer
    ) throws -> CoordinateMapping {
        guard destination.count >= format.byteCount else {
            throw VisionError.invalidBuffer(
                detail: "destination has \(destination.count) bytes, the input needs \(format.byteCount)")
        }
        let mapping = try CoordinateMapping(image: image, format: format, region: region, scaleMode: scaleMode)
        let shrinks = mapping.region.width > Double(format.width) || mapping.region.height > Double(format.height)
        if resizeMethod == .area && shrinks {
            try image.buffer.visitReader(
                AreaResampler(
                    mapping: mapping, orientation: image.orientation, format: format, destination: destination))
        } else {
            try image.buffer.visitReader(
                Resampler(mapping: mapping, orientation: image.orientation, format: format, destination: destination))
        }
        return mapping
    }

    /// The input tensor bytes for `image`, as ``write(_:format:region:scaleMode:resizeMethod:into:)`` makes them.
    public static func data(
        for image: VisionImage, format: InputImageFormat, region: CGRect? = nil, scaleMode: ScaleMode = .stretch,
        resizeMethod: ResizeMethod = .area
    ) throws -> (data: Data, mapping: CoordinateMapping) {
        var data = Data(count: format.byteCount)
        let mapping = try data.withUnsafeMutableBytes {
            try write(image, format: format, region: region, scaleMode: scaleMode, resizeMethod: resizeMethod, into: $0)
        }
        return (data, mapping)
    }
}

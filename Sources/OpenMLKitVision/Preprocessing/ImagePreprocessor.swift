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

/// Sampling positions along one axis: for each output index, two source indices and a weight.
struct AxisSamples {
    var low: [Int]
    var high: [Int]
    var weight: [Float]
    /// Whether each sample lies on the image (false in letterbox bars).
    var inside: [Bool]

    /// Samples for `count` outputs covering `[start, start + length)` of an upright axis, mapped to
    /// a stored axis of `size` pixels by `stored = scale · upright + offset` (scale is ±1).
    init(count: Int, start: Float, length: Float, flip: Bool, size: Int) {
        low = [Int](repeating: 0, count: count)
        high = [Int](repeating: 0, count: count)
        weight = [Float](repeating: 0, count: count)
        inside = [Bool](repeating: true, count: count)
        let step = length / Float(count)
        let last = Float(size - 1)
        for i in 0..<count {
            let upright = start + (Float(i) + 0.5) * step - 0.5
            inside[i] = upright >= -0.5 && upright <= Float(size) - 0.5
            var s = flip ? last - upright : upright
            s = min(max(s, 0), last)
            let l = Int(s.rounded(.down))
            low[i] = l
            high[i] = min(l + 1, size - 1)
            weight[i] = s - Float(l)
        }
    }
}

/// The resampling loop, specialised per pixel reader.
struct Resampler: PixelReaderVisitor {
    let mapping: CoordinateMapping
    let orientation: ImageOrientation
    let format: InputImageFormat
    let destination: UnsafeMutableRawBufferPointer

    func visit<R: PixelReader>(_ reader: R) throws {
        let w = format.width
        let h = format.height
        let region = mapping.region
        let t = orientation.uprightToStored(width: mapping.storedWidth, height: mapping.storedHeight)
        // Upright x runs along stored x (xx ≠ 0) or stored y (yx ≠ 0); likewise upright y.
        let swap = orientation.swapsDimensions
        let columns = AxisSamples(
            count: w, start: Float(region.minX), length: Float(region.width), flip: (swap ? t.yx : t.xx) < 0,
            size: swap ? mapping.storedHeight : mapping.storedWidth)
        let rows = AxisSamples(
            count: h, start: Float(region.minY), length: Float(region.height), flip: (swap ? t.xy : t.yy) < 0,
            size: swap ? mapping.storedWidth : mapping.storedHeight)
        let channels = format.channels
        let normalization = format.normalization ?? .defaultFloat
        let means = (0..<3).map { normalization.mean($0) }
        let stds = (0..<3).map { normalization.std($0) }
        let scale = format.quantization?.scale ?? 0
        let zeroPoint = Float(format.quantization?.zeroPoint ?? 0)
        let quantize = format.elementType == .int8 && format.normalization != nil && scale > 0 && scale.isFinite
        let out = destination.baseAddress!

        func sample(_ xl: Int, _ xh: Int, _ fx: Float, _ yl: Int, _ yh: Int, _ fy: Float) -> SIMD3<Float> {
            let p00 = reader.rgb(xl, yl)
            let p10 = reader.rgb(xh, yl)
            let p01 = reader.rgb(xl, yh)
            let p11 = reader.rgb(xh, yh)
            let top = p00 + (p10 - p00) * fx
            let bottom = p01 + (p11 - p01) * fx
            return top + (bottom - top) * fy
        }
        func sampleLuma(_ xl: Int, _ xh: Int, _ fx: Float, _ yl: Int, _ yh: Int, _ fy: Float) -> Float {
            let top = reader.luma(xl, yl) + (reader.luma(xh, yl) - reader.luma(xl, yl)) * fx
            let bottom = reader.luma(xl, yh) + (reader.luma(xh, yh) - reader.luma(xl, yh)) * fx
            return top + (bottom - top) * fy
        }

        for v in 0..<h {
            for u in 0..<w {
                // Stored x/y sample indices come from the column table or the row table.
                let (xl, xh, fx, yl, yh, fy) =
                    swap
                    ? (rows.low[v], rows.high[v], rows.weight[v], columns.low[u], columns.high[u], columns.weight[u])
                    : (columns.low[u], columns.high[u], columns.weight[u], rows.low[v], rows.high[v], rows.weight[v])
                var values = SIMD3<Float>()
                if !(columns.inside[u] && rows.inside[v]) {
                    // A letterbox bar: black.
                } else if channels == 1 {
                    values.x = sampleLuma(xl, xh, fx, yl, yh, fy)
                } else {
                    values = sample(xl, xh, fx, yl, yh, fy)
                }
                let index = (v * w + u) * channels
                for c in 0..<channels {
                    let pixel = min(max((values[c] + 0.5).rounded(.down), 0), 255)
                    switch format.elementType {
                    case .uint8:
                        out.storeBytes(of: UInt8(pixel), toByteOffset: index + c, as: UInt8.self)
                    case .float32:
                        let value = (pixel - means[c]) / stds[c]
                        out.storeBytes(of: value, toByteOffset: (index + c) * 4, as: Float.self)
                    case .int8:
                        let q: Float
                        if quantize {
                            q = (((pixel - means[c]) / stds[c]) / scale + zeroPoint).rounded()
                        } else {
                            q = pixel - 128
                        }
                        out.storeBytes(of: Int8(min(max(q, -128), 127)), toByteOffset: index + c, as: Int8.self)
                    }
                }
            }
        }
    }
}

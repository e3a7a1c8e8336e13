/// One sampling position along an axis: the two stored pixels around it and the weight of the second.
struct Tap {
    var low: Int
    var high: Int
    var weight: Float
    /// False in letterbox bars (the sample lies off the image).
    var inside: Bool
}

/// Sampling positions along one axis of the input.
struct AxisSamples {
    var taps: [Tap]

    /// Taps for `count` outputs covering `[start, start + length)` of an upright axis, mapped onto a
    /// stored axis of `size` pixels, reversed when `flip`.
    init(count: Int, start: Float, length: Float, flip: Bool, size: Int) {
        taps = []
        taps.reserveCapacity(count)
        let step = length / Float(count)
        let last = Float(size - 1)
        for i in 0..<count {
            let upright = start + (Float(i) + 0.5) * step - 0.5
            var s = flip ? last - upright : upright
            s = min(max(s, 0), last)
            let l = Int(s.rounded(.down))
            taps.append(
                Tap(
                    low: l, high: min(l + 1, size - 1), weight: s - Float(l),
                    inside: upright >= -0.5 && upright <= Float(size) - 0.5))
        }
    }
}

/// Writes one pixel's channels (0...255 values, already rounded) as the input's element type.
protocol ElementStore {
    static var byteWidth: Int { get }
    static func store(_ pixel: SIMD3<Float>, channels: Int, to out: UnsafeMutableRawPointer, _ p: StoreParameters)
}

/// Normalisation and quantization constants of a store.
struct StoreParameters {
    var mean: SIMD3<Float>
    var std: SIMD3<Float>
    var scale: Float
    var zeroPoint: Float
    var quantize: Bool
}

extension StoreParameters {
    /// The constants for `format`: its normalisation (or the float default) and quantization.
    init(_ format: InputImageFormat) {
        let normalization = format.normalization ?? .defaultFloat
        let scale = format.quantization?.scale ?? 0
        self.init(
            mean: SIMD3((0..<3).map { normalization.mean($0) }), std: SIMD3((0..<3).map { normalization.std($0) }),
            scale: scale, zeroPoint: Float(format.quantization?.zeroPoint ?? 0),
            quantize: format.elementType == .int8 && format.normalization != nil && scale > 0 && scale.isFinite)
    }
}

enum UInt8Store: ElementStore {
    static var byteWidth: Int { 1 }
    @inline(__always)
    static func store(_ pixel: SIMD3<Float>, channels: Int, to out: UnsafeMutableRawPointer, _ p: StoreParameters) {
        for c in 0..<channels { out.storeBytes(of: UInt8(pixel[c]), toByteOffset: c, as: UInt8.self) }
    }
}

enum Float32Store: ElementStore {
    static var byteWidth: Int { 4 }
    @inline(__always)
    static func store(_ pixel: SIMD3<Float>, channels: Int, to out: UnsafeMutableRawPointer, _ p: StoreParameters) {
        let value = (pixel - p.mean) / p.std
        for c in 0..<channels { out.storeBytes(of: value[c], toByteOffset: 4 * c, as: Float.self) }
    }
}

enum Int8Store: ElementStore {
    static var byteWidth: Int { 1 }
    @inline(__always)
    static func store(_ pixel: SIMD3<Float>, channels: Int, to out: UnsafeMutableRawPointer, _ p: StoreParameters) {
        for c in 0..<channels {
            let q =
                p.quantize ? (((pixel[c] - p.mean[c]) / p.std[c]) / p.scale + p.zeroPoint).rounded() : pixel[c] - 128
            out.storeBytes(of: Int8(min(max(q, -128), 127)), toByteOffset: c, as: Int8.self)
        }
    }
}

/// The bilinear resampling loop (``ResizeMethod/bilinear``), specialised per pixel reader and element type.
struct Resampler: PixelReaderVisitor {
    let mapping: CoordinateMapping
    let orientation: ImageOrientation
    let format: InputImageFormat
    let destination: UnsafeMutableRawBufferPointer

    func visit<R: PixelReader>(_ reader: R) throws {
        let parameters = StoreParameters(format)
        switch format.elementType {
        case .uint8: run(reader, UInt8Store.self, parameters)
        case .float32: run(reader, Float32Store.self, parameters)
        case .int8: run(reader, Int8Store.self, parameters)
        }
    }

    private func run<R: PixelReader, S: ElementStore>(_ reader: R, _ store: S.Type, _ parameters: StoreParameters) {
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
        let pixelBytes = channels * S.byteWidth
        let out = destination.baseAddress!
        let zero = SIMD3<Float>(repeating: 0)
        let top = SIMD3<Float>(repeating: 255)
        columns.taps.withUnsafeBufferPointer { columnTaps in
            rows.taps.withUnsafeBufferPointer { rowTaps in
                for v in 0..<h {
                    let row = rowTaps[v]
                    var destination = out + v * w * pixelBytes
                    for u in 0..<w {
                        let column = columnTaps[u]
                        // Stored x comes from the column tap, or from the row tap when the image is turned.
                        let (x, y) = swap ? (row, column) : (column, row)
                        var values = zero
                        if column.inside && row.inside {
                            if channels == 1 {
                                let upper =
                                    reader.luma(x.low, y.low) + (reader.luma(x.high, y.low) - reader.luma(x.low, y.low))
                                    * x.weight
                                let lower =
                                    reader.luma(x.low, y.high)
                                    + (reader.luma(x.high, y.high) - reader.luma(x.low, y.high)) * x.weight
                                values.x = upper + (lower - upper) * y.weight
                            } else {
                                let p00 = reader.rgb(x.low, y.low)
                                let p10 = reader.rgb(x.high, y.low)
                                let p01 = reader.rgb(x.low, y.high)
                                let p11 = reader.rgb(x.high, y.high)
                                let upper = p00 + (p10 - p00) * x.weight
                                let lower = p01 + (p11 - p01) * x.weight
                                values = upper + (lower - upper) * y.weight
                            }
                        }
                        let pixel = (values + 0.5).rounded(.down).clamped(lowerBound: zero, upperBound: top)
                        S.store(pixel, channels: channels, to: destination, parameters)
                        destination += pixelBytes
                    }
                }
            }
        }
    }
}

import Foundation

/// The stored pixels that make up each output sample along one axis, with their weights.
///
/// Along a shrinking axis each output covers a footprint of `length / count` stored pixels; the
/// weight of a stored pixel is the length of its overlap with that footprint (1 inside, a fraction
/// at the two edges), and the sum is divided by the footprint's full length. Parts of a footprint
/// outside the image (letterbox bars) have no pixels, so they count as black. Along an axis that
/// is not shrunk the taps are the bilinear ones of ``AxisSamples``, with footprint 1.
struct AxisWeights {
    /// The taps of one output sample.
    struct Span {
        /// First stored index.
        var first: Int
        /// Number of consecutive stored pixels (0 in letterbox bars).
        var count: Int
        /// Where the weights start in ``AxisWeights/weights``.
        var offset: Int
        /// What the weighted sum is divided by.
        var footprint: Float
    }

    private(set) var spans: [Span] = []
    private(set) var weights: [Float] = []

    /// Weights for `outputs` samples covering `[start, start + length)` of an upright axis, mapped
    /// onto a stored axis of `size` pixels, reversed when `flip`; box weights when `area`.
    init(outputs: Int, start: Double, length: Double, flip: Bool, size: Int, area: Bool) {
        spans.reserveCapacity(outputs)
        guard area else {
            let samples = AxisSamples(
                count: outputs, start: Float(start), length: Float(length), flip: flip, size: size)
            for tap in samples.taps {
                let taps = !tap.inside ? 0 : tap.high == tap.low ? 1 : 2
                spans.append(Span(first: tap.low, count: taps, offset: weights.count, footprint: 1))
                if taps == 1 { weights.append(1) }
                if taps == 2 { weights += [1 - tap.weight, tap.weight] }
            }
            return
        }
        let step = length / Double(outputs)
        let edge = Double(size)
        for i in 0..<outputs {
            // Both edges from the same formula, so neighbouring footprints meet exactly.
            var a = start + Double(i) * step
            var b = start + Double(i + 1) * step
            if flip { (a, b) = (edge - b, edge - a) }
            let low = max(Int(a.rounded(.down)), 0)
            let high = min(Int(b.rounded(.up)), size)
            spans.append(
                Span(
                    first: min(low, size - 1), count: max(high - low, 0), offset: weights.count, footprint: Float(b - a)
                ))
            for p in stride(from: low, to: high, by: 1) {
                weights.append(Float(min(b, Double(p + 1)) - max(a, Double(p))))
            }
        }
    }
}

/// The area (box-filter) resampling loop, specialised per pixel reader and element type.
///
/// Separable: for each output row it filters the stored rows under that row's footprint along
/// stored x (contiguous memory, whichever upright axis that is), then sums them with their
/// weights along stored y. Only used when the region is shrunk along at least one axis;
/// otherwise the preprocessor runs the bilinear ``Resampler``, so enlarging gives the same bytes
/// as ``ResizeMethod/bilinear``.
struct AreaResampler: PixelReaderVisitor {
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

    private func run<R: PixelReader, S: ElementStore>(_ reader: R, _: S.Type, _ parameters: StoreParameters) {
        let region = mapping.region
        let t = orientation.uprightToStored(width: mapping.storedWidth, height: mapping.storedHeight)
        let swap = orientation.swapsDimensions
        let columns = AxisWeights(
            outputs: format.width, start: Double(region.minX), length: Double(region.width),
            flip: (swap ? t.yx : t.xx) < 0, size: swap ? mapping.storedHeight : mapping.storedWidth,
            area: Double(region.width) > Double(format.width))
        let rows = AxisWeights(
            outputs: format.height, start: Double(region.minY), length: Double(region.height),
            flip: (swap ? t.xy : t.yy) < 0, size: swap ? mapping.storedWidth : mapping.storedHeight,
            area: Double(region.height) > Double(format.height))
        let (alongX, alongY) = swap ? (rows, columns) : (columns, rows)
        var sums = [SIMD3<Float>](repeating: SIMD3(repeating: 0), count: alongX.spans.count)
        alongX.spans.withUnsafeBufferPointer { xSpans in
            alongX.weights.withUnsafeBufferPointer { xWeights in
                alongY.weights.withUnsafeBufferPointer { yWeights in
                    sums.withUnsafeMutableBufferPointer { sums in
                        for (j, ySpan) in alongY.spans.enumerated() {
                            filterRow(reader, xSpans, xWeights, ySpan, yWeights, into: sums)
                            // Upright (u, v) is (i, j), or (j, i) when the stored image is turned.
                            for i in 0..<sums.count {
                                let (u, v) = swap ? (j, i) : (i, j)
                                write(
                                    sums[i], footprint: xSpans[i].footprint * ySpan.footprint, at: u, v, S.self,
                                    parameters)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Sums the stored pixels under one output row: `sums[i]` = Σ_y wy · Σ_x wx · pixel(x, y).
    @inline(__always)
    private func filterRow<R: PixelReader>(
        _ reader: R, _ xSpans: UnsafeBufferPointer<AxisWeights.Span>, _ xWeights: UnsafeBufferPointer<Float>,
        _ ySpan: AxisWeights.Span, _ yWeights: UnsafeBufferPointer<Float>,
        into sums: UnsafeMutableBufferPointer<SIMD3<Float>>
    ) {
        let zero = SIMD3<Float>(repeating: 0)
        let gray = format.channels == 1
        for i in 0..<sums.count { sums[i] = zero }
        for k in 0..<ySpan.count {
            let y = ySpan.first + k
            let wy = yWeights[ySpan.offset + k]
            for i in 0..<xSpans.count {
                let span = xSpans[i]
                var line = zero
                for m in 0..<span.count {
                    let x = span.first + m
                    line += xWeights[span.offset + m] * (gray ? SIMD3(reader.luma(x, y), 0, 0) : reader.rgb(x, y))
                }
                sums[i] += wy * line
            }
        }
    }

    /// Writes one output pixel: the weighted sum divided by its footprint, rounded half up.
    @inline(__always)
    private func write<S: ElementStore>(
        _ sum: SIMD3<Float>, footprint: Float, at u: Int, _ v: Int, _: S.Type, _ parameters: StoreParameters
    ) {
        // One division by the whole footprint: a k×k block's mean is its exact integer sum / k²,
        // correctly rounded, so halves round up as the bilinear path's do.
        let values = sum / footprint
        let pixel = (values + 0.5).rounded(.down).clamped(
            lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 255))
        let pixelBytes = format.channels * S.byteWidth
        S.store(
            pixel, channels: format.channels, to: destination.baseAddress! + (v * format.width + u) * pixelBytes,
            parameters)
    }
}

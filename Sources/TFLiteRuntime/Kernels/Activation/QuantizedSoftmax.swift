import Foundation

/// SOFTMAX on uint8/int8 as LiteRT's optimized kernel computes it (`optimized_ops::Softmax` with
/// `PopulateSoftmaxLookupTable`; LiteRT's x86 builds do not define `TFLITE_SOFTMAX_USE_UINT16_LUT`):
///
/// - a 256-entry float table `table[255 − d] = expf(−s_in × beta × d)` of the distance `d` of a raw
///   value below the row maximum;
/// - per row, a float sum of table values in order, `inv = 1 / (sum × s_out)`;
/// - each output `table[…] × inv` quantized as `Int(p + 0.5)` for uint8 (x86's path) and
///   `round(p) + zp` for int8.
struct QuantizedSoftmax {
    var table = [Float](repeating: 0, count: 256)
    var outputScale: Float = 0
    var outputZeroPoint: Int32 = 0

    init() {}

    init(_ node: Node, beta: Float, input x: RuntimeTensor, output y: RuntimeTensor) throws {
        guard y.type == x.type else { throw node.error("output type \(y.type.name) differs from input \(x.type.name)") }
        guard x.quantization != nil, y.quantization != nil, y.scale > 0 else {
            throw node.error("quantized input and output need scales")
        }
        if x.type == .int8 {
            guard y.zeroPoint == -128, Swift.abs(y.scale - 1.0 / 256) <= 0.001 / 256 else {
                throw node.error("int8 output needs zero point -128 and scale 1/256")
            }
        }
        table = ReferenceQuantizedActivation.softmaxTable(inputScale: x.scale, beta: beta)
        outputScale = y.scale
        outputZeroPoint = Int32(y.zeroPoint)
    }

    func apply<T: QuantizedElement>(_ node: Node, _: T.Type, _ x: RuntimeTensor, _ y: RuntimeTensor) throws {
        let input = try node.elementwiseBuffer(x, T.self, role: "input")
        let output = try node.elementwiseBuffer(y, T.self, role: "output")
        guard input.count == output.count else { throw node.error("output is not sized like the input") }
        let depth = x.rank == 0 ? 1 : x.shape[x.rank - 1]
        guard depth > 0, let px = input.baseAddress, let py = output.baseAddress else { return }
        let rows = input.count / depth
        let scale = outputScale, zp = outputZeroPoint
        let unsigned = T.self == UInt8.self
        table.withUnsafeBufferPointer { t in
            guard let tp = t.baseAddress else { return }
            parallelFor(rows, threads: node.threadCount, minimumPerThread: max(1, 8192 / depth)) { range in
                for r in range {
                    QuantizedSoftmax.row(px + r * depth, py + r * depth, depth, tp, scale, zp, unsigned)
                }
            }
        }
    }

    @inline(__always)
    static func row<T: QuantizedElement>(
        _ x: UnsafePointer<T>, _ y: UnsafeMutablePointer<T>, _ n: Int, _ table: UnsafePointer<Float>, _ scale: Float,
        _ zp: Int32, _ unsigned: Bool
    ) {
        var maximum = Int32(T.min)
        for j in 0..<n { maximum = Swift.max(maximum, Int32(x[j])) }
        let base = table + Int(255 - maximum)
        var sum: Float = 0
        for j in 0..<n { sum += base[Int(x[j])] }
        let inverse: Float = 1 / (sum * scale)
        let lo = Int32(T.min), hi = Int32(T.max)
        for j in 0..<n {
            let p = base[Int(x[j])] * inverse
            let q =
                unsigned
                ? ReferenceQuantizedActivation.truncateToInt32(p + 0.5)
                : ReferenceQuantizedActivation.truncateToInt32(p.rounded(.toNearestOrAwayFromZero)) &+ zp
            y[j] = T(truncatingIfNeeded: Swift.min(hi, Swift.max(lo, q)))
        }
    }
}

extension ReferenceQuantizedActivation {
    /// `PopulateSoftmaxLookupTable`: `table[255 − v] = expf(−s_in × beta × v)`, in float.
    static func softmaxTable(inputScale: Float, beta: Float) -> [Float] {
        let scale = -inputScale * beta
        var table = [Float](repeating: 0, count: 256)
        for v in 0...255 { table[255 - v] = Foundation.exp(scale * Float(v)) }
        return table
    }

    /// Scalar quantized softmax of one row of raw values (the oracle for `QuantizedSoftmax`).
    static func softmax(
        _ row: [Int32], inputScale: Float, beta: Float, outputScale: Float, outputZeroPoint: Int32, unsigned: Bool
    ) -> [Int32] {
        let table = softmaxTable(inputScale: inputScale, beta: beta)
        let maximum = row.max() ?? 0
        var sum: Float = 0
        for v in row { sum += table[Int(255 - maximum + v)] }
        let inverse: Float = 1 / (sum * outputScale)
        let (lo, hi): (Int32, Int32) = unsigned ? (0, 255) : (-128, 127)
        return row.map { v in
            let p = table[Int(255 - maximum + v)] * inverse
            let q = unsigned ? truncateToInt32(p + 0.5) : truncateToInt32(p.rounded(.toNearestOrAwayFromZero)) + outputZeroPoint
            return min(hi, max(lo, q))
        }
    }
}

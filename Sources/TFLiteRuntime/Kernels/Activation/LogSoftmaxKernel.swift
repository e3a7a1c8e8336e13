import Foundation

/// LOG_SOFTMAX over the last axis: float32 (bit-identical to LiteRT, see `row`), and uint8/int8 as
/// LiteRT's optimized kernel computes them (`optimized_ops::LogSoftmax` with the softmax exp table,
/// beta 1): per row a float sum of `table[255 − (max − q)]`, then
/// `rint(s_in/s_out · q − (s_in · max + log(sum)) / s_out) + zp`.
/// LiteRT requires the quantized output scale 16/256 and zero point 255 (uint8) or 127 (int8).
final class LogSoftmaxKernel: OpKernel {
    private var table = [Float]()
    private var inputScale: Float = 0
    private var outputScale: Float = 0
    private var outputZeroPoint: Int32 = 0

    init(_ node: Node) throws { try node.expect(inputs: 1, outputs: 1) }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        try node.expect(x, type: .float32, .uint8, .int8, role: "input")
        if x.type != .float32 {
            let y = try node.output(0)
            guard y.type == x.type, x.quantization != nil, y.quantization != nil else {
                throw node.error("quantized input and output need the same type and scales")
            }
            guard y.scale == 16.0 / 256, y.zeroPoint == (x.type == .uint8 ? 255 : 127) else {
                throw node.error("quantized output needs scale 16/256 and zero point \(x.type == .uint8 ? 255 : 127)")
            }
            table = ReferenceQuantizedActivation.softmaxTable(inputScale: x.scale, beta: 1)
            inputScale = x.scale
            outputScale = y.scale
            outputZeroPoint = Int32(y.zeroPoint)
        }
        try node.setOutput(0, type: x.type, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        let depth = x.rank == 0 ? 1 : x.shape[x.rank - 1]
        guard depth > 0 else { return }
        switch x.type {
        case .float32:
            let input = try node.elementwiseBuffer(x, Float.self, role: "input")
            let output = try node.elementwiseBuffer(y, Float.self, role: "output")
            guard input.count == output.count else { throw node.error("output is not sized like the input") }
            guard let px = input.baseAddress, let py = output.baseAddress else { return }
            withUnsafeTemporaryAllocation(of: Float.self, capacity: depth) { buffer in
                guard let e = buffer.baseAddress else { return }
                for r in 0..<(input.count / depth) {
                    LogSoftmaxKernel.row(px + r * depth, py + r * depth, e, depth)
                }
            }
        case .uint8: try runQuantized(UInt8.self, node, x, y, depth)
        case .int8: try runQuantized(Int8.self, node, x, y, depth)
        case let type: throw node.error("input type \(type.name) is not supported")
        }
    }

    /// One float row as LiteRT's `optimized_ops::LogSoftmax` computes it with Eigen: the sum of
    /// `exp(x − max)` is Eigen's vectorized sum over the row, whose whole blocks of 4 (from the row's
    /// start) take Eigen's packet `exp` and whose last `n % 4` elements take `expf`; then
    /// `(x − max) − log(sum)`.
    @inline(__always)
    static func row(
        _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ e: UnsafeMutablePointer<Float>, _ n: Int
    ) {
        var maximum = -Float.infinity
        for c in 0..<n { maximum = max(maximum, x[c]) }
        let blocks = n / 4 * 4
        for c in 0..<n { e[c] = x[c] - maximum }
        LiteRTActivation.map(e, e, 0..<blocks, LiteRTActivation.exp, LiteRTActivation.exp)
        for c in blocks..<n { e[c] = Foundation.exp(e[c]) }
        let logSum = Foundation.log(LiteRTActivation.sum(UnsafePointer(e), n, alignedStart: 0))
        for c in 0..<n { y[c] = (x[c] - maximum) - logSum }
    }

    private func runQuantized<T: QuantizedElement>(
        _: T.Type, _ node: Node, _ x: RuntimeTensor, _ y: RuntimeTensor, _ depth: Int
    ) throws {
        let input = try node.elementwiseBuffer(x, T.self, role: "input")
        let output = try node.elementwiseBuffer(y, T.self, role: "output")
        guard input.count == output.count, table.count == 256 else { throw node.error("eval before prepare") }
        let scale: Float = inputScale / outputScale
        let (qmin, qmax) = (Int32(T.min), Int32(T.max))
        try table.withUnsafeBufferPointer { t in
            guard let tp = t.baseAddress else { throw node.error("eval before prepare") }
            for r in 0..<(input.count / depth) {
                let start = r * depth
                var maximum = Int32(T.min)
                for c in 0..<depth { maximum = max(maximum, Int32(input[start + c])) }
                let base = tp + Int(255 - maximum)
                var sum: Float = 0
                for c in 0..<depth { sum += base[Int(input[start + c])] }
                let precomputed: Float = (inputScale * Float(maximum) + Foundation.log(sum)) / outputScale
                for c in 0..<depth {
                    let logProb = scale * Float(input[start + c]) - precomputed
                    let q = ReferenceQuantizedActivation.truncateToInt32(logProb.rounded(.toNearestOrEven)) &+ outputZeroPoint
                    output[start + c] = T(truncatingIfNeeded: min(qmax, max(qmin, q)))
                }
            }
        }
    }
}

extension ReferenceQuantizedActivation {
    /// One row of LiteRT's optimized quantized LOG_SOFTMAX (raw values in and out).
    static func logSoftmax(
        _ row: [Int32], table: [Float], inputScale: Float, outputScale: Float, outputZeroPoint: Int32, qmin: Int32,
        qmax: Int32
    ) -> [Int32] {
        let maximum = row.max() ?? qmin
        var sum: Float = 0
        for v in row { sum += table[Int(255 - maximum + v)] }
        let logSum = Foundation.log(sum)
        let scale: Float = inputScale / outputScale
        let precomputed: Float = (inputScale * Float(maximum) + logSum) / outputScale
        return row.map { v in
            let logProb = scale * Float(v) - precomputed
            let q = truncateToInt32(logProb.rounded(.toNearestOrEven)) &+ outputZeroPoint
            return min(qmax, max(qmin, q))
        }
    }
}

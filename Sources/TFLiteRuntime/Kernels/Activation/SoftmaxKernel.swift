import Foundation

/// SOFTMAX over the last axis of a float32 tensor of any rank, with `beta` (`SoftmaxOptions`
/// field 0) scaling the logits (float16 too, computed in float); quantized uint8/int8 (output of the same type or
/// int16) and int16.
///
/// As in LiteRT, each row subtracts its maximum before exponentiating, so large logits do not
/// overflow: `y = exp((x - max) * beta) / sum`; float32 rows are bit-identical to LiteRT's (`exactRow`).
final class SoftmaxKernel: OpKernel {
    let beta: Float
    private var quantized = QuantizedSoftmax()
    private var quantized16 = QuantizedSoftmaxInt16()

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
        beta = try SoftmaxParameters(node).beta
        guard beta.isFinite else { throw node.error("beta \(beta) is not finite") }
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        switch x.type {
        case .float32, .float16:
            break
        case .uint8, .int8:
            let y = try node.output(0)
            quantized = try QuantizedSoftmax(node, beta: beta, input: x, output: y)
            try node.setOutput(0, type: y.type, shape: x.shape)
            return
        case .int16:
            let y = try node.output(0)
            guard y.type == .int16 else { throw node.error("int16 input needs an int16 output") }
            quantized16 = try QuantizedSoftmaxInt16(node, beta: beta, input: x, output: y)
        default:
            throw node.error("input type \(x.type.name) is not supported; supported: FLOAT32")
        }
        let y = try node.output(0)
        try node.setOutput(0, type: x.type == .float32 || x.type == .float16 ? x.type : y.type, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let xt = try node.input(0)
        switch xt.type {
        case .uint8: return try quantized.apply(node, UInt8.self, xt, try node.output(0))
        case .int8: return try quantized.apply(node, Int8.self, xt, try node.output(0))
        case .int16: return try quantized16.apply(node, xt, try node.output(0))
        case .float16: return try evalHalf(node, xt)
        default: break
        }
        let x = try node.elementwiseBuffer(xt, Float.self, role: "input")
        let y = try node.elementwiseBuffer(try node.output(0), Float.self, role: "output")
        guard x.count == y.count else { throw node.error("output is not sized like the input") }
        // A scalar is one row of one logit.
        let depth = xt.rank == 0 ? 1 : xt.shape[xt.rank - 1]
        guard depth > 0, let px = x.baseAddress, let py = y.baseAddress else { return }
        let rows = x.count / depth
        let beta = self.beta
        let blocked = x.count / 4 * 4
        parallelFor(rows, threads: node.threadCount, minimumPerThread: max(1, 4096 / depth)) { range in
            for r in range {
                SoftmaxKernel.exactRow(
                    px + r * depth, py + r * depth, depth, beta, first: r * depth, blocked: blocked)
            }
        }
    }

    /// float16: each row widened to float, the float softmax, rounded back to half. (LiteRT's float16
    /// kernel rounds differently in about one output in five, by one half-precision step.)
    private func evalHalf(_ node: Node, _ xt: RuntimeTensor) throws {
        let x = try node.elementwiseBuffer(xt, UInt16.self, role: "input")
        let y = try node.elementwiseBuffer(try node.output(0), UInt16.self, role: "output")
        guard x.count == y.count else { throw node.error("output is not sized like the input") }
        let depth = xt.rank == 0 ? 1 : xt.shape[xt.rank - 1]
        guard depth > 0 else { return }
        let beta = self.beta
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * depth) { buffer in
            guard let row = buffer.baseAddress else { return }
            for r in 0..<(x.count / depth) {
                for i in 0..<depth { row[i] = HalfPrecision.float(fromHalf: x[r * depth + i]) }
                SoftmaxKernel.row(row, row + depth, depth, beta)
                for i in 0..<depth { y[r * depth + i] = HalfPrecision.half(from: row[depth + i]) }
            }
        }
    }

    /// One float32 row of `n >= 1` logits exactly as LiteRT's `optimized_ops::Softmax` computes it: it maps
    /// the whole tensor as one Eigen matrix, so the exponentials of the first `blocked` elements of the
    /// tensor (whole blocks of 4) come from Eigen's packet `exp` and the rest from `expf`; each row's sum
    /// is Eigen's vectorized sum, whose packets start at the first 16-byte-aligned element of the row
    /// (`first` is the row's offset in the tensor); then one reciprocal and a multiply.
    @inline(__always)
    static func exactRow(
        _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ n: Int, _ beta: Float, first: Int,
        blocked: Int
    ) {
        let maximum = rowMaximum(x, n)
        let split = Swift.min(Swift.max(blocked - first, 0), n)
        for i in 0..<n { y[i] = (x[i] - maximum) * beta }
        LiteRTActivation.map(y, y, 0..<split, LiteRTActivation.exp, LiteRTActivation.exp)
        for i in split..<n { y[i] = Foundation.exp(y[i]) }
        let scale = 1 / LiteRTActivation.sum(UnsafePointer(y), n, alignedStart: (4 - first % 4) % 4)
        for i in 0..<n { y[i] *= scale }
    }

    /// One row of `n >= 1` logits (the float16 path), in four passes so that only the exponentials are
    /// scalar calls: a SIMD maximum, the exponentials (no dependency between iterations), a SIMD sum, a scale.
    /// (One fused loop kept the running sum in memory across the `expf` calls: 7x slower.)
    @inline(__always)
    static func row(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ n: Int, _ beta: Float) {
        let maximum = rowMaximum(x, n)
        for i in 0..<n { y[i] = Foundation.exp((x[i] - maximum) * beta) }
        let scale = 1 / rowSum(UnsafePointer(y), n)
        for i in 0..<n { y[i] *= scale }
    }

    /// The largest value of a row (a NaN anywhere makes the whole softmax row NaN anyway).
    @inline(__always)
    static func rowMaximum(_ x: UnsafePointer<Float>, _ n: Int) -> Float {
        var lanes = SIMD8<Float>(repeating: -.infinity)
        var i = 0
        while i + 8 <= n {
            let v = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self)
            lanes.replace(with: v, where: v .> lanes)
            i += 8
        }
        var maximum = lanes.max()
        while i < n {
            if x[i] > maximum { maximum = x[i] }
            i += 1
        }
        return maximum
    }

    /// The sum of a row, eight lanes at a time.
    @inline(__always)
    static func rowSum(_ x: UnsafePointer<Float>, _ n: Int) -> Float {
        var lanes = SIMD8<Float>(repeating: 0)
        var i = 0
        while i + 8 <= n {
            lanes += UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self)
            i += 8
        }
        var sum = lanes.sum()
        while i < n {
            sum += x[i]
            i += 1
        }
        return sum
    }
}

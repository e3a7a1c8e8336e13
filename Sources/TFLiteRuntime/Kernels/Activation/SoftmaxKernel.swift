import Foundation

/// SOFTMAX over the last axis of a float32 tensor of any rank, with `beta` (`SoftmaxOptions`
/// field 0) scaling the logits.
///
/// As in LiteRT, each row subtracts its maximum before exponentiating, so large logits do not
/// overflow: `y = exp((x - max) * beta) / sum`.
final class SoftmaxKernel: OpKernel {
    let beta: Float

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
        beta = try node.optionFloat(0)
        guard beta.isFinite else { throw node.error("beta \(beta) is not finite") }
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        switch x.type {
        case .float32:
            break
        case .uint8, .int8, .int16:
            // Quantized softmax (exp lookup tables and fixed-point sums) gets its preparation here.
            throw node.error("quantized \(x.type.name) input is not supported yet")
        default:
            throw node.error("input type \(x.type.name) is not supported; supported: FLOAT32")
        }
        try node.setOutput(0, type: x.type, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let xt = try node.input(0)
        let x = try node.elementwiseBuffer(xt, Float.self, role: "input")
        let y = try node.elementwiseBuffer(try node.output(0), Float.self, role: "output")
        guard x.count == y.count else { throw node.error("output is not sized like the input") }
        // A scalar is one row of one logit.
        let depth = xt.rank == 0 ? 1 : xt.shape[xt.rank - 1]
        guard depth > 0, let px = x.baseAddress, let py = y.baseAddress else { return }
        let rows = x.count / depth
        let beta = self.beta
        parallelFor(rows, threads: node.threadCount, minimumPerThread: max(1, 4096 / depth)) { range in
            for r in range {
                SoftmaxKernel.row(px + r * depth, py + r * depth, depth, beta)
            }
        }
    }

    /// One row of `n >= 1` logits.
    @inline(__always)
    static func row(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ n: Int, _ beta: Float) {
        var maximum = x[0]
        for i in 1..<n where x[i] > maximum { maximum = x[i] }
        var sum: Float = 0
        for i in 0..<n {
            let e = Foundation.exp((x[i] - maximum) * beta)
            y[i] = e
            sum += e
        }
        let scale = 1 / sum
        for i in 0..<n { y[i] *= scale }
    }
}

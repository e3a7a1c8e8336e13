/// PRELU: `x` where it is not negative, else `x * alpha`, with `alpha` (input 1) broadcast against
/// `x` by NumPy rules (usually one slope per channel). Float32.
///
/// The output has the broadcast shape of the two inputs, as in LiteRT.
final class PReluKernel: OpKernel {
    private var plan: BroadcastPlan?

    init(_ node: Node) throws { try node.expect(inputs: 2, outputs: 1) }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let alpha = try node.input(1)
        switch x.type {
        case .float32:
            break
        case .uint8, .int8:
            // The quantized variant (two output multipliers) gets its preparation here.
            throw node.error("quantized \(x.type.name) input is not supported yet")
        default:
            throw node.error("input type \(x.type.name) is not supported; supported: FLOAT32")
        }
        guard alpha.type == x.type else {
            throw node.error("alpha has type \(alpha.type.name), the input \(x.type.name)")
        }
        guard let shape = broadcastShape(x.shape, alpha.shape) else {
            throw node.error("alpha shape \(alpha.shape) cannot be broadcast against input shape \(x.shape)")
        }
        guard let plan = BroadcastPlan(x.shape, alpha.shape) else {
            throw node.error("broadcast shape \(shape) has too many elements")
        }
        self.plan = plan
        try node.setOutput(0, type: x.type, shape: plan.outputShape)
    }

    func eval(_ node: Node) throws {
        guard let plan else { throw node.error("eval before prepare") }
        let x = try node.elementwiseBuffer(try node.input(0), Float.self, role: "input")
        let alpha = try node.elementwiseBuffer(try node.input(1), Float.self, role: "alpha")
        let y = try node.elementwiseBuffer(try node.output(0), Float.self, role: "output")
        guard y.count == plan.outputCount else { throw node.error("output is not sized for the broadcast shape") }
        guard let px = x.baseAddress, let pa = alpha.baseAddress, let py = y.baseAddress else { return }
        plan.apply(PReluFunctor(), px, pa, py, threads: node.threadCount, minimumPerThread: 32768)
    }
}

/// `x` where it is not negative, else `x * alpha`.
struct PReluFunctor: BinaryFunctor {
    @inline(__always) func callAsFunction(_ x: Float, _ alpha: Float) -> Float { x >= 0 ? x : x * alpha }
}

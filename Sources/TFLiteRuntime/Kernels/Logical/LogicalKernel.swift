/// LOGICAL_AND and LOGICAL_OR on two bool tensors with NumPy broadcasting, and LOGICAL_NOT on one;
/// the output is bool. No options.
///
/// A bool byte other than 0 counts as true, so a malformed input cannot produce a bool byte that is
/// neither 0 nor 1.
final class LogicalKernel: OpKernel {
    enum Operator { case and, or, not }

    let op: Operator
    private var plan: BroadcastPlan?

    init(_ node: Node, _ op: Operator) throws {
        self.op = op
        try node.expect(inputs: op == .not ? 1 : 2, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        let a = try node.input(0)
        try node.expect(a, type: .bool, role: "input 0")
        guard op != .not else {
            try node.setOutput(0, type: .bool, shape: a.shape)
            return
        }
        let b = try node.input(1)
        try node.expect(b, type: .bool, role: "input 1")
        guard let plan = BroadcastPlan(a.shape, b.shape) else {
            throw node.error("input shapes \(a.shape) and \(b.shape) cannot be broadcast together")
        }
        self.plan = plan
        try node.setOutput(0, type: .bool, shape: plan.outputShape)
    }

    func eval(_ node: Node) throws {
        let a = try node.elementwiseBuffer(try node.input(0), UInt8.self, role: "input 0")
        let out = try node.elementwiseBuffer(try node.output(0), Bool.self, role: "output")
        if op == .not {
            guard out.count == a.count else { throw node.error("output is not sized like the input") }
            for i in 0..<a.count { out[i] = a[i] == 0 }
            return
        }
        guard let plan else { throw node.error("eval before prepare") }
        let b = try node.elementwiseBuffer(try node.input(1), UInt8.self, role: "input 1")
        guard out.count == plan.outputCount else { throw node.error("output is not sized for the broadcast shape") }
        guard let pa = a.baseAddress, let pb = b.baseAddress, let po = out.baseAddress else { return }
        if op == .and {
            plan.map(UnsafePointer(pa), UnsafePointer(pb), po) { $0 != 0 && $1 != 0 }
        } else {
            plan.map(UnsafePointer(pa), UnsafePointer(pb), po) { $0 != 0 || $1 != 0 }
        }
    }
}

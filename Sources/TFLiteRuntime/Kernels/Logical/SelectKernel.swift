/// SELECT and SELECT_V2: `out = condition ? x : y`, element by element. No options.
///
/// `condition` is bool; `x` and `y` have one type of 1, 2, 4 or 8 bytes (LiteRT 2.3 selects float16,
/// float64 and uint32 too; quantized values are copied as they are, as in LiteRT). SELECT takes
/// three tensors of one shape, or a scalar condition, or a rank-1 condition that picks whole rows
/// (slices along the first dimension) of `x` and `y`, which then have one shape. SELECT_V2
/// broadcasts all three operands (NumPy rules).
final class SelectKernel: OpKernel {
    private enum Path {
        /// All three operands have the output's element count.
        case elementwise
        /// SELECT's scalar or rank-1 condition: `count` conditions, each choosing one slice.
        case rows(count: Int)
        /// SELECT_V2 with shapes that differ.
        case broadcast(TernaryBroadcast)
    }

    let broadcasts: Bool
    private var path = Path.elementwise

    init(_ node: Node, broadcasts: Bool) throws {
        self.broadcasts = broadcasts
        try node.expect(inputs: 3, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        let c = try node.input(0)
        let x = try node.input(1)
        let y = try node.input(2)
        try node.expect(c, type: .bool, role: "condition")
        guard x.type == y.type else { throw node.error("x is \(x.type.name) and y is \(y.type.name)") }
        guard [1, 2, 4, 8].contains(x.type.byteSize) else { throw node.error("x type \(x.type.name) is not supported") }
        if c.shape == x.shape && x.shape == y.shape {
            path = .elementwise
            try node.setOutput(0, type: x.type, shape: x.shape)
        } else if !broadcasts {
            guard x.shape == y.shape else { throw node.error("x \(x.shape) and y \(y.shape) differ in shape") }
            guard c.rank == 0 || (c.rank == 1 && x.rank >= 1 && c.shape[0] == x.shape[0]) else {
                throw node.error(
                    "condition \(c.shape) must match x \(x.shape), be a scalar, or match its first dimension")
            }
            path = .rows(count: c.elementCount)
            try node.setOutput(0, type: x.type, shape: x.shape)
        } else {
            guard let plan = TernaryBroadcast(c.shape, x.shape, y.shape) else {
                throw node.error("shapes \(c.shape), \(x.shape) and \(y.shape) cannot be broadcast together")
            }
            path = .broadcast(plan)
            try node.setOutput(0, type: x.type, shape: plan.outputShape)
        }
    }

    func eval(_ node: Node) throws {
        switch try node.input(1).type.byteSize {
        case 1: try run(node, UInt8.self)
        case 2: try run(node, UInt16.self)
        case 4: try run(node, UInt32.self)
        case 8: try run(node, UInt64.self)
        default: throw node.error("x type \(try node.input(1).type.name) is not supported")
        }
    }

    private func run<T>(_ node: Node, _: T.Type) throws {
        let c = try node.elementwiseBuffer(try node.input(0), UInt8.self, role: "condition")
        let x = try node.elementwiseBuffer(try node.input(1), T.self, role: "x")
        let y = try node.elementwiseBuffer(try node.input(2), T.self, role: "y")
        let out = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        switch path {
        case .elementwise:
            guard c.count == out.count, x.count == out.count, y.count == out.count else {
                throw node.error("operands are not sized like the output")
            }
            for i in 0..<out.count { out[i] = c[i] != 0 ? x[i] : y[i] }
        case .rows(let count):
            guard c.count == count, x.count == out.count, y.count == out.count else {
                throw node.error("operands are not sized like the output")
            }
            guard count > 0, out.count > 0 else { return }
            let inner = out.count / count
            for r in 0..<count {
                let source = c[r] != 0 ? x : y
                for i in r * inner..<(r + 1) * inner { out[i] = source[i] }
            }
        case .broadcast(let plan):
            guard c.count == plan.counts.0, x.count == plan.counts.1, y.count == plan.counts.2,
                out.count == plan.outputCount
            else { throw node.error("operands are not sized for the broadcast") }
            guard out.count > 0, let pc = c.baseAddress, let px = x.baseAddress, let py = y.baseAddress,
                let po = out.baseAddress
            else { return }
            let n = plan.innerCount
            let (sc, sx, sy) = plan.innerSteps
            plan.forEachRow { row, oc, ox, oy in
                let o = po + row * n
                for i in 0..<n { o[i] = pc[oc + i * sc] != 0 ? px[ox + i * sx] : py[oy + i * sy] }
            }
        }
    }
}

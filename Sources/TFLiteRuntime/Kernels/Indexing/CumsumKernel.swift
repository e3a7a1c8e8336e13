/// CUMSUM: running sums along the axis in input 1 (a one-element int32, negative counting from the
/// end). `CumsumOptions.exclusive` starts each sum at 0 (the element itself left out);
/// `reverse` sums from the end. Float32, int32 and int64 (integers wrap), as LiteRT accepts.
final class CumsumKernel: OpKernel {
    let parameters: CumsumParameters
    private var outer = 0, length = 0, inner = 0

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        parameters = try CumsumParameters(node)
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let axis = try node.input(1)
        try node.expect(x, type: .float32, .int32, .int64, role: "input")
        try node.expect(axis, type: .int32, role: "axis")
        try node.setOutput(0, type: x.type, shape: x.shape)
        guard node.knowsValues(of: axis) else {
            // The output shape does not depend on the axis; its value is read at run time.
            length = -1
            return
        }
        try resolve(node)
    }

    private func resolve(_ node: Node) throws {
        let x = try node.input(0)
        let a = try MoveSupport.axis(
            try IndexingSupport.scalar(try node.input(1), node, role: "axis"), rank: x.rank,
            node, role: "axis")
        outer = MoveSupport.product(x.shape, 0..<a)
        length = x.shape[a]
        inner = MoveSupport.product(x.shape, (a + 1)..<x.rank)
    }

    func eval(_ node: Node) throws {
        let axisIsConstant = try node.input(1).isConstant
        if length < 0 || !axisIsConstant { try resolve(node) }
        switch try node.input(0).type {
        case .float32: try run(Float.self, node)
        case .int32: try run(Int32.self, node)
        case .int64: try run(Int64.self, node)
        case let type: throw node.error("input type \(type.name) is not supported")
        }
    }

    private func run<T: ElementwiseScalar>(_: T.Type, _ node: Node) throws {
        let x = try node.elementwiseBuffer(try node.input(0), T.self, role: "input")
        let y = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        guard x.count == outer * length * inner, y.count == x.count else {
            throw node.error("tensor sizes do not match the prepared axis")
        }
        guard let px = x.baseAddress, let py = y.baseAddress else { return }
        let exclusive = parameters.exclusive
        let reverse = parameters.reverse
        for o in 0..<outer {
            for i in 0..<inner {
                let base = o * length * inner + i
                var acc: T = 0
                for step in 0..<length {
                    let k = reverse ? length - 1 - step : step
                    let at = base + k * inner
                    if exclusive {
                        py[at] = acc
                        acc = T.add(acc, px[at])
                    } else {
                        acc = T.add(acc, px[at])
                        py[at] = acc
                    }
                }
            }
        }
    }
}

/// ADD_N: the element-wise sum of two or more tensors of one shape and type (float32 or int32, as
/// LiteRT 2.3 accepts). No options.
///
/// Floats are summed from the first input to the last, as LiteRT does, so the rounding matches;
/// integers wrap on overflow.
final class MathAddNKernel: OpKernel {
    init(_ node: Node) throws {
        guard node.inputCount >= 2 else { throw node.error("needs at least 2 inputs, has \(node.inputCount)") }
        try node.expect(inputs: 2, node.inputCount, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        let first = try node.input(0)
        try node.expect(first, type: .float32, .int32, role: "input 0")
        for i in 1..<node.inputCount {
            let t = try node.input(i)
            guard t.type == first.type, t.shape == first.shape else {
                throw node.error(
                    "input \(i) is \(t.type.name) \(t.shape); input 0 is \(first.type.name) \(first.shape)")
            }
        }
        try node.setOutput(0, type: first.type, shape: first.shape)
    }

    func eval(_ node: Node) throws {
        switch try node.input(0).type {
        case .float32: try sum(node, Float.self) { $0 + $1 }
        case .int32: try sum(node, Int32.self) { $0 &+ $1 }
        case let type: throw node.error("input type \(type.name) is not supported")
        }
    }

    private func sum<T>(_ node: Node, _: T.Type, _ add: (T, T) -> T) throws {
        let out = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        let first = try node.elementwiseBuffer(try node.input(0), T.self, role: "input 0")
        guard first.count == out.count else { throw node.error("output is not sized like the inputs") }
        // The output may share memory with no input (each is read before the next is added).
        for i in 0..<out.count { out[i] = first[i] }
        for k in 1..<node.inputCount {
            let x = try node.elementwiseBuffer(try node.input(k), T.self, role: "input \(k)")
            guard x.count == out.count else { throw node.error("input \(k) is not sized like the output") }
            for i in 0..<out.count { out[i] = add(out[i], x[i]) }
        }
    }
}

/// WHERE with one operand: the int64 coordinates, in row-major order, of the elements of the input
/// that are true or non-zero; the output is `[count, rank]`. No options.
///
/// Input types: bool, float32 (NaN counts as non-zero, -0.0 as zero), int8, uint8, int16, int32,
/// int64. The output's first dimension depends on the input's values, so its shape is set at run
/// time unless the input is a constant.
final class WhereKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 1, outputs: 1) }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        try node.expect(x, type: .bool, .float32, .int8, .uint8, .int16, .int32, .int64, role: "condition")
        guard node.knowsValues(of: x) else {
            node.markOutputsDynamic()
            return
        }
        try node.setOutput(0, type: .int64, shape: [try trueCount(node, x), x.rank])
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let out = try node.elementwiseBuffer(try node.output(0), Int64.self, role: "output")
        let rank = x.rank
        let count = try trueCount(node, x)
        guard out.count == count * rank else { throw node.error("output is not sized for \(count) coordinates") }
        guard count > 0, rank > 0 else { return }
        let shape = x.shape
        var index = [Int64](repeating: 0, count: rank)
        var written = 0
        try forEachValue(node, x) { isTrue in
            if isTrue {
                for d in 0..<rank { out[written + d] = index[d] }
                written += rank
            }
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                if index[d] < Int64(shape[d]) { break }
                index[d] = 0
                d -= 1
            }
        }
    }

    private func trueCount(_ node: Node, _ x: RuntimeTensor) throws -> Int {
        var count = 0
        try forEachValue(node, x) { if $0 { count += 1 } }
        return count
    }

    /// Calls `body` with whether each element, in order, is true or non-zero.
    private func forEachValue(_ node: Node, _ x: RuntimeTensor, _ body: (Bool) -> Void) throws {
        func each<T: Equatable>(_: T.Type, _ zero: T) throws {
            for v in try node.elementwiseBuffer(x, T.self, role: "condition") { body(v != zero) }
        }
        switch x.type {
        case .bool, .uint8: try each(UInt8.self, 0)
        case .int8: try each(Int8.self, 0)
        case .int16: try each(Int16.self, 0)
        case .int32: try each(Int32.self, 0)
        case .int64: try each(Int64.self, 0)
        case .float32: try each(Float.self, 0)
        case let type: throw node.error("condition type \(type.name) is not supported")
        }
    }
}

/// ONE_HOT: for each index of input 0 (int32 or int64), a new axis of `depth` (input 1, int32
/// scalar) elements holding `on_value` (input 2) where the position equals the index and
/// `off_value` (input 3) elsewhere; an index outside `0..<depth` gives all `off_value`.
/// `OneHotOptions.axis` places the new axis (-1: last). Output type is the values' type
/// (float32, int32, int64, int8, uint8, bool, as LiteRT computes them).
final class OneHotKernel: OpKernel {
    let axis: Int

    init(_ node: Node) throws {
        try node.expect(inputs: 4, outputs: 1)
        axis = try OneHotParameters(node).axis
    }

    func prepare(_ node: Node) throws {
        let indices = try node.input(0)
        let depth = try node.input(1)
        let on = try node.input(2)
        let off = try node.input(3)
        try node.expect(indices, type: .int32, .int64, role: "indices")
        try node.expect(depth, type: .int32, role: "depth")
        try node.expect(on, type: .float32, .int32, .int64, .int8, .uint8, .bool, role: "on_value")
        guard off.type == on.type, on.elementCount == 1, off.elementCount == 1 else {
            throw node.error("on_value and off_value must be scalars of one type")
        }
        let rank = indices.rank
        guard axis >= -1, axis <= rank else { throw node.error("axis \(axis) is out of range for rank \(rank + 1)") }
        guard node.knowsValues(of: depth) else {
            node.markOutputsDynamic()
            return
        }
        let d = try IndexingSupport.scalar(depth, node, role: "depth")
        guard d >= 0 else { throw node.error("depth \(d) is negative") }
        var shape = indices.shape
        shape.insert(d, at: axis == -1 ? rank : axis)
        try node.setOutput(0, type: on.type, shape: shape)
    }

    func eval(_ node: Node) throws {
        let indices = try node.input(0)
        let y = try node.output(0)
        let size = y.type.byteSize
        let a = axis == -1 ? indices.rank : axis
        let depth = y.shape[a]
        let prefix = MoveSupport.product(indices.shape, 0..<a)
        let suffix = MoveSupport.product(indices.shape, a..<indices.rank)
        let idx = try MoveSupport.source(indices, node, role: "indices")
        let on = try MoveSupport.source(try node.input(2), node, role: "on_value")
        let off = try MoveSupport.source(try node.input(3), node, role: "off_value")
        var out = try MoveSupport.destination(y, node, role: "output")
        let wide = indices.type == .int64
        for p in 0..<prefix {
            for d in 0..<depth {
                for s in 0..<suffix {
                    let i = IndexingSupport.index(idx, p * suffix + s, wide: wide)
                    out.copyMemory(from: i == d ? on : off, byteCount: size)
                    out += size
                }
            }
        }
    }
}

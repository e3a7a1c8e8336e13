/// Shared reads and copies of the index-driven kernels.
///
/// Values read from tensors (indices, counts, shapes) are model data: every one is checked before
/// it addresses memory, and a bad one throws `node.error`.
enum IndexingSupport {
    /// The single value of a one-element int32/int64 (optionally int16) operand.
    static func scalar(_ tensor: RuntimeTensor, _ node: Node, role: String, allowInt16: Bool = false) throws -> Int {
        let values = try MoveSupport.integers(tensor, node, role: role, allowInt16: allowInt16)
        guard values.count == 1 else { throw node.error("\(role) must hold one value, has shape \(tensor.shape)") }
        return values[0]
    }

    /// Reads element `i` of an int32/int64 buffer as `Int` (the caller checked `i` is in range).
    @inline(__always)
    static func index(_ base: UnsafeRawPointer, _ i: Int, wide: Bool) -> Int {
        wide
            ? Int(base.loadUnaligned(fromByteOffset: i * 8, as: Int64.self))
            : Int(base.loadUnaligned(fromByteOffset: i * 4, as: Int32.self))
    }

    /// Copies `src` (of `srcShape`, right-aligned to `shape` and broadcast along its size-1 dims)
    /// into the contiguous `dst` of `shape`; elements are opaque runs of `size` bytes.
    static func broadcastCopy(
        _ src: UnsafeRawPointer, _ srcShape: [Int], _ dst: UnsafeMutableRawPointer, _ shape: [Int], size: Int
    ) {
        let rank = shape.count
        let padded = [Int](repeating: 1, count: rank - srcShape.count) + srcShape
        var srcStrides = [Int](repeating: 0, count: rank)
        var step = size
        for d in stride(from: rank - 1, through: 0, by: -1) {
            srcStrides[d] = padded[d] == 1 ? 0 : step
            step *= padded[d]
        }
        guard let count = MoveSupport.elementCount(shape), count > 0 else { return }
        if rank == 0 {
            dst.copyMemory(from: src, byteCount: size)
            return
        }
        var out = dst
        func walk(_ d: Int, _ s: UnsafeRawPointer) {
            if d == rank - 1 {
                if srcStrides[d] == 0 {
                    MoveSupport.fill(out, count: shape[d], pattern: s, elementSize: size)
                } else {
                    out.copyMemory(from: s, byteCount: shape[d] * size)
                }
                out += shape[d] * size
                return
            }
            for i in 0..<shape[d] { walk(d + 1, s + i * srcStrides[d]) }
        }
        walk(0, src)
    }
}

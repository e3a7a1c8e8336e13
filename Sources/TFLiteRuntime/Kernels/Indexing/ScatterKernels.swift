/// SCATTER_ND: a zero tensor of the shape in input 2 (int32 vector) into which each slice of
/// `updates` (input 1) is added at the position its index vector (last axis of input 0, int32)
/// names; repeated positions add up (bools: or). Float32, int32, int64, int8, uint8 and bool, as in
/// LiteRT. An index outside the shape fails.
final class ScatterNDKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 3, outputs: 1) }

    func prepare(_ node: Node) throws {
        let indices = try node.input(0)
        let updates = try node.input(1)
        let shape = try node.input(2)
        try node.expect(indices, type: .int32, role: "indices")
        try node.expect(updates, type: .float32, .int32, .int64, .int8, .uint8, .bool, role: "updates")
        try node.expect(shape, type: .int32, role: "shape")
        guard shape.rank == 1, indices.rank >= 1 else { throw node.error("shape must be a vector, indices non-scalar") }
        guard node.knowsValues(of: shape) else {
            node.markOutputsDynamic()
            return
        }
        let dims = try MoveSupport.integers(shape, node, role: "shape")
        let depth = indices.shape[indices.rank - 1]
        guard depth <= dims.count, dims.allSatisfy({ $0 >= 0 }) else {
            throw node.error("indices of depth \(depth) do not fit shape \(dims)")
        }
        let expected = Array(indices.shape.dropLast()) + Array(dims[depth...])
        guard updates.shape == expected else {
            throw node.error("updates have shape \(updates.shape), expected \(expected)")
        }
        try node.setOutput(0, type: updates.type, shape: dims)
    }

    func eval(_ node: Node) throws {
        let indices = try node.input(0)
        let y = try node.output(0)
        let depth = indices.shape[indices.rank - 1]
        let count = depth == 0 ? 0 : indices.elementCount / depth
        let slice = MoveSupport.product(y.shape, depth..<y.rank)
        let idx = try node.elementwiseBuffer(indices, Int32.self, role: "indices")
        var strides = [Int](repeating: slice, count: depth)
        for d in stride(from: depth - 2, through: 0, by: -1) { strides[d] = strides[d + 1] * y.shape[d + 1] }
        var offsets = [Int]()
        offsets.reserveCapacity(count)
        for i in 0..<count {
            var offset = 0
            for d in 0..<depth {
                let v = Int(idx[i * depth + d])
                guard v >= 0, v < y.shape[d] else { throw node.error("index \(v) is out of range for dimension \(d)") }
                offset += v * strides[d]
            }
            offsets.append(offset)
        }
        switch y.type {
        case .float32: try scatter(Float.self, node, offsets, slice) { $0 + $1 }
        case .int32: try scatter(Int32.self, node, offsets, slice) { $0 &+ $1 }
        case .int64: try scatter(Int64.self, node, offsets, slice) { $0 &+ $1 }
        case .int8: try scatter(Int8.self, node, offsets, slice) { $0 &+ $1 }
        case .uint8: try scatter(UInt8.self, node, offsets, slice) { $0 &+ $1 }
        case .bool: try scatter(UInt8.self, node, offsets, slice) { $0 | ($1 != 0 ? 1 : 0) }
        case let type: throw node.error("updates type \(type.name) is not supported")
        }
    }

    private func scatter<T: Numeric>(
        _: T.Type, _ node: Node, _ offsets: [Int], _ slice: Int, _ add: (T, T) -> T
    ) throws {
        let u = try node.elementwiseBuffer(try node.input(1), T.self, role: "updates")
        let y = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        guard u.count == offsets.count * slice else { throw node.error("updates do not match the indices") }
        for i in y.indices { y[i] = 0 }
        for (i, offset) in offsets.enumerated() {
            guard offset + slice <= y.count else { throw node.error("index is out of range") }
            for j in 0..<slice { y[offset + j] = add(y[offset + j], u[i * slice + j]) }
        }
    }
}

/// SPARSE_TO_DENSE: a tensor of shape input 1 (int32/int64 vector) filled with `default_value`
/// (input 3), with `values` (input 2: one per index, or one scalar for all) written at the
/// positions in input 0 (int32/int64: a scalar or vector indexing a rank-1 output, or an [N, rank]
/// matrix). Float32, int32, int64, int8 and uint8. An index outside the shape fails.
final class SparseToDenseKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 4, outputs: 1) }

    func prepare(_ node: Node) throws {
        let indices = try node.input(0)
        let shape = try node.input(1)
        let values = try node.input(2)
        let fallback = try node.input(3)
        try node.expect(indices, type: .int32, .int64, role: "indices")
        try node.expect(shape, type: .int32, .int64, role: "output_shape")
        try node.expect(values, type: .float32, .int32, .int64, .int8, .uint8, role: "values")
        guard fallback.type == values.type, fallback.elementCount == 1 else {
            throw node.error("default_value must be one value of the values' type")
        }
        guard indices.rank <= 2, values.rank <= 1, shape.rank == 1 else {
            throw node.error("indices must have rank ≤ 2, values rank ≤ 1, output_shape rank 1")
        }
        guard node.knowsValues(of: shape) else {
            node.markOutputsDynamic()
            return
        }
        let dims = try MoveSupport.integers(shape, node, role: "output_shape")
        guard dims.allSatisfy({ $0 >= 0 }) else { throw node.error("output_shape \(dims) has a negative dimension") }
        let count = indices.rank == 0 ? 1 : indices.shape[0]
        let depth = indices.rank == 2 ? indices.shape[1] : 1
        guard depth == dims.count else { throw node.error("indices of depth \(depth) do not fit shape \(dims)") }
        guard values.elementCount == 1 || values.elementCount == count else {
            throw node.error("values hold \(values.elementCount) elements for \(count) indices")
        }
        try node.setOutput(0, type: values.type, shape: dims)
    }

    func eval(_ node: Node) throws {
        let indices = try node.input(0)
        let values = try node.input(2)
        let y = try node.output(0)
        let size = y.type.byteSize
        let out = try MoveSupport.destination(y, node, role: "output")
        let fallback = try MoveSupport.source(try node.input(3), node, role: "default_value")
        MoveSupport.fill(out, count: y.elementCount, pattern: fallback, elementSize: size)
        let all = try MoveSupport.integers(indices, node, role: "indices")
        let depth = indices.rank == 2 ? indices.shape[1] : 1
        let count = indices.rank == 0 ? 1 : indices.shape[0]
        let src = try MoveSupport.source(values, node, role: "values")
        let single = values.elementCount == 1
        guard all.count == count * depth else { throw node.error("indices do not match their shape") }
        for i in 0..<count {
            var offset = 0
            for d in 0..<depth {
                let v = all[i * depth + d]
                guard v >= 0, v < y.shape[d] else { throw node.error("index \(v) is out of range for dimension \(d)") }
                offset = offset * y.shape[d] + v
            }
            (out + offset * size).copyMemory(from: src + (single ? 0 : i * size), byteCount: size)
        }
    }
}

/// DYNAMIC_UPDATE_SLICE: the operand (input 0) with `update` (input 1, same type and rank) written
/// at the start position in input 2 (int32/int64 vector), each start clamped so the update fits,
/// as LiteRT does. Any fixed-size element type.
final class DynamicUpdateSliceKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 3, outputs: 1) }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let update = try node.input(1)
        let start = try node.input(2)
        try MoveSupport.expectMovable(x, node, role: "operand")
        try node.expect(start, type: .int32, .int64, role: "start_indices")
        guard update.type == x.type, update.rank == x.rank, start.elementCount == x.rank else {
            throw node.error("update must match the operand's type and rank, start_indices its rank")
        }
        for (u, d) in zip(update.shape, x.shape) where u > d {
            throw node.error("update shape \(update.shape) exceeds operand shape \(x.shape)")
        }
        try node.setOutput(0, type: x.type, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let update = try node.input(1)
        let y = try node.output(0)
        let starts = try MoveSupport.integers(try node.input(2), node, role: "start_indices")
        let size = x.type.byteSize
        let src = try MoveSupport.source(x, node, role: "operand")
        let dst = try MoveSupport.destination(y, node, role: "output")
        if src != UnsafeRawPointer(dst) { dst.copyMemory(from: src, byteCount: x.elementCount * size) }
        guard update.elementCount > 0 else { return }
        let u = try MoveSupport.source(update, node, role: "update")
        let rank = x.rank
        let clamped = (0..<rank).map { Swift.min(Swift.max(starts[$0], 0), x.shape[$0] - update.shape[$0]) }
        var strides = [Int](repeating: size, count: rank)
        for d in stride(from: rank - 2, through: 0, by: -1) { strides[d] = strides[d + 1] * x.shape[d + 1] }
        if rank == 0 {
            dst.copyMemory(from: u, byteCount: size)
            return
        }
        var from = u
        func walk(_ d: Int, _ at: UnsafeMutableRawPointer) {
            let base = at + clamped[d] * strides[d]
            if d == rank - 1 {
                base.copyMemory(from: from, byteCount: update.shape[d] * size)
                from += update.shape[d] * size
                return
            }
            for i in 0..<update.shape[d] { walk(d + 1, base + i * strides[d]) }
        }
        walk(0, dst)
    }
}

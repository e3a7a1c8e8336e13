/// RANGE: `start, start + delta, ...` up to (not including) `limit`, from three scalars of one
/// type (int32, int64 or float32). The length is `ceil(|limit − start| / |delta|)` and each value
/// is the previous one plus `delta`, accumulated as LiteRT does (so float values carry its
/// rounding). The output shape depends on the values: non-constant operands defer it to run time.
final class RangeKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 3, outputs: 1) }

    func prepare(_ node: Node) throws {
        let start = try node.input(0)
        let limit = try node.input(1)
        let delta = try node.input(2)
        try node.expect(start, type: .int32, .int64, .float32, role: "start")
        guard limit.type == start.type, delta.type == start.type else {
            throw node.error("start, limit and delta must have one type")
        }
        for (t, role) in [(start, "start"), (limit, "limit"), (delta, "delta")] where t.elementCount != 1 {
            throw node.error("\(role) must be a scalar, has shape \(t.shape)")
        }
        guard node.knowsValues(of: start), node.knowsValues(of: limit), node.knowsValues(of: delta) else {
            node.markOutputsDynamic()
            return
        }
        try node.setOutput(0, type: start.type, shape: [try count(node)])
    }

    private func count(_ node: Node) throws -> Int {
        let start = try node.input(0)
        let limit = try node.input(1)
        let delta = try node.input(2)
        if start.type == .float32 {
            let s = try value(start, node)
            let l = try value(limit, node)
            let d = try value(delta, node)
            try check(s, l, d, node)
            let n = ((l - s) / d).magnitude.rounded(.up)
            guard n.isFinite, n < Float(Model.maxTensorBytes) else { throw node.error("range is too long") }
            return Int(n)
        }
        let s = try IndexingSupport.scalar(start, node, role: "start")
        let l = try IndexingSupport.scalar(limit, node, role: "limit")
        let d = try IndexingSupport.scalar(delta, node, role: "delta")
        try check(s, l, d, node)
        let (difference, o1) = l.subtractingReportingOverflow(s)
        let (span, o2) = difference.magnitude.addingReportingOverflow(d.magnitude - 1)
        let n = span / d.magnitude
        guard !o1, !o2, n <= UInt(Model.maxTensorBytes) else { throw node.error("range is too long") }
        return Int(n)
    }

    private func check<T: Comparable & SignedNumeric>(_ s: T, _ l: T, _ d: T, _ node: Node) throws {
        guard d != 0 else { throw node.error("delta must not be zero") }
        guard (s >= l && d < 0) || (s <= l && d > 0) else {
            throw node.error("delta's sign does not lead from start to limit")
        }
    }

    private func value(_ t: RuntimeTensor, _ node: Node) throws -> Float {
        try node.elementwiseBuffer(t, Float.self, role: "operand")[0]
    }

    func eval(_ node: Node) throws {
        let start = try node.input(0)
        let delta = try node.input(2)
        let y = try node.output(0)
        switch start.type {
        case .float32:
            fill(
                try value(start, node), try value(delta, node),
                try node.elementwiseBuffer(y, Float.self, role: "output"))
        case .int32:
            fill(
                Int32(truncatingIfNeeded: try IndexingSupport.scalar(start, node, role: "start")),
                Int32(truncatingIfNeeded: try IndexingSupport.scalar(delta, node, role: "delta")),
                try node.elementwiseBuffer(y, Int32.self, role: "output"))
        default:
            fill(
                Int64(try IndexingSupport.scalar(start, node, role: "start")),
                Int64(try IndexingSupport.scalar(delta, node, role: "delta")),
                try node.elementwiseBuffer(y, Int64.self, role: "output"))
        }
    }

    private func fill<T: ElementwiseScalar>(_ start: T, _ delta: T, _ y: UnsafeMutableBufferPointer<T>) {
        var v = start
        for i in y.indices {
            y[i] = v
            v = T.add(v, delta)
        }
    }
}

/// RANK: the input's number of dimensions as an int32 scalar.
final class RankKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 1, outputs: 1) }

    func prepare(_ node: Node) throws { try node.setOutput(0, type: .int32, shape: []) }

    func eval(_ node: Node) throws {
        let y = try node.elementwiseBuffer(try node.output(0), Int32.self, role: "output")
        y[0] = Int32(try node.input(0).rank)
    }
}

/// BROADCAST_ARGS: the broadcast of two shapes (int32 or int64 vectors, same type), right-aligned;
/// a 1 takes the other's dimension, unequal dimensions fail.
final class BroadcastArgsKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 2, outputs: 1) }

    func prepare(_ node: Node) throws {
        let a = try node.input(0)
        let b = try node.input(1)
        try node.expect(a, type: .int32, .int64, role: "shape")
        guard b.type == a.type, a.rank == 1, b.rank == 1 else {
            throw node.error("both shapes must be vectors of one type")
        }
        try node.setOutput(0, type: a.type, shape: [max(a.elementCount, b.elementCount)])
    }

    func eval(_ node: Node) throws {
        let a = try MoveSupport.integers(try node.input(0), node, role: "shape 0")
        let b = try MoveSupport.integers(try node.input(1), node, role: "shape 1")
        let rank = max(a.count, b.count)
        let pa = [Int](repeating: 1, count: rank - a.count) + a
        let pb = [Int](repeating: 1, count: rank - b.count) + b
        var result = [Int]()
        for (x, y) in zip(pa, pb) {
            guard x == y || x == 1 || y == 1 else { throw node.error("shapes \(a) and \(b) do not broadcast") }
            result.append(x == 1 ? y : x)
        }
        let out = try node.output(0)
        if out.type == .int64 {
            let y = try node.elementwiseBuffer(out, Int64.self, role: "output")
            for i in 0..<y.count { y[i] = Int64(result[i]) }
        } else {
            let y = try node.elementwiseBuffer(out, Int32.self, role: "output")
            for i in 0..<y.count { y[i] = Int32(truncatingIfNeeded: result[i]) }
        }
    }
}

/// BROADCAST_TO: the input repeated along its size-1 (or missing leading) dimensions to the shape
/// in input 1 (int32 or int64 vector, at most 8 dimensions). Any fixed-size element type.
final class BroadcastToKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 2, outputs: 1) }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let shape = try node.input(1)
        try MoveSupport.expectMovable(x, node, role: "input")
        try node.expect(shape, type: .int32, .int64, role: "shape")
        guard shape.rank == 1 else { throw node.error("shape must be a vector, has shape \(shape.shape)") }
        guard node.knowsValues(of: shape) else {
            node.markOutputsDynamic()
            return
        }
        let dims = try MoveSupport.integers(shape, node, role: "shape")
        guard dims.count <= 8, dims.count >= x.rank else {
            throw node.error("shape \(dims) cannot hold an input of rank \(x.rank) (at most 8 dimensions)")
        }
        let offset = dims.count - x.rank
        for (i, d) in x.shape.enumerated() where d != 1 && d != dims[offset + i] {
            throw node.error("input shape \(x.shape) does not broadcast to \(dims)")
        }
        try node.setOutput(0, type: x.type, shape: dims)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        let src = try MoveSupport.source(x, node, role: "input")
        let dst = try MoveSupport.destination(y, node, role: "output")
        IndexingSupport.broadcastCopy(src, x.shape, dst, y.shape, size: x.type.byteSize)
    }
}

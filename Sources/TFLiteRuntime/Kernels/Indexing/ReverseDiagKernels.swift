/// REVERSE_V2: the input with the order of elements reversed along each axis in input 1 (an int32
/// vector; negative axes count from the end). Any fixed-size element type. LiteRT refuses axes
/// that are not contiguous; this kernel reverses any set.
final class ReverseKernel: OpKernel {
    private var reversed: [Bool] = []

    init(_ node: Node) throws { try node.expect(inputs: 2, outputs: 1) }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let axes = try node.input(1)
        try MoveSupport.expectMovable(x, node, role: "input")
        try node.expect(axes, type: .int32, role: "axis")
        guard axes.rank == 1 else { throw node.error("axis must be a vector, has shape \(axes.shape)") }
        try node.setOutput(0, type: x.type, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        let rank = x.rank
        var flip = [Bool](repeating: false, count: rank)
        for a in try MoveSupport.integers(try node.input(1), node, role: "axis") {
            flip[try MoveSupport.axis(a, rank: rank, node, role: "axis")] = true
        }
        let size = x.type.byteSize
        let src = try MoveSupport.source(x, node, role: "input")
        var out = try MoveSupport.destination(y, node, role: "output")
        guard x.elementCount > 0 else { return }
        if rank == 0 {
            out.copyMemory(from: src, byteCount: size)
            return
        }
        var strides = [Int](repeating: size, count: rank)
        for d in stride(from: rank - 2, through: 0, by: -1) { strides[d] = strides[d + 1] * x.shape[d + 1] }
        let shape = x.shape
        func walk(_ d: Int, _ s: UnsafeRawPointer) {
            let n = shape[d]
            if d == rank - 1 {
                if flip[d] {
                    for i in 0..<n { (out + i * size).copyMemory(from: s + (n - 1 - i) * size, byteCount: size) }
                } else {
                    out.copyMemory(from: s, byteCount: n * size)
                }
                out += n * size
                return
            }
            for i in 0..<n { walk(d + 1, s + (flip[d] ? n - 1 - i : i) * strides[d]) }
        }
        walk(0, src)
    }
}

/// REVERSE_SEQUENCE: for each index `b` along `batch_dim`, the first `seq_lengths[b]` elements
/// along `seq_dim` reversed (`ReverseSequenceOptions`); the rest copied. Lengths (input 1) are
/// int32 or int64 and must lie in `0...dim(seq_dim)`. Float32, int32, int64, uint8 and int16, as
/// in LiteRT.
final class ReverseSequenceKernel: OpKernel {
    let parameters: ReverseSequenceParameters

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        parameters = try ReverseSequenceParameters(node)
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let lengths = try node.input(1)
        try node.expect(x, type: .float32, .int32, .int64, .uint8, .int16, role: "input")
        try node.expect(lengths, type: .int32, .int64, role: "seq_lengths")
        let rank = x.rank
        let s = parameters.seqDim
        let b = parameters.batchDim
        guard s >= 0, s < rank, b >= 0, b < rank, s != b else {
            throw node.error("seq_dim \(s) and batch_dim \(b) must be distinct axes of rank \(rank)")
        }
        guard lengths.rank == 1, lengths.elementCount == x.shape[b] else {
            throw node.error("seq_lengths must hold one length per batch (\(x.shape[b])), has shape \(lengths.shape)")
        }
        try node.setOutput(0, type: x.type, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        let lengths = try MoveSupport.integers(try node.input(1), node, role: "seq_lengths")
        let s = parameters.seqDim
        let b = parameters.batchDim
        for l in lengths where l < 0 || l > x.shape[s] {
            throw node.error("sequence length \(l) is outside 0...\(x.shape[s])")
        }
        let size = x.type.byteSize
        let src = try MoveSupport.source(x, node, role: "input")
        let dst = try MoveSupport.destination(y, node, role: "output")
        // Dimensions past both special axes are copied as one contiguous block.
        let last = max(s, b)
        let block = MoveSupport.product(x.shape, (last + 1)..<x.rank) * size
        var strides = [Int](repeating: block, count: last + 1)
        for d in stride(from: last - 1, through: 0, by: -1) { strides[d] = strides[d + 1] * x.shape[d + 1] }
        let blocks = MoveSupport.product(x.shape, 0..<(last + 1))
        guard block > 0 else { return }
        var coords = [Int](repeating: 0, count: last + 1)
        for i in 0..<blocks {
            var from = i * block
            let l = lengths[coords[b]]
            if coords[s] < l { from += (l - 1 - 2 * coords[s]) * strides[s] }
            (dst + i * block).copyMemory(from: src + from, byteCount: block)
            var d = last
            while d >= 0 {
                coords[d] += 1
                if coords[d] < x.shape[d] { break }
                coords[d] = 0
                d -= 1
            }
        }
    }
}

/// MATRIX_DIAG: square matrices `[..., n, n]` with the input's last axis `[..., n]` on the
/// diagonal and zeros (all-zero bytes) elsewhere. Any fixed-size element type.
final class MatrixDiagKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 1, outputs: 1) }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        try MoveSupport.expectMovable(x, node, role: "input")
        guard x.rank >= 1 else { throw node.error("input must have at least one dimension") }
        try node.setOutput(0, type: x.type, shape: x.shape + [x.shape[x.rank - 1]])
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        let size = x.type.byteSize
        let n = x.shape[x.rank - 1]
        let src = try MoveSupport.source(x, node, role: "input")
        let dst = try MoveSupport.destination(y, node, role: "output")
        dst.initializeMemory(as: UInt8.self, repeating: 0, count: y.elementCount * size)
        let matrices = n == 0 ? 0 : x.elementCount / n
        for m in 0..<matrices {
            for i in 0..<n {
                (dst + ((m * n + i) * n + i) * size).copyMemory(from: src + (m * n + i) * size, byteCount: size)
            }
        }
    }
}

/// MATRIX_SET_DIAG: the input matrices `[..., m, n]` with their main diagonal replaced by input 1
/// (`[..., min(m, n)]`, same type). Any fixed-size element type.
final class MatrixSetDiagKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 2, outputs: 1) }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let diagonal = try node.input(1)
        try MoveSupport.expectMovable(x, node, role: "input")
        guard x.rank >= 2, diagonal.type == x.type else {
            throw node.error("input must be matrices and the diagonal of the same type")
        }
        let m = x.shape[x.rank - 2]
        let n = x.shape[x.rank - 1]
        guard diagonal.shape == Array(x.shape.dropLast(2)) + [min(m, n)] else {
            throw node.error("diagonal has shape \(diagonal.shape) for matrices \(x.shape)")
        }
        try node.setOutput(0, type: x.type, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        let size = x.type.byteSize
        let m = x.shape[x.rank - 2]
        let n = x.shape[x.rank - 1]
        let k = min(m, n)
        let src = try MoveSupport.source(x, node, role: "input")
        let diagonal = try MoveSupport.source(try node.input(1), node, role: "diagonal")
        let dst = try MoveSupport.destination(y, node, role: "output")
        if src != UnsafeRawPointer(dst) { dst.copyMemory(from: src, byteCount: x.elementCount * size) }
        let matrices = m * n == 0 ? 0 : x.elementCount / (m * n)
        for b in 0..<matrices {
            for i in 0..<k {
                (dst + (b * m * n + i * n + i) * size).copyMemory(from: diagonal + (b * k + i) * size, byteCount: size)
            }
        }
    }
}

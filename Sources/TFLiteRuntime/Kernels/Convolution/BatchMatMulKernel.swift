/// BATCH_MATMUL on float32 tensors of rank 2 to 5, with NumPy broadcasting of the batch dimensions.
///
/// Inputs: lhs `[..., M, K]` (`[..., K, M]` with adj_x), rhs `[..., K, N]` (`[..., N, K]` with adj_y).
/// Output: `[broadcast batch..., M, N]`. Options (`BatchMatMulOptions`): adj_x, adj_y.
///
/// Each rhs matrix is packed into GEMM panels (once when it is constant); an adjoint lhs is
/// transposed into a scratch buffer first, so every product runs on `IndirectGemm` over plain rows.
final class BatchMatMulKernel: OpKernel {
    private let adjointLeft: Bool
    private let adjointRight: Bool

    private var rows = 0, depth = 0, columns = 0
    /// For each output batch, the lhs and rhs matrix it multiplies.
    private var lhsBatch: [Int] = []
    private var rhsBatch: [Int] = []
    private var rhsBatches = 0
    private var packed: [PackedWeights] = []
    private var packedShape: [Int]?
    private var transposed: UnsafeMutablePointer<Float>
    private var transposedCapacity = 1

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        let parameters = try BatchMatMulParameters(node)
        adjointLeft = parameters.adjointLeft
        adjointRight = parameters.adjointRight
        transposed = .allocate(capacity: 1)
    }

    deinit { transposed.deallocate() }

    func prepare(_ node: Node) throws {
        let lhs = try node.input(0), rhs = try node.input(1)
        try node.expect(lhs, type: .float32, role: "lhs")
        try node.expect(rhs, type: .float32, role: "rhs")
        guard (2...5).contains(lhs.rank), (2...5).contains(rhs.rank) else {
            throw node.error("operands must have rank 2 to 5, have shapes \(lhs.shape) and \(rhs.shape)")
        }
        try FloatOperand.checkExtent(lhs.shape, node: node, role: "lhs")
        try FloatOperand.checkExtent(rhs.shape, node: node, role: "rhs")
        let l = lhs.shape, r = rhs.shape
        let m = adjointLeft ? l[l.count - 1] : l[l.count - 2]
        let k = adjointLeft ? l[l.count - 2] : l[l.count - 1]
        let rk = adjointRight ? r[r.count - 1] : r[r.count - 2]
        let n = adjointRight ? r[r.count - 2] : r[r.count - 1]
        guard k == rk else { throw node.error("lhs \(l) and rhs \(r) disagree on the inner dimension (\(k) vs \(rk))") }
        let lhsBatchShape = Array(l.dropLast(2)), rhsBatchShape = Array(r.dropLast(2))
        guard let batchShape = broadcastShape(lhsBatchShape, rhsBatchShape) else {
            throw node.error("batch dimensions of \(l) and \(r) do not broadcast")
        }
        try node.setOutput(0, type: .float32, shape: batchShape + [m, n])
        rows = m
        depth = k
        columns = n
        rhsBatches = rhsBatchShape.reduce(1, *)
        let outputBatches = batchShape.reduce(1, *)
        // With an empty output nothing is computed; skip the maps, whose size would not be bounded.
        if m * n == 0 || outputBatches == 0 {
            lhsBatch = []
            rhsBatch = []
        } else {
            lhsBatch = BatchMatMulKernel.batchMap(batchShape, operand: lhsBatchShape)
            rhsBatch = BatchMatMulKernel.batchMap(batchShape, operand: rhsBatchShape)
        }
        if adjointLeft, lhs.elementCount > transposedCapacity {
            transposed.deallocate()
            transposed = .allocate(capacity: lhs.elementCount)
            transposedCapacity = lhs.elementCount
        }
        if lhsBatch.isEmpty || k == 0 {
            // Nothing to pack: `eval` writes an empty or all-zero output without the weights.
        } else if FloatOperand.isReadableConstant(rhs) {
            if packedShape != rhs.shape {
                try pack(rhs, node: node)
                packedShape = rhs.shape
            }
        } else {
            packedShape = nil
        }
    }

    /// For every batch of `shape` (row-major), the flat batch of `operand` it reads, with size-1 and
    /// missing leading dimensions broadcast.
    static func batchMap(_ shape: [Int], operand: [Int]) -> [Int] {
        let count = shape.reduce(1, *)
        let skip = shape.count - operand.count
        var map = [Int](repeating: 0, count: count)
        var index = [Int](repeating: 0, count: shape.count)
        for b in 0..<count {
            var flat = 0
            for (d, size) in operand.enumerated() { flat = flat * size + (size == 1 ? 0 : index[skip + d]) }
            map[b] = flat
            var d = shape.count - 1
            while d >= 0 {
                index[d] += 1
                if index[d] < shape[d] { break }
                index[d] = 0
                d -= 1
            }
        }
        return map
    }

    /// Packs every rhs matrix as `B[k, n]`.
    private func pack(_ rhs: RuntimeTensor, node: Node) throws {
        let base = try FloatOperand.base(rhs, node: node, role: "rhs")
        while packed.count < rhsBatches { packed.append(PackedWeights()) }
        packed.removeLast(packed.count - rhsBatches)
        let k = depth, n = columns, adjoint = adjointRight
        let constant = FloatOperand.isReadableConstant(rhs)
        for (b, weights) in packed.enumerated() {
            if constant { weights.place(in: node.weightArena) }
            let source = base + b * k * n
            if adjoint {
                weights.pack(depth: k, columns: n, source: source, depthStride: 1) { $0 * k }
            } else {
                weights.pack(depth: k, columns: n, source: source, depthStride: n) { $0 }
            }
            weights.setBias(nil)
        }
    }

    func eval(_ node: Node) throws {
        let lhs = try node.input(0), rhs = try node.input(1)
        var a = UnsafePointer(try FloatOperand.base(lhs, node: node, role: "lhs"))
        let y = try FloatOperand.base(try node.output(0), node: node, role: "output")
        guard !lhsBatch.isEmpty else { return }
        guard depth > 0 else {
            y.update(repeating: 0, count: lhsBatch.count * rows * columns)
            return
        }
        if packedShape == nil { try pack(rhs, node: node) }
        let m = rows, k = depth, n = columns
        if adjointLeft {
            let source = a, target = transposed
            let matrices = lhs.elementCount / max(m * k, 1)
            for b in 0..<matrices {
                let s = source + b * m * k, t = target + b * m * k
                for p in 0..<k {
                    for i in 0..<m { t[i * k + p] = s[p * m + i] }
                }
            }
            a = UnsafePointer(transposed)
        }
        for (b, (lb, rb)) in zip(lhsBatch, rhsBatch).enumerated() {
            var gemm = IndirectGemm(
                rows: m, taps: 1, depth: k, weights: packed[rb], output: y + b * m * n, outputStride: n)
            // LiteRT's BATCH_MATMUL results match one running sum per output (measured on the
            // committed fixtures), not the CONV_2D / FULLY_CONNECTED GEMM's blocked order.
            gemm.followsEigenOrder = false
            gemm.run(threads: node.threadCount, rowPointers: IndirectGemm.denseRows(a + lb * m * k, stride: k))
        }
    }
}

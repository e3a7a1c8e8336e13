/// Plain scalar BATCH_MATMUL with NumPy broadcasting of the batch dimensions: the oracle for
/// `BatchMatMulKernel`.
enum ReferenceBatchMatMul {
    /// Multiplies `lhs` (`[..., M, K]`, or `[..., K, M]` when `adjointLeft`) by `rhs` (`[..., K, N]`, or
    /// `[..., N, K]` when `adjointRight`) into `output` of shape `outputShape` (`[batch..., M, N]`).
    static func batchMatMul(
        lhs: UnsafePointer<Float>, lhsShape: [Int], rhs: UnsafePointer<Float>, rhsShape: [Int],
        adjointLeft: Bool, adjointRight: Bool, output: UnsafeMutablePointer<Float>, outputShape: [Int]
    ) {
        let rank = outputShape.count
        let m = outputShape[rank - 2], n = outputShape[rank - 1]
        let k = adjointLeft ? lhsShape[lhsShape.count - 2] : lhsShape[lhsShape.count - 1]
        let batchShape = Array(outputShape.prefix(rank - 2))
        let batches = batchShape.reduce(1, *)
        for batch in 0..<batches {
            // Decompose the output batch index and map it onto each operand (size-1 dims broadcast).
            var rest = batch
            var index = [Int](repeating: 0, count: batchShape.count)
            for d in stride(from: batchShape.count - 1, through: 0, by: -1) {
                index[d] = rest % batchShape[d]
                rest /= batchShape[d]
            }
            let lhsBase = operandBatch(index, lhsShape) * m * k
            let rhsBase = operandBatch(index, rhsShape) * k * n
            for i in 0..<m {
                for j in 0..<n {
                    var sum: Float = 0
                    for p in 0..<k {
                        let a = adjointLeft ? lhs[lhsBase + p * m + i] : lhs[lhsBase + i * k + p]
                        let b = adjointRight ? rhs[rhsBase + j * k + p] : rhs[rhsBase + p * n + j]
                        sum += a * b
                    }
                    output[(batch * m + i) * n + j] = sum
                }
            }
        }
    }

    /// Flat batch number within `shape` (a matrix stack) of the broadcast batch index `index`.
    private static func operandBatch(_ index: [Int], _ shape: [Int]) -> Int {
        let dims = Array(shape.prefix(shape.count - 2))
        let skip = index.count - dims.count
        var flat = 0
        for (d, size) in dims.enumerated() {
            flat = flat * size + (size == 1 ? 0 : index[skip + d])
        }
        return flat
    }
}

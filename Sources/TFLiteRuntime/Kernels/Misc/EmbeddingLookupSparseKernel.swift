/// EMBEDDING_LOOKUP_SPARSE: combines embedding rows selected by a sparse tensor of ids.
///
/// Inputs: ids `[n]` int32, indices `[n, rank]` int32 (the sparse positions, sorted), dense shape
/// `[rank]` int32, weights `[n]` float32, params `[rows, e1, ...]` float32. Output float32
/// `[d0, ..., d(rank-2), e1, ...]`: for each position of the dense tensor without its last
/// dimension, the weighted sum of its ids' rows, divided by the total weight (MEAN) or by the
/// square root of the summed squared weights (SQRTN). Options: `EmbeddingLookupSparseOptions`.
final class EmbeddingLookupSparseKernel: OpKernel {
    enum Combiner: Int8 { case sum = 0, mean = 1, sqrtn = 2 }
    let combiner: Combiner

    init(_ node: Node) throws {
        try node.expect(inputs: 5, outputs: 1)
        let raw = try EmbeddingLookupSparseParameters(node).combiner
        guard let combiner = Combiner(rawValue: raw) else { throw node.error("unknown combiner \(raw)") }
        self.combiner = combiner
    }

    func prepare(_ node: Node) throws {
        let ids = try node.input(0)
        let indices = try node.input(1)
        let denseShape = try node.input(2)
        let weights = try node.input(3)
        let params = try node.input(4)
        guard ids.rank == 1, ids.type == .int32 else { throw node.error("ids must be a 1-D int32 tensor") }
        guard indices.rank == 2, indices.type == .int32 else { throw node.error("indices must be a 2-D int32 tensor") }
        guard denseShape.rank == 1, denseShape.type == .int32 else {
            throw node.error("dense shape must be a 1-D int32 tensor")
        }
        guard weights.rank == 1, weights.type == .float32 else {
            throw node.error("weights must be a 1-D float32 tensor")
        }
        guard indices.shape[0] == ids.shape[0], weights.shape[0] == ids.shape[0] else {
            throw node.error("ids, indices and weights must have the same number of entries")
        }
        guard params.rank >= 2, params.type == .float32 else {
            throw node.error("params must be a float32 tensor of rank 2 or more")
        }
        guard try node.output(0).type == .float32 else { throw node.error("output must be FLOAT32") }
        let lookupRank = indices.shape[1]
        guard lookupRank >= 1, denseShape.shape[0] == lookupRank else {
            throw node.error("dense shape has \(denseShape.shape[0]) entries; indices have \(lookupRank) columns")
        }
        guard node.knowsValues(of: denseShape) else {
            node.markOutputsDynamic()
            return
        }
        let dense = try node.elementwiseBuffer(denseShape, Int32.self, role: "dense shape")
        var shape = [Int]()
        for k in 0..<(lookupRank - 1) {
            guard dense[k] >= 0 else { throw node.error("dense shape has negative dimension \(dense[k])") }
            shape.append(Int(dense[k]))
        }
        try node.setOutput(0, type: .float32, shape: shape + params.shape.dropFirst())
    }

    func eval(_ node: Node) throws {
        let ids = try node.elementwiseBuffer(try node.input(0), Int32.self, role: "ids")
        let indices = try node.elementwiseBuffer(try node.input(1), Int32.self, role: "indices")
        let dense = try node.elementwiseBuffer(try node.input(2), Int32.self, role: "dense shape")
        let weights = try node.elementwiseBuffer(try node.input(3), Float.self, role: "weights")
        let paramsTensor = try node.input(4)
        let params = try node.elementwiseBuffer(paramsTensor, Float.self, role: "params")
        let output = try node.elementwiseBuffer(try node.output(0), Float.self, role: "output")
        let lookupRank = dense.count
        let rows = paramsTensor.shape[0]
        let embedding = paramsTensor.shape.dropFirst().reduce(1, *)
        guard indices.count == ids.count * lookupRank, weights.count == ids.count else {
            throw node.error("indices or weights do not match the ids")
        }
        for i in 0..<output.count { output[i] = 0 }

        // A bucket is finished when the next id falls elsewhere (LiteRT assumes sorted indices).
        var bucket = 0
        var totalWeight: Float = 0
        var squaredWeight: Float = 0
        var members = 0
        func finish() {
            guard combiner != .sum, members > 0 else { return }
            let divisor = combiner == .mean ? totalWeight : squaredWeight.squareRoot()
            for k in 0..<embedding { output[bucket + k] /= divisor }
        }
        for i in 0..<ids.count {
            let id = Int(ids[i])
            guard id >= 0, id < rows else { throw node.error("id \(id) is out of bounds [0, \(rows - 1)]") }
            var position = 0
            var step = 1
            for k in stride(from: lookupRank - 2, through: 0, by: -1) {
                let index = Int(indices[i * lookupRank + k])
                let size = Int(dense[k])
                guard index >= 0, index < size else {
                    throw node.error("index \(index) at dimension \(k) is out of bounds [0, \(size))")
                }
                position += index * step
                step *= size
            }
            let offset = position * embedding
            guard offset + embedding <= output.count else { throw node.error("sparse position is outside the output") }
            if offset != bucket {
                finish()
                members = 0
                totalWeight = 0
                squaredWeight = 0
                bucket = offset
            }
            members += 1
            let w = weights[i]
            squaredWeight += w * w
            totalWeight += w
            let row = id * embedding
            for k in 0..<embedding { output[bucket + k] += params[row + k] * w }
        }
        finish()
    }
}

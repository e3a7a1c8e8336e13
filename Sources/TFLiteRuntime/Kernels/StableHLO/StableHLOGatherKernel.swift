/// STABLEHLO_GATHER: slices of `slice_sizes` from the operand at start indices read from an int32 or
/// int64 tensor (`StablehloGatherOptions`: offset_dims, collapsed_slice_dims, start_index_map,
/// index_vector_dim, slice_sizes). Any fixed-size element type, copied bytewise.
///
/// As in LiteRT (and the StableHLO spec), start indices are clamped so the whole slice fits in the
/// operand. An index_vector_dim equal to the indices' rank means index vectors of one element.
final class StableHLOGatherKernel: OpKernel {
    let p: StablehloGatherParameters
    // Geometry fixed by prepare.
    private var batchShape: [Int] = []
    private var indicesStrides: [Int] = []
    private var batchIndexDims: [Int] = []  // indices dimension of each batch dimension
    private var vectorLength = 1
    private var vectorStride = 0
    private var batchResultStrides: [Int] = []
    private var sliceResultStrides: [Int] = []  // per operand dimension; 0 for collapsed ones
    private var operandStrides: [Int] = []

    init(_ node: Node) throws {
        p = try StablehloGatherParameters(node)
    }

    private static func strides(_ shape: [Int]) -> [Int] {
        var s = [Int](repeating: 1, count: shape.count)
        for d in stride(from: shape.count - 2, through: 0, by: -1) { s[d] = s[d + 1] * shape[d + 1] }
        return s
    }

    func prepare(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        let operand = try node.input(0)
        let indices = try node.input(1)
        try node.expect(indices, type: .int32, .int64, role: "start indices")
        guard operand.type.byteSize > 0 else { throw node.error("type \(operand.type.name) is not supported") }
        let rank = operand.rank
        let indicesRank = indices.rank
        let ivd = p.indexVectorDim
        guard ivd >= 0, ivd <= indicesRank else { throw node.error("index_vector_dim \(ivd) is out of range") }
        vectorLength = ivd < indicesRank ? indices.shape[ivd] : 1
        guard p.startIndexMap.count == vectorLength else {
            throw node.error(
                "start_index_map has \(p.startIndexMap.count) entries for index vectors of \(vectorLength)")
        }
        guard p.startIndexMap.allSatisfy({ $0 >= 0 && $0 < rank }), Set(p.startIndexMap).count == vectorLength else {
            throw node.error("start_index_map \(p.startIndexMap) is invalid for rank \(rank)")
        }
        guard p.sliceSizes.count == rank else { throw node.error("slice_sizes must have \(rank) entries") }
        for d in 0..<rank where p.sliceSizes[d] < 0 || p.sliceSizes[d] > operand.shape[d] {
            throw node.error("slice size \(p.sliceSizes[d]) does not fit dimension \(d) of \(operand.shape)")
        }
        let collapsed = Set(p.collapsedSliceDims)
        guard collapsed.count == p.collapsedSliceDims.count,
            p.collapsedSliceDims.allSatisfy({ $0 >= 0 && $0 < rank && p.sliceSizes[$0] <= 1 })
        else { throw node.error("collapsed_slice_dims \(p.collapsedSliceDims) are invalid") }
        let keptSliceDims = (0..<rank).filter { !collapsed.contains($0) }
        batchIndexDims = (0..<indicesRank).filter { $0 != ivd }
        batchShape = batchIndexDims.map { indices.shape[$0] }
        let resultRank = batchShape.count + keptSliceDims.count
        let offsetDims = p.offsetDims.sorted()
        guard offsetDims.count == keptSliceDims.count, Set(offsetDims).count == offsetDims.count,
            offsetDims.allSatisfy({ $0 >= 0 && $0 < resultRank })
        else {
            throw node.error("offset_dims \(p.offsetDims) do not match the slice's \(keptSliceDims.count) dimensions")
        }
        var shape = [Int](repeating: 0, count: resultRank)
        var batchPositions = [Int]()
        var k = 0
        for r in 0..<resultRank {
            if let j = offsetDims.firstIndex(of: r) {
                shape[r] = p.sliceSizes[keptSliceDims[j]]
            } else {
                shape[r] = batchShape[k]
                batchPositions.append(r)
                k += 1
            }
        }
        let resultStrides = Self.strides(shape)
        batchResultStrides = batchPositions.map { resultStrides[$0] }
        sliceResultStrides = [Int](repeating: 0, count: rank)
        for (j, d) in keptSliceDims.enumerated() { sliceResultStrides[d] = resultStrides[offsetDims[j]] }
        indicesStrides = Self.strides(indices.shape)
        vectorStride = ivd < indicesRank ? indicesStrides[ivd] : 0
        operandStrides = Self.strides(operand.shape)
        try node.setOutput(0, type: operand.type, shape: shape)
    }

    func eval(_ node: Node) throws {
        let operand = try node.input(0)
        let indices = try node.input(1)
        let output = try node.output(0)
        let size = operand.type.byteSize
        guard let destination = try stablehloBytes(node, output, role: "output") else { return }
        guard let source = try stablehloBytes(node, operand, role: "operand") else {
            throw node.error("operand has no data")
        }
        let starts: [Int]
        switch indices.type {
        case .int32: starts = try node.elementwiseBuffer(indices, Int32.self, role: "start indices").map(Int.init)
        case .int64:
            starts = try node.elementwiseBuffer(indices, Int64.self, role: "start indices").map {
                Int(truncatingIfNeeded: $0)
            }
        default: throw node.error("start indices must be int32 or int64")
        }
        let rank = operand.rank
        // Each slice element's offset in the operand and in the result, relative to the slice start.
        let sliceCount = p.sliceSizes.reduce(1, *)
        var sliceFrom = [Int](repeating: 0, count: sliceCount)
        var sliceTo = [Int](repeating: 0, count: sliceCount)
        var slice = [Int](repeating: 0, count: rank)
        for n in 0..<sliceCount {
            for d in 0..<rank {
                sliceFrom[n] += slice[d] * operandStrides[d]
                sliceTo[n] += slice[d] * sliceResultStrides[d]
            }
            var d = rank - 1
            while d >= 0 {
                slice[d] += 1
                if slice[d] < p.sliceSizes[d] { break }
                slice[d] = 0
                d -= 1
            }
        }
        let batchCount = batchShape.reduce(1, *)
        var batch = [Int](repeating: 0, count: batchShape.count)
        for _ in 0..<batchCount {
            var indexBase = 0
            var resultBase = 0
            for (k, b) in batch.enumerated() {
                indexBase += b * indicesStrides[batchIndexDims[k]]
                resultBase += b * batchResultStrides[k]
            }
            var operandBase = 0
            for j in 0..<vectorLength {
                let d = p.startIndexMap[j]
                let start = max(0, min(starts[indexBase + j * vectorStride], operand.shape[d] - p.sliceSizes[d]))
                operandBase += start * operandStrides[d]
            }
            for n in 0..<sliceCount {
                (destination + (resultBase + sliceTo[n]) * size).copyMemory(
                    from: source + (operandBase + sliceFrom[n]) * size, byteCount: size)
            }
            var k = batch.count - 1
            while k >= 0 {
                batch[k] += 1
                if batch[k] < batchShape[k] { break }
                batch[k] = 0
                k -= 1
            }
        }
    }
}

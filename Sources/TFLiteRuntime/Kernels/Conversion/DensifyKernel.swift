/// DENSIFY: expands a constant tensor stored in TACO sparse format (`RuntimeTensor.sparsity`) into
/// its dense form. The input is constant, so the output is computed once, while preparing, and bound
/// as a constant (LiteRT likewise keeps it in a persistent tensor).
final class DensifyKernel: OpKernel {
    private let folded = FoldedOutputs()

    init(_ node: Node) throws { try node.expect(inputs: 1, outputs: 1) }

    func prepare(_ node: Node) throws {
        // The input is a constant, so a previous expansion is still valid.
        if folded.isCurrent(node) { return }
        try folded.reset(node)
        let x = try node.input(0)
        try MoveSupport.expectMovable(x, node, role: "input")
        guard x.isConstant, let sparsity = x.sparsity else {
            throw node.error("input must be a constant sparse tensor")
        }
        let layout = try SparseLayout(sparsity, denseShape: x.shape, node)
        try node.setOutput(0, type: x.type, shape: x.shape)
        try folded.fold(node) {
            let y = try node.output(0)
            let es = x.type.byteSize
            let values = UnsafeRawBufferPointer(start: x.data, count: x.byteCount)
            try layout.expand(
                values: values, elementSize: es, into: MoveSupport.destination(y, node, role: "output"), node)
        }
    }

    func eval(_ node: Node) throws {
        guard folded.isActive else { throw node.error("output was not computed while preparing") }
    }

    /// The dense weights, freed once their readers (a folded DEQUANTIZE, a packing convolution)
    /// hold their own copies.
    var releasableFold: FoldedOutputs? { folded }
}

/// A validated TACO sparse layout: `traversalOrder` lists the dense dimensions, then the block
/// dimensions, in storage order; each level is dense (a size) or CSR (segments and indices).
struct SparseLayout {
    let denseShape: [Int]
    let order: [Int]
    let blockMap: [Int]
    let blockSizes: [Int]
    let levels: [SparseDimension]

    init(_ sparsity: SparsityInfo, denseShape: [Int], _ node: Node) throws {
        let rank = denseShape.count, total = sparsity.traversalOrder.count
        let blocks = sparsity.blockMap.count
        guard total == rank + blocks, sparsity.dimensions.count == total, total <= 16 else {
            throw node.error(
                "sparsity has \(total) traversal dimensions and \(sparsity.dimensions.count) levels for rank \(rank) with \(blocks) blocks")
        }
        let order = sparsity.traversalOrder
        guard Set(order) == Set(0..<total), order.prefix(rank).allSatisfy({ $0 < rank }) else {
            throw node.error("traversal order \(order) is invalid for rank \(rank)")
        }
        guard sparsity.blockMap.allSatisfy({ $0 >= 0 && $0 < rank }),
            zip(sparsity.blockMap, sparsity.blockMap.dropFirst()).allSatisfy({ $0 < $1 })
        else {
            throw node.error("block map \(sparsity.blockMap) is invalid for rank \(rank)")
        }
        // A block's size is the dense size stored for the level that walks it.
        var sizes = [Int]()
        for b in 0..<blocks {
            let size = sparsity.dimensions[order[rank + b]].denseSize
            let dim = denseShape[sparsity.blockMap[b]]
            guard size > 0, dim % size == 0 else {
                throw node.error("block size \(size) does not divide dimension \(sparsity.blockMap[b]) of \(denseShape)")
            }
            sizes.append(size)
        }
        // Each level walks one dimension of the blocked shape; a dense level must say so exactly, which
        // also bounds the walk by the dense element count.
        for (i, dim) in sparsity.dimensions.enumerated() where dim.format == .dense {
            let expected: Int
            if i < rank {
                let d = order[i]
                expected = sparsity.blockMap.firstIndex(of: d).map { denseShape[d] / sizes[$0] } ?? denseShape[d]
            } else {
                expected = sizes[order[i] - rank]
            }
            guard dim.denseSize == expected else {
                throw node.error("dense level \(i) has size \(dim.denseSize), expected \(expected)")
            }
        }
        self.denseShape = denseShape
        self.order = order
        blockMap = sparsity.blockMap
        blockSizes = sizes
        levels = sparsity.dimensions
    }

    /// Writes the dense tensor: zeros, then each stored value at the coordinates its path names.
    func expand(values: UnsafeRawBufferPointer, elementSize es: Int, into output: UnsafeMutableRawPointer, _ node: Node) throws {
        let denseCount = MoveSupport.product(denseShape, 0..<denseShape.count)
        output.initializeMemory(as: UInt8.self, repeating: 0, count: denseCount * es)
        let stored = values.count / max(es, 1)
        var next = 0
        let rank = denseShape.count
        let strides = stridesOf(denseShape)
        // Scratch for the recursion, allocated once (an array per stored value was most of a sparse
        // model's load time).
        let path = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(levels.count, 1))
        let coordinates = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(rank, 1))
        path.initialize(repeating: 0)
        defer {
            path.deallocate()
            coordinates.deallocate()
        }

        func place() throws {
            guard next < stored, let base = values.baseAddress else {
                throw node.error("sparse tensor holds \(stored) values but its indices address more")
            }
            var offset = 0
            for i in 0..<rank { coordinates[order[i]] = path[i] }
            for i in rank..<levels.count {
                let b = order[i] - rank
                coordinates[blockMap[b]] = coordinates[blockMap[b]] * blockSizes[b] + path[i]
            }
            for d in 0..<rank {
                guard coordinates[d] >= 0, coordinates[d] < denseShape[d] else {
                    throw node.error("sparse index \(Array(coordinates)) is outside shape \(denseShape)")
                }
                offset += coordinates[d] * strides[d]
            }
            (output + offset * es).copyMemory(from: base + next * es, byteCount: es)
            next += 1
        }

        // `position` is this level's position in its parent's storage, as in LiteRT's converter.
        func visit(_ level: Int, _ position: Int) throws {
            if level == levels.count { return try place() }
            switch levels[level].format {
            case .dense:
                let size = levels[level].denseSize
                for i in 0..<size {
                    path[level] = i
                    try visit(level + 1, position &* size &+ i)
                }
            case .sparseCSR:
                // Like LiteRT, a segment outside the stored indices contributes nothing.
                let segments = levels[level].segments, indices = levels[level].indices
                guard position >= 0, position + 1 < segments.count else { return }
                let lower = max(segments[position], 0)
                let upper = min(segments[position + 1], indices.count)
                guard lower < upper else { return }
                for i in lower..<upper {
                    path[level] = indices[i]
                    try visit(level + 1, i)
                }
            }
        }
        try visit(0, 0)
    }
}

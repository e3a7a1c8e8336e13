/// SPACE_TO_DEPTH and DEPTH_TO_SPACE (`block_size`, field 0) on NHWC tensors: each is a transpose
/// of the input viewed as six dimensions, so the copy runs along whole channel vectors.
final class SpaceDepthKernel: OpKernel {
    enum Direction { case spaceToDepth, depthToSpace }

    private let direction: Direction
    private let block: Int
    private let folded = FoldedOutputs()

    init(_ node: Node, _ direction: Direction) throws {
        try node.expect(inputs: 1, outputs: 1)
        self.direction = direction
        block = try BlockSizeParameters(node).blockSize
        guard block > 0 else { throw node.error("block_size \(block) must be positive") }
    }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let x = try node.input(0)
        try MoveSupport.expectMovable(x, node, role: "input")
        guard x.rank == 4 else { throw node.error("input must be 4-D (NHWC), has shape \(x.shape)") }
        let (n, h, w, c) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (area, overflow) = block.multipliedReportingOverflow(by: block)
        guard !overflow else { throw node.error("block_size \(block) is too large") }
        let shape: [Int]
        switch direction {
        case .spaceToDepth:
            guard h % block == 0, w % block == 0 else {
                throw node.error("height and width of \(x.shape) must be multiples of block_size \(block)")
            }
            let (depth, o) = c.multipliedReportingOverflow(by: area)
            guard !o else { throw node.error("block_size \(block) is too large") }
            shape = [n, h / block, w / block, depth]
        case .depthToSpace:
            guard c % area == 0 else {
                throw node.error("depth of \(x.shape) must be a multiple of block_size² (\(area))")
            }
            let (height, o1) = h.multipliedReportingOverflow(by: block)
            let (width, o2) = w.multipliedReportingOverflow(by: block)
            guard !o1, !o2 else { throw node.error("block_size \(block) is too large") }
            shape = [n, height, width, c / area]
        }
        try node.setOutput(0, type: x.type, shape: shape)
        if MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        let copy = SpaceDepthKernel.plan(direction, inputShape: x.shape, block: block, elementSize: x.type.byteSize)
        copy.run(
            from: try MoveSupport.source(x, node, role: "input"), to: try MoveSupport.destination(y, node, role: "output"),
            threads: node.threadCount)
    }

    /// The six-dimensional copy, iterating in output order.
    static func plan(_ direction: Direction, inputShape s: [Int], block b: Int, elementSize: Int) -> StridedCopy {
        let (n, h, w, c) = (s[0], s[1], s[2], s[3])
        switch direction {
        case .spaceToDepth:
            // Output [n, h/b, w/b, (dy, dx, c)] reads input [n, h/b·b + dy, w/b·b + dx, c].
            let extents = [n, h / b, w / b, b, b, c]
            return StridedCopy(
                extents: extents, sourceStrides: [h * w * c, b * w * c, b * c, w * c, c, 1],
                destinationStrides: stridesOf(extents), elementSize: elementSize)
        case .depthToSpace:
            // Output [n, (y, dy), (x, dx), oc] reads input [n, y, x, (dy, dx, oc)].
            let oc = c / (b * b)
            let extents = [n, h, b, w, b, oc]
            return StridedCopy(
                extents: extents, sourceStrides: [h * w * c, w * c, b * oc, c, oc, 1],
                destinationStrides: stridesOf(extents), elementSize: elementSize)
        }
    }
}

/// SPACE_TO_BATCH_ND (inputs: input, block_shape, paddings) and BATCH_TO_SPACE_ND (inputs: input,
/// block_shape, crops): move blocks of the spatial dimensions (all but the first and last) to and
/// from the batch dimension. Padding uses the output's zero point for 8- and 16-bit types, as LiteRT.
final class SpaceBatchKernel: OpKernel {
    enum Direction { case spaceToBatch, batchToSpace }

    private let direction: Direction
    private let folded = FoldedOutputs()
    /// The move, worked out by `prepare` for the current shapes: per output pixel (space to batch)
    /// or input pixel (batch to space), the element offset of the pixel it pairs with on the other
    /// side, or -1 for padding (filled with `zero`) and cropped pixels (skipped). Working the
    /// indices out once keeps `eval` to plain copies (it was most of a small dilated model's invoke).
    private var pairs: [Int] = []
    /// One element of padding: the output's zero point for 8- and 16-bit types, else zero.
    private var zero: [UInt8] = []
    /// Elements per pixel (the last dimension).
    private var depth = 0

    init(_ node: Node, _ direction: Direction) throws {
        try node.expect(inputs: 3, outputs: 1)
        self.direction = direction
    }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let x = try node.input(0), blockTensor = try node.input(1), padTensor = try node.input(2)
        try MoveSupport.expectMovable(x, node, role: "input")
        guard x.rank >= 3 else { throw node.error("input must have at least 3 dimensions, has shape \(x.shape)") }
        let spatial = x.rank - 2
        guard blockTensor.rank == 1, blockTensor.elementCount == spatial else {
            throw node.error("block_shape must be a vector of \(spatial) values, has shape \(blockTensor.shape)")
        }
        let role = direction == .spaceToBatch ? "paddings" : "crops"
        guard padTensor.rank == 2, padTensor.shape[0] == spatial, padTensor.shape[1] == 2 else {
            throw node.error("\(role) must have shape [\(spatial), 2], has \(padTensor.shape)")
        }
        guard node.knowsValues(of: blockTensor), node.knowsValues(of: padTensor) else {
            node.markOutputsDynamic()
            return
        }
        let blocks = try MoveSupport.integers(blockTensor, node, role: "block_shape")
        let pads = try MoveSupport.integers(padTensor, node, role: role)
        guard blocks.allSatisfy({ $0 > 0 && $0 <= Int(Int32.max) }) else {
            throw node.error("block_shape \(blocks) must be positive")
        }
        guard pads.allSatisfy({ $0 >= 0 && $0 <= Int(Int32.max) }) else {
            throw node.error("\(role) \(pads) must be non-negative")
        }
        var shape = x.shape
        var blockCount = 1
        for i in 0..<spatial {
            let (p, o) = blockCount.multipliedReportingOverflow(by: blocks[i])
            guard !o, p <= Model.maxTensorBytes else { throw node.error("block_shape \(blocks) is too large") }
            blockCount = p
            let dim = x.shape[i + 1]
            switch direction {
            case .spaceToBatch:
                let padded = dim + pads[2 * i] + pads[2 * i + 1]
                guard padded % blocks[i] == 0 else {
                    throw node.error("padded dimension \(i + 1) (\(padded)) is not a multiple of block \(blocks[i])")
                }
                shape[i + 1] = padded / blocks[i]
            case .batchToSpace:
                let (full, o2) = dim.multipliedReportingOverflow(by: blocks[i])
                guard !o2, full - pads[2 * i] - pads[2 * i + 1] >= 0 else {
                    throw node.error("crops \(pads) are larger than dimension \(i + 1) times block \(blocks[i])")
                }
                shape[i + 1] = full - pads[2 * i] - pads[2 * i + 1]
            }
        }
        switch direction {
        case .spaceToBatch:
            let (batch, o) = x.shape[0].multipliedReportingOverflow(by: blockCount)
            guard !o else { throw node.error("output batch is too large") }
            shape[0] = batch
        case .batchToSpace:
            guard x.shape[0] % blockCount == 0 else {
                throw node.error("batch \(x.shape[0]) is not a multiple of the block count \(blockCount)")
            }
            shape[0] = x.shape[0] / blockCount
        }
        try node.setOutput(0, type: x.type, shape: shape)
        let y = try node.output(0)
        let es = x.type.byteSize
        zero = [UInt8](repeating: 0, count: es)
        if es == 1 { zero[0] = UInt8(truncatingIfNeeded: y.zeroPoint) }
        if es == 2 { withUnsafeBytes(of: Int16(truncatingIfNeeded: y.zeroPoint)) { zero = Array($0) } }
        depth = x.shape[x.rank - 1]
        pairs = SpaceBatchKernel.pairs(
            direction, space: direction == .spaceToBatch ? x.shape : shape,
            batch: direction == .spaceToBatch ? shape : x.shape, blocks: blocks,
            before: (0..<spatial).map { pads[2 * $0] })
        if MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        let source = try MoveSupport.source(x, node, role: "input")
        let destination = try MoveSupport.destination(y, node, role: "output")
        let es = x.type.byteSize, depth = depth, run = depth * es
        guard run > 0, pairs.count * run <= (direction == .spaceToBatch ? y.byteCount : x.byteCount) else { return }
        let minimum = max(1, (1 << 14) / run)
        pairs.withUnsafeBufferPointer { pairs in
            switch direction {
            case .spaceToBatch:
                zero.withUnsafeBytes { zero in
                    parallelFor(pairs.count, threads: node.threadCount, minimumPerThread: minimum) { range in
                        for k in range {
                            let at = pairs[k], out = destination + k * run
                            if at >= 0 {
                                out.copyMemory(from: source + at * es, byteCount: run)
                            } else {
                                MoveSupport.fill(out, count: depth, pattern: zero.baseAddress!, elementSize: es)
                            }
                        }
                    }
                }
            case .batchToSpace:
                // Every output element comes from exactly one input pixel, so ranges write apart.
                parallelFor(pairs.count, threads: node.threadCount, minimumPerThread: minimum) { range in
                    for k in range where pairs[k] >= 0 {
                        (destination + pairs[k] * es).copyMemory(from: source + k * run, byteCount: run)
                    }
                }
            }
        }
    }

    /// The pairing of batch-side pixels with space-side element offsets (-1: padding or cropped)
    /// for a space-side shape `space` and batch-side shape `batch`, in the batch side's pixel
    /// order. Batch `b` holds block position `b / spaceBatch` (row-major over `blocks`) of image
    /// `b % spaceBatch`; its pixel at spatial index `v` comes from `v · block + shift − before`.
    static func pairs(_ direction: Direction, space: [Int], batch: [Int], blocks: [Int], before: [Int]) -> [Int] {
        let spatial = blocks.count
        let positions = MoveSupport.product(batch, 1..<(spatial + 1))
        let spaceStrides = stridesOf(space)
        let spaceBatch = space[0]
        guard spaceBatch > 0 else { return [] }
        var result = [Int](repeating: -1, count: batch[0] * positions)
        var shift = [Int](repeating: 0, count: spatial)
        for b in 0..<batch[0] {
            var rest = b / spaceBatch
            for i in stride(from: spatial - 1, through: 0, by: -1) {
                shift[i] = rest % blocks[i]
                rest /= blocks[i]
            }
            for p in 0..<positions {
                var rest = p, offset = (b % spaceBatch) * spaceStrides[0], inside = true
                for i in stride(from: spatial - 1, through: 0, by: -1) {
                    let v = rest % batch[i + 1]
                    rest /= batch[i + 1]
                    let at = v * blocks[i] + shift[i] - before[i]
                    if at < 0 || at >= space[i + 1] { inside = false; break }
                    offset += at * spaceStrides[i + 1]
                }
                if inside { result[b * positions + p] = offset }
            }
        }
        return result
    }
}

/// The `[rank, 2]` paddings operand of PAD, PADV2 and MIRROR_PAD: elements added before and after
/// each dimension.
struct Paddings {
    var before: [Int]
    var after: [Int]

    init(before: [Int], after: [Int]) {
        self.before = before
        self.after = after
    }

    /// Reads and checks int32/int64 paddings for an input of `rank` dimensions.
    init(_ tensor: RuntimeTensor, rank: Int, _ node: Node) throws {
        guard tensor.rank == 2, tensor.shape[0] == rank, tensor.shape[1] == 2 else {
            throw node.error("paddings must have shape [\(rank), 2], has \(tensor.shape)")
        }
        let values = try MoveSupport.integers(tensor, node, role: "paddings")
        before = (0..<rank).map { values[2 * $0] }
        after = (0..<rank).map { values[2 * $0 + 1] }
        guard values.allSatisfy({ $0 >= 0 && $0 <= Int(Int32.max) }) else {
            throw node.error("paddings \(values) must be non-negative")
        }
    }

    func outputShape(_ shape: [Int]) -> [Int] {
        shape.indices.map { shape[$0] + before[$0] + after[$0] }
    }

    /// Folds trailing dimensions that get no padding into the element, so rows become long runs
    /// (an NHWC image padded in H and W moves whole pixels): returns the folded shape, paddings
    /// and how many original elements make one folded element.
    func foldingUnpadded(_ shape: [Int]) -> (shape: [Int], paddings: Paddings, group: Int) {
        var shape = shape, folded = self, group = 1
        while shape.count > 1, let b = folded.before.last, let a = folded.after.last, b == 0, a == 0 {
            group *= shape.removeLast()
            folded.before.removeLast()
            folded.after.removeLast()
        }
        return (shape, folded, group)
    }
}

/// Walks the rows (all dimensions but the last) of a padded output, giving each row's output
/// element offset and, per outer dimension, the output coordinate.
private func forEachPaddedRow(
    outputShape: [Int], threads: Int, rowBytes: Int, _ body: (_ row: Int, _ coordinates: UnsafeMutableBufferPointer<Int>) -> Void
) {
    let outerRank = outputShape.count - 1
    let rows = MoveSupport.product(outputShape, 0..<outerRank)
    parallelFor(rows, threads: threads, minimumPerThread: max(1, (1 << 16) / max(rowBytes, 1))) { range in
        let coordinates = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(outerRank, 1))
        defer { coordinates.deallocate() }
        var rest = range.lowerBound
        for d in stride(from: outerRank - 1, through: 0, by: -1) {
            coordinates[d] = rest % outputShape[d]
            rest /= outputShape[d]
        }
        for row in range {
            body(row, coordinates)
            var d = outerRank - 1
            while d >= 0 {
                coordinates[d] += 1
                if coordinates[d] < outputShape[d] { break }
                coordinates[d] = 0
                d -= 1
            }
        }
    }
}

/// PAD and PADV2: surrounds the input with a constant — PADV2's input 2, else zero (the output's
/// zero point for quantized uint8, int8 and int16, as in LiteRT).
final class PadKernel: OpKernel {
    private var paddings = Paddings.empty
    private var defaultValue: [UInt8] = []
    private let folded = FoldedOutputs()

    init(_ node: Node) throws { try node.expect(inputs: 2, 3, outputs: 1) }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let x = try node.input(0), paddingsTensor = try node.input(1)
        try MoveSupport.expectMovable(x, node, role: "input")
        try node.expect(paddingsTensor, type: .int32, .int64, role: "paddings")
        let y = try node.output(0)
        if let value = node.optionalInput(2) {
            guard value.type == x.type, value.elementCount == 1 else {
                throw node.error("constant value must be one \(x.type.name), is \(value.type.name) \(value.shape)")
            }
            if x.quantization != nil, value.scale != y.scale || value.zeroPoint != y.zeroPoint {
                throw node.error("constant value is quantized differently from the output")
            }
        } else {
            defaultValue = try PadKernel.zero(of: x, output: y, node)
        }
        guard node.knowsValues(of: paddingsTensor) else {
            node.markOutputsDynamic()
            return
        }
        paddings = try Paddings(paddingsTensor, rank: x.rank, node)
        try node.setOutput(0, type: x.type, shape: paddings.outputShape(x.shape))
        if MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    /// The bytes of "zero" for the output: its zero point when quantized, as LiteRT pads.
    private static func zero(of x: RuntimeTensor, output y: RuntimeTensor, _ node: Node) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: x.type.byteSize)
        let quantized = x.type == .uint8 || (x.quantization != nil && (x.type == .int8 || x.type == .int16))
        guard quantized else { return bytes }
        let zp = y.zeroPoint
        switch x.type {
        case .uint8:
            guard let v = UInt8(exactly: zp) else { throw node.error("output zero point \(zp) does not fit UINT8") }
            bytes[0] = v
        case .int8:
            guard let v = Int8(exactly: zp) else { throw node.error("output zero point \(zp) does not fit INT8") }
            bytes[0] = UInt8(bitPattern: v)
        default:
            guard let v = Int16(exactly: zp) else { throw node.error("output zero point \(zp) does not fit INT16") }
            withUnsafeBytes(of: v) { bytes = Array($0) }
        }
        return bytes
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        var pad = defaultValue
        if let value = node.optionalInput(2) {
            let v = try MoveSupport.source(value, node, role: "constant value")
            pad = Array(UnsafeRawBufferPointer(start: v, count: value.type.byteSize))
        }
        try pad.withUnsafeBytes { p in
            try PadKernel.pad(
                MoveSupport.source(x, node, role: "input"), shape: x.shape, paddings,
                value: p.baseAddress!, elementSize: x.type.byteSize,
                into: MoveSupport.destination(y, node, role: "output"), threads: node.threadCount)
        }
    }

    /// Writes `input` surrounded by copies of the `elementSize`-byte `value`; rows (the last
    /// dimension) are filled or copied whole.
    static func pad(
        _ input: UnsafeRawPointer, shape fullShape: [Int], _ fullPaddings: Paddings, value: UnsafeRawPointer,
        elementSize elementBytes: Int, into output: UnsafeMutableRawPointer, threads: Int
    ) {
        let (shape, paddings, group) = fullPaddings.foldingUnpadded(fullShape)
        let es = elementBytes * group
        guard group > 1 else {
            return padRows(input, shape, paddings, value, es, output, threads)
        }
        // The pad value, repeated to fill one folded element.
        let wide = UnsafeMutableRawPointer.allocate(byteCount: max(es, 1), alignment: 16)
        defer { wide.deallocate() }
        MoveSupport.fill(wide, count: group, pattern: value, elementSize: elementBytes)
        padRows(input, shape, paddings, UnsafeRawPointer(wide), es, output, threads)
    }

    private static func padRows(
        _ input: UnsafeRawPointer, _ shape: [Int], _ paddings: Paddings, _ value: UnsafeRawPointer, _ es: Int,
        _ output: UnsafeMutableRawPointer, _ threads: Int
    ) {
        let outShape = paddings.outputShape(shape)
        guard let outCount = MoveSupport.elementCount(outShape), outCount > 0 else { return }
        guard let last = shape.indices.last else {
            output.copyMemory(from: input, byteCount: es)
            return
        }
        let rowLength = outShape[last], inputStrides = stridesOf(shape)
        if (0..<last).allSatisfy({ paddings.before[$0] == 0 && paddings.after[$0] == 0 }) {
            // Only the last dimension is padded (channels, say): row r copies input row r, with no
            // coordinate walk.
            let rows = outCount / rowLength
            let left = paddings.before[last], width = shape[last], right = paddings.after[last]
            parallelFor(rows, threads: threads, minimumPerThread: max(1, (1 << 16) / max(rowLength * es, 1))) { range in
                for r in range {
                    let out = output + r * rowLength * es
                    MoveSupport.fill(out, count: left, pattern: value, elementSize: es)
                    (out + left * es).copyMemory(from: input + r * width * es, byteCount: width * es)
                    MoveSupport.fill(out + (left + width) * es, count: right, pattern: value, elementSize: es)
                }
            }
            return
        }
        forEachPaddedRow(outputShape: outShape, threads: threads, rowBytes: rowLength * es) { row, c in
            let out = output + row * rowLength * es
            var source = 0
            for d in 0..<last {
                let i = c[d] - paddings.before[d]
                guard i >= 0, i < shape[d] else {
                    MoveSupport.fill(out, count: rowLength, pattern: value, elementSize: es)
                    return
                }
                source += i * inputStrides[d]
            }
            let left = paddings.before[last], width = shape[last]
            MoveSupport.fill(out, count: left, pattern: value, elementSize: es)
            (out + left * es).copyMemory(from: input + source * es, byteCount: width * es)
            MoveSupport.fill(out + (left + width) * es, count: paddings.after[last], pattern: value, elementSize: es)
        }
    }
}

extension Paddings {
    static let empty = Paddings(before: [], after: [])
}

/// MIRROR_PAD (`MirrorPadOptions.mode`, field 0: REFLECT = 0 excludes the edge, SYMMETRIC = 1
/// repeats it); each padding may be at most the dimension size (minus one for REFLECT).
final class MirrorPadKernel: OpKernel {
    private let edgeOffset: Int
    private var paddings = Paddings.empty
    private let folded = FoldedOutputs()

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        let mode = try MirrorPadParameters(node).mode
        guard mode == 0 || mode == 1 else { throw node.error("unknown mirror pad mode \(mode)") }
        edgeOffset = mode == 0 ? 1 : 0
    }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let x = try node.input(0), paddingsTensor = try node.input(1)
        try MoveSupport.expectMovable(x, node, role: "input")
        try node.expect(paddingsTensor, type: .int32, .int64, role: "paddings")
        guard node.knowsValues(of: paddingsTensor) else {
            node.markOutputsDynamic()
            return
        }
        let p = try Paddings(paddingsTensor, rank: x.rank, node)
        for d in 0..<x.rank where p.before[d] > x.shape[d] - edgeOffset || p.after[d] > x.shape[d] - edgeOffset {
            throw node.error(
                "paddings \(p.before[d]), \(p.after[d]) are too large for dimension \(d) of size \(x.shape[d]) in \(edgeOffset == 1 ? "REFLECT" : "SYMMETRIC") mode")
        }
        paddings = p
        try node.setOutput(0, type: x.type, shape: p.outputShape(x.shape))
        if MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        MirrorPadKernel.pad(
            try MoveSupport.source(x, node, role: "input"), shape: x.shape, paddings, edgeOffset: edgeOffset,
            elementSize: x.type.byteSize, into: try MoveSupport.destination(y, node, role: "output"),
            threads: node.threadCount)
    }

    /// The input index that output index `o` of a dimension copies (LiteRT's `GetInputDimension`).
    static func sourceIndex(_ o: Int, before: Int, size: Int, edgeOffset: Int) -> Int {
        if o < before { return before - 1 + edgeOffset - o }
        let i = o - before
        if i < size { return i }
        return size - 1 - edgeOffset - (i - size)
    }

    /// Writes the mirrored output row by row: the middle of each row is one copy.
    static func pad(
        _ input: UnsafeRawPointer, shape fullShape: [Int], _ fullPaddings: Paddings, edgeOffset: Int,
        elementSize elementBytes: Int, into output: UnsafeMutableRawPointer, threads: Int
    ) {
        let (shape, paddings, group) = fullPaddings.foldingUnpadded(fullShape)
        let es = elementBytes * group
        let outShape = paddings.outputShape(shape)
        guard let outCount = MoveSupport.elementCount(outShape), outCount > 0 else { return }
        guard let last = shape.indices.last else {
            output.copyMemory(from: input, byteCount: es)
            return
        }
        let maps = shape.indices.map { d in
            (0..<outShape[d]).map {
                sourceIndex($0, before: paddings.before[d], size: shape[d], edgeOffset: edgeOffset)
            }
        }
        let rowLength = outShape[last], inputStrides = stridesOf(shape)
        let left = paddings.before[last], width = shape[last]
        forEachPaddedRow(outputShape: outShape, threads: threads, rowBytes: rowLength * es) { row, c in
            let out = output + row * rowLength * es
            var source = 0
            for d in 0..<last { source += maps[d][c[d]] * inputStrides[d] }
            let from = input + source * es
            (out + left * es).copyMemory(from: from, byteCount: width * es)
            for o in 0..<left { (out + o * es).copyMemory(from: from + maps[last][o] * es, byteCount: es) }
            for o in (left + width)..<rowLength {
                (out + o * es).copyMemory(from: from + maps[last][o] * es, byteCount: es)
            }
        }
    }
}

/// SLICE: the box of `size` elements (-1: to the end) starting at `begin`, both int32/int64 vectors.
final class SliceKernel: OpKernel {
    private var begins: [Int] = []
    private let folded = FoldedOutputs()

    init(_ node: Node) throws { try node.expect(inputs: 3, outputs: 1) }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let x = try node.input(0), begin = try node.input(1), size = try node.input(2)
        if x.type != .string { try MoveSupport.expectMovable(x, node, role: "input") }
        for (t, role) in [(begin, "begin"), (size, "size")] {
            guard t.rank == 1, t.elementCount == x.rank else {
                throw node.error("\(role) must be a vector of \(x.rank) values, has shape \(t.shape)")
            }
        }
        guard node.knowsValues(of: begin), node.knowsValues(of: size) else {
            node.markOutputsDynamic()
            return
        }
        let b = try MoveSupport.integers(begin, node, role: "begin")
        let s = try MoveSupport.integers(size, node, role: "size")
        var shape = [Int]()
        for d in 0..<x.rank {
            let dim = x.shape[d]
            guard b[d] >= 0, b[d] <= dim else { throw node.error("begin \(b) is out of range for \(x.shape)") }
            let extent = s[d] == -1 ? dim - b[d] : s[d]
            guard extent >= 0, extent <= dim - b[d] else {
                throw node.error("begin \(b) and size \(s) are out of range for \(x.shape)")
            }
            shape.append(extent)
        }
        begins = b
        try node.setOutput(0, type: x.type, shape: shape)
        if x.type != .string, MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        let strides = stridesOf(x.shape)
        let offset = zip(begins, strides).reduce(0) { $0 + $1.0 * $1.1 }
        func move(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ es: Int, _ threads: Int) {
            let copy = StridedCopy(
                extents: y.shape, sourceStrides: strides, destinationStrides: stridesOf(y.shape), elementSize: es)
            guard copy.count > 0 else { return }
            copy.run(from: source + offset * es, to: destination, threads: threads)
        }
        if x.type == .string {
            return try StringMove.run(node, input: x, output: y) { move($0, $1, $2, 1) }
        }
        move(
            try MoveSupport.source(x, node, role: "input"), try MoveSupport.destination(y, node, role: "output"),
            x.type.byteSize, node.threadCount)
    }
}

/// STRIDED_SLICE with LiteRT's semantics: `StridedSliceOptions` begin_mask (field 0), end_mask (1),
/// ellipsis_mask (2), new_axis_mask (3), shrink_axis_mask (4) and offset (5), negative strides, and
/// clamping of out-of-range indices.
final class StridedSliceKernel: OpKernel {
    private let masks: StridedSliceResolution.Masks
    private let folded = FoldedOutputs()
    /// The copy of the last run, kept while the indices are constants and the input and output
    /// layouts are unchanged (resolving the slice allocates arrays: most of a small model's invoke).
    /// (A class, so that using it copies no arrays.)
    private var cached: CachedSlice?

    /// The cached copy, unretained (the cache holds it), and its addresses; nil when the cache
    /// does not apply. Its bindings end here, so the caller holds no reference across the copy.
    @inline(never)
    private func cachedCopy(_ node: Node) -> (Unmanaged<StridedCopy>, UnsafeRawPointer, UnsafeMutableRawPointer)? {
        guard let c = cached, let x = node.inputs[0], let y = node.outputs.first, let (source, destination) = c.addresses(x, y)
        else { return nil }
        return (Unmanaged.passUnretained(c.copy), source, destination)
    }

    private final class CachedSlice {
        let input: Int, output: Int, offset: Int
        let copy: StridedCopy
        /// The bytes the input and the output must hold (their shapes' sizes when cached).
        let inputBytes: Int, outputBytes: Int
        init(input: RuntimeTensor, output: RuntimeTensor, offset: Int, copy: StridedCopy) {
            (self.input, self.output, self.offset, self.copy) = (input.layoutVersion, output.layoutVersion, offset, copy)
            (inputBytes, outputBytes) = (input.requiredBytes, output.requiredBytes)
        }

        /// The copy's source and destination when the layouts are those cached and both tensors
        /// hold their bytes; nil when not (the general path then resolves again or reports the
        /// error). An empty copy needs no addresses and gets placeholders.
        @inline(__always)
        func addresses(_ x: RuntimeTensor, _ y: RuntimeTensor) -> (UnsafeRawPointer, UnsafeMutableRawPointer)? {
            guard x.layoutVersion == input, y.layoutVersion == output, x.byteCount >= inputBytes,
                y.byteCount >= outputBytes
            else { return nil }
            guard copy.count > 0 else { return (UnsafeRawPointer(bitPattern: 64)!, UnsafeMutableRawPointer(bitPattern: 64)!) }
            guard let source = x.data, let destination = y.data else { return nil }
            return (UnsafeRawPointer(source + offset), destination)
        }
    }

    init(_ node: Node) throws {
        try node.expect(inputs: 4, outputs: 1)
        let p = try StridedSliceParameters(node)
        masks = .init(
            begin: p.beginMask, end: p.endMask, ellipsis: p.ellipsisMask, newAxis: p.newAxisMask,
            shrinkAxis: p.shrinkAxisMask, offset: p.offset)
    }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let x = try node.input(0), begin = try node.input(1), end = try node.input(2), strides = try node.input(3)
        if x.type != .string { try MoveSupport.expectMovable(x, node, role: "input") }
        for (t, role) in [(begin, "begin"), (end, "end"), (strides, "strides")] {
            guard t.rank == 1, t.elementCount == begin.elementCount else {
                throw node.error("\(role) must be a vector as long as begin (\(begin.elementCount)), has shape \(t.shape)")
            }
        }
        guard begin.elementCount <= 31 else { throw node.error("supports at most 31 indices, has \(begin.elementCount)") }
        let shapeKnown = node.knowsValues(of: strides) && node.knowsValues(of: end)
            && (masks.offset || node.knowsValues(of: begin))
        guard shapeKnown else {
            node.markOutputsDynamic()
            return
        }
        let beginValues = node.knowsValues(of: begin) ? try MoveSupport.integers(begin, node, role: "begin") : nil
        let resolution = try StridedSliceResolution(
            inputShape: x.shape, begin: beginValues, end: MoveSupport.integers(end, node, role: "end"),
            strides: MoveSupport.integers(strides, node, role: "strides"), masks: masks, node)
        try node.setOutput(0, type: x.type, shape: resolution.outputShape)
        if x.type != .string, MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        // Kept only for constant indices (a tensor stays constant once bound), never for strings.
        // The addresses are taken first and the copy then runs unretained: holding the tensors
        // and the cache across the call cost three retain/release pairs per slice.
        if let (copy, source, destination) = cachedCopy(node) {
            let threads = node.threadCount
            copy._withUnsafeGuaranteedRef { $0.run(from: source, to: destination, threads: threads) }
            return
        }
        let x = try node.input(0), y = try node.output(0)
        cached = nil
        let constantIndices = try (1...3).allSatisfy { try node.input($0).isConstant }
        let resolution = try StridedSliceResolution(
            inputShape: x.shape, begin: MoveSupport.integers(node.input(1), node, role: "begin"),
            end: MoveSupport.integers(node.input(2), node, role: "end"),
            strides: MoveSupport.integers(node.input(3), node, role: "strides"), masks: masks, node)
        if x.type == .string {
            return try StringMove.run(node, input: x, output: y) { source, destination, size in
                let copy = try resolution.copy(elementSize: size, outputShape: y.shape, node)
                guard copy.count > 0 else { return }
                copy.run(from: source + resolution.sourceOffset * size, to: destination, threads: 1)
            }
        }
        let copy = try resolution.copy(elementSize: x.type.byteSize, outputShape: y.shape, node)
        if constantIndices {
            cached = CachedSlice(input: x, output: y, offset: resolution.sourceOffset * x.type.byteSize, copy: copy)
        }
        guard copy.count > 0 else { return }
        let source = try MoveSupport.source(x, node, role: "input") + resolution.sourceOffset * x.type.byteSize
        copy.run(from: source, to: try MoveSupport.destination(y, node, role: "output"), threads: node.threadCount)
    }
}

/// A strided slice resolved against an input shape, following LiteRT's `strided_slice.cc`: the
/// ellipsis and new-axis masks are expanded into an "effective" input shape, then each effective
/// axis gets a clamped start and an end (`StartForAxis` / `EndForAxis`).
struct StridedSliceResolution {
    struct Masks {
        var begin: UInt32, end: UInt32, ellipsis: UInt32, newAxis: UInt32, shrinkAxis: UInt32
        var offset: Bool
    }

    /// Per effective axis: first index, element count, and stride.
    private(set) var starts: [Int] = []
    private(set) var counts: [Int] = []
    private(set) var steps: [Int] = []
    private(set) var shrunk: [Bool] = []
    private(set) var effectiveShape: [Int] = []
    /// The output shape (effective axes minus shrunk ones).
    private(set) var outputShape: [Int] = []

    /// `begin` is nil while preparing an offset slice whose begin values are not known yet.
    init(inputShape: [Int], begin: [Int]?, end: [Int], strides: [Int], masks: Masks, _ node: Node) throws {
        let rank = inputShape.count, given = end.count
        func bit(_ mask: UInt32, _ i: Int) -> Bool { i >= 0 && i < 32 && mask & (UInt32(1) << UInt32(i)) != 0 }

        var addedAxes = 0
        for i in 0..<given where !bit(masks.ellipsis, i) && bit(masks.newAxis, i) { addedAxes += 1 }
        let dims = rank + addedAxes
        guard dims <= 32 else { throw node.error("slices \(dims) dimensions; at most 32 are supported") }

        // Where the ellipsis sits in effective axes, and how many extra axes it stands for.
        var ellipsisAxes = [Bool](repeating: false, count: dims)
        var newAxes = [Bool](repeating: false, count: dims)
        var ellipsisStart = dims, ellipsisExtra = 0
        var i = 0
        while i < dims {
            if bit(masks.ellipsis, i) {
                ellipsisStart = i
                let ellipsisEnd = max(i + 1, min(i + 1 + addedAxes + rank - given, dims))
                ellipsisExtra = ellipsisEnd - ellipsisStart - 1
                while i < ellipsisEnd { ellipsisAxes[i] = true; i += 1 }
                continue
            }
            if bit(masks.newAxis, i - ellipsisExtra) { newAxes[i] = true }
            i += 1
        }

        var start = [Int](repeating: 0, count: dims), stop = [Int](repeating: 0, count: dims)
        var step = [Int](repeating: 1, count: dims)
        var beginMask = [Bool](repeating: false, count: dims), endMask = beginMask, shrink = beginMask
        effectiveShape = [Int](repeating: 1, count: dims)
        var ellipsisSkipped = 0, axesAdded = 0
        func inputDim(_ axis: Int) throws -> Int {
            guard axis - axesAdded >= 0, axis - axesAdded < rank else {
                throw node.error("begin/end/strides and masks do not fit input shape \(inputShape)")
            }
            return inputShape[axis - axesAdded]
        }
        for axis in 0..<dims {
            if ellipsisAxes[axis] {
                ellipsisSkipped = max(0, axis - ellipsisStart)
                beginMask[axis] = true
                endMask[axis] = true
                effectiveShape[axis] = try inputDim(axis)
            } else if newAxes[axis] {
                stop[axis] = 1
                axesAdded += 1
            } else if axis >= given + ellipsisExtra {
                beginMask[axis] = true
                endMask[axis] = true
                effectiveShape[axis] = try inputDim(axis)
            } else {
                let original = axis - ellipsisSkipped
                guard original >= 0, original < given else {
                    throw node.error("begin/end/strides and masks do not fit input shape \(inputShape)")
                }
                if let begin { start[axis] = begin[original] }
                if begin != nil || !masks.offset { stop[axis] = end[original] }
                step[axis] = strides[original]
                beginMask[axis] = bit(masks.begin, original)
                endMask[axis] = bit(masks.end, original)
                shrink[axis] = bit(masks.shrinkAxis, original)
                effectiveShape[axis] = try inputDim(axis)
            }
        }

        for axis in 0..<dims {
            let s = step[axis]
            guard s != 0 else { throw node.error("stride values must be non-zero") }
            guard s != Int(Int32.min) else { throw node.error("stride value INT32_MIN is not supported") }
            let size = effectiveShape[axis]
            // StartForAxis: wrap negatives once, clamp, then let begin_mask override.
            var first = start[axis]
            if first < 0 { first += size }
            first = s > 0 ? min(max(first, 0), size) : min(max(first, -1), size - 1)
            if beginMask[axis] { first = s > 0 ? 0 : size - 1 }
            // EndForAxis: a shrunk axis takes one element; otherwise the same wrap/clamp/mask steps.
            var last: Int
            if shrink[axis] {
                last = first >= size ? first : first + 1
            } else {
                last = stop[axis]
                if masks.offset {
                    let (sum, overflow) = last.addingReportingOverflow(first)
                    last = overflow ? (last > 0 ? Int.max : Int.min) : sum
                }
                if last < 0 { last += size }
                last = s > 0 ? min(max(last, 0), size) : min(max(last, -1), size - 1)
                if endMask[axis] { last = s > 0 ? size : -1 }
            }
            // Elements the copy visits: indices from `first` stepping by `s` while short of `last`.
            let count = StridedSliceResolution.steps(span: last - first, stride: s)
            if shrink[axis] {
                // LiteRT would leave the output unwritten here; TensorFlow rejects such an index.
                if begin != nil && count != 1 {
                    throw node.error("shrunk axis \(axis) index \(start[axis]) is out of range for size \(size)")
                }
            } else if masks.offset {
                // LiteRT sizes an offset slice from the raw end value at the effective axis.
                guard axis < end.count else { throw node.error("offset slice has no size for axis \(axis)") }
                outputShape.append(StridedSliceResolution.steps(span: end[axis], stride: s))
            } else {
                outputShape.append(count)
            }
            starts.append(first)
            counts.append(count)
            steps.append(s)
            shrunk.append(shrink[axis])
        }
    }

    /// How many indices `start + k * stride` lie on `start`'s side of `start + span` (0 when the span
    /// points against the stride): LiteRT's output-dimension formula.
    static func steps(span: Int, stride: Int) -> Int {
        if span == 0 || (span < 0) != (stride < 0) { return 0 }
        return stride < 0 ? (span + 1) / stride + 1 : (span - 1) / stride + 1
    }

    /// Element offset of the first copied element in the input.
    var sourceOffset: Int {
        let strides = stridesOf(effectiveShape)
        var offset = 0
        for axis in starts.indices where counts[axis] > 0 { offset += starts[axis] * strides[axis] }
        return offset
    }

    /// The copy that gathers the slice, after checking it fills `outputShape` exactly.
    func copy(elementSize: Int, outputShape expected: [Int], _ node: Node) throws -> StridedCopy {
        let produced = counts.indices.filter { !shrunk[$0] }.map { counts[$0] }
        guard produced == expected, outputShape == expected else {
            throw node.error("slice of \(produced) elements does not fill output shape \(expected)")
        }
        let strides = stridesOf(effectiveShape)
        let extents = counts
        // Axes visited once contribute no step, so huge strides there cannot overflow.
        let source = counts.indices.map { counts[$0] > 1 ? steps[$0] * strides[$0] : 0 }
        return StridedCopy(
            extents: extents, sourceStrides: source, destinationStrides: stridesOf(extents), elementSize: elementSize)
    }
}

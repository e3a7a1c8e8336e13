/// The layout shared by concatenation and splitting along one axis: the tensor is `outer` blocks,
/// and each block holds, part after part, `extents[i] * inner` contiguous elements of part `i`.
struct AxisPartition {
    let outer: Int
    let inner: Int
    let extents: [Int]
    let elementSize: Int

    /// The partition of `shape` along `axis` into parts of `extents` (which sum to `shape[axis]`).
    init(shape: [Int], axis: Int, extents: [Int], elementSize: Int) {
        outer = MoveSupport.product(shape, 0..<axis)
        inner = MoveSupport.product(shape, (axis + 1)..<shape.count)
        self.extents = extents
        self.elementSize = elementSize
    }

    init(outer: Int, inner: Int, extents: [Int], elementSize: Int) {
        self.outer = outer
        self.inner = inner
        self.extents = extents
        self.elementSize = elementSize
    }

    private var blockBytes: Int { extents.reduce(0, +) * inner * elementSize }

    /// Concatenates: copies each part's runs into `whole`.
    func join(_ parts: [UnsafeRawPointer], into whole: UnsafeMutableRawPointer, threads: Int) {
        let block = blockBytes
        guard block > 0 else { return }
        parallelFor(outer, threads: threads, minimumPerThread: max(1, (1 << 16) / block)) { range in
            for o in range {
                var at = whole + o * block
                for (p, extent) in zip(parts, extents) {
                    let run = extent * inner * elementSize
                    at.copyMemory(from: p + o * run, byteCount: run)
                    at += run
                }
            }
        }
    }

    /// Concatenates 8-bit parts, passing part `i`'s bytes through `tables[i]` (256 entries) when it
    /// has one. Each part's run is cut into pieces of at most `chunkBytes`, so that a few large
    /// parts (one outer block) still split across threads; every byte is computed the same way
    /// whatever the split.
    func join(
        _ parts: [UnsafeRawPointer], into whole: UnsafeMutableRawPointer, tables: [UnsafePointer<UInt8>?],
        threads: Int, chunkBytes: Int = 16384
    ) {
        let block = blockBytes
        guard block > 0, elementSize == 1 else { return }
        let runs = extents.map { $0 * inner }
        let pieces = runs.map { max(1, ($0 + chunkBytes - 1) / chunkBytes) }
        let perBlock = pieces.reduce(0, +)
        var starts = [Int]()
        var at = 0
        for run in runs {
            starts.append(at)
            at += run
        }
        parallelFor(outer * perBlock, threads: threads, minimumPerThread: max(1, (1 << 16) / min(chunkBytes, block))) {
            range in
            for u in range {
                let o = u / perBlock
                var k = u % perBlock
                var part = 0
                while k >= pieces[part] {
                    k -= pieces[part]
                    part += 1
                }
                let run = runs[part]
                let lo = run * k / pieces[part]
                let hi = run * (k + 1) / pieces[part]
                guard lo < hi else { continue }
                let source = (parts[part] + o * run + lo).assumingMemoryBound(to: UInt8.self)
                let target = (whole + o * block + starts[part] + lo).assumingMemoryBound(to: UInt8.self)
                if let table = tables[part] {
                    for j in 0..<(hi - lo) { target[j] = table[Int(source[j])] }
                } else {
                    UnsafeMutableRawPointer(target).copyMemory(from: source, byteCount: hi - lo)
                }
            }
        }
    }

    /// Splits: copies `whole`'s runs out to each part.
    func split(_ whole: UnsafeRawPointer, into parts: [UnsafeMutableRawPointer], threads: Int) {
        let block = blockBytes
        guard block > 0 else { return }
        parallelFor(outer, threads: threads, minimumPerThread: max(1, (1 << 16) / block)) { range in
            for o in range {
                var at = whole + o * block
                for (p, extent) in zip(parts, extents) {
                    let run = extent * inner * elementSize
                    (p + o * run).copyMemory(from: at, byteCount: run)
                    at += run
                }
            }
        }
    }
}

/// CONCATENATION along `ConcatenationOptions.axis` (field 0), with the fused activation of field 1
/// applied to float32 results.
///
/// uint8 inputs whose scale or zero point differ from the output's are requantized as LiteRT does
/// (`round(q * s_in / s_out - zp_in * s_in / s_out) + zp_out`, in float); int8 inputs must already
/// share the output's quantization, as LiteRT requires. The requantization depends on the byte
/// alone, so each such input gets a 256-entry table of that formula when the node is prepared, and
/// its bytes pass through the table as they are copied.
final class ConcatenationKernel: OpKernel {
    private let axisOption: Int
    private let activation: FusedActivation
    private var axis = 0
    private let folded = FoldedOutputs()
    /// uint8: 256 bytes per input, the requantization table of those quantized unlike the output
    /// (`hasTable`), else unused.
    private var tableBytes: [UInt8] = []
    private var hasTable: [Bool] = []
    /// The output's partition by input, set by `prepare` (the shapes it depends on are known then).
    private var partition = AxisPartition(outer: 0, inner: 0, extents: [], elementSize: 1)
    /// The inputs' addresses, refilled on each run without allocating.
    private var parts: [UnsafeRawPointer] = []
    /// The layout of a small output (one thread) without tables or activation.
    private var small: SmallAxisPlan?

    deinit { small?.deallocate() }

    init(_ node: Node) throws {
        try node.expect(inputs: 1, Int.max, outputs: 1)
        let parameters = try ConcatenationParameters(node)
        axisOption = parameters.axis
        activation = parameters.activation
    }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let first = try node.input(0)
        try MoveSupport.expectMovable(first, node, role: "input 0")
        let inputs = try (0..<node.inputCount).map { try node.input($0) }
        let outputShape: [Int]
        if first.rank == 0 {
            guard axisOption == 0 else { throw node.error("axis \(axisOption) is out of range for scalars") }
            for (i, t) in inputs.enumerated() where t.rank != 0 || t.type != first.type {
                throw node.error("input \(i) (\(t.type.name) \(t.shape)) does not match input 0 (\(first.type.name) scalar)")
            }
            axis = 0
            outputShape = [inputs.count]
        } else {
            axis = try MoveSupport.axis(axisOption, rank: first.rank, node, role: "axis")
            var total = 0
            for (i, t) in inputs.enumerated() {
                guard t.type == first.type, t.rank == first.rank else {
                    throw node.error("input \(i) (\(t.type.name) \(t.shape)) does not match input 0 (\(first.type.name) \(first.shape))")
                }
                for d in 0..<first.rank where d != axis && t.shape[d] != first.shape[d] {
                    throw node.error("input \(i) shape \(t.shape) does not match input 0 shape \(first.shape) off axis \(axis)")
                }
                total += t.shape[axis]
            }
            var shape = first.shape
            shape[axis] = total
            outputShape = shape
        }
        if activation != .none && first.type != .float32 {
            throw node.error("fused activation is only supported for FLOAT32, input is \(first.type.name)")
        }
        let y = try node.output(0)
        if first.type == .int8 {
            for (i, t) in inputs.enumerated() where t.scale != y.scale || t.zeroPoint != y.zeroPoint {
                throw node.error("int8 input \(i) is quantized differently from the output; rescaling is not supported")
            }
        }
        let tables = first.type == .uint8 ? inputs.map { Self.requantizationTable($0, to: y) } : []
        hasTable = tables.map { $0 != nil }
        tableBytes = tables.flatMap { $0 ?? [UInt8](repeating: 0, count: 256) }
        try node.setOutput(0, type: first.type, shape: outputShape)
        partition = AxisPartition(
            shape: outputShape, axis: axis, extents: inputs.map { $0.rank == 0 ? 1 : $0.shape[axis] },
            elementSize: first.type.byteSize)
        parts.reserveCapacity(inputs.count)
        small?.deallocate()
        small = nil
        if activation == .none, !hasTable.contains(true), first.type != .string {
            small = SmallAxisPlan(outer: MoveSupport.product(outputShape, 0..<axis), partBytes: inputs.map(\.requiredBytes))
        }
        if MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        if let small, small.join(node) { return }
        let y = try node.output(0)
        parts.removeAll(keepingCapacity: true)
        for i in 0..<node.inputCount { parts.append(try MoveSupport.source(node.input(i), node, role: "input \(i)")) }
        let out = try MoveSupport.destination(y, node, role: "output")
        if y.type == .uint8, hasTable.count == parts.count, tableBytes.count == 256 * parts.count {
            tableBytes.withUnsafeBufferPointer { bytes in
                let tables = hasTable.indices.map { i in hasTable[i] ? bytes.baseAddress.map { $0 + 256 * i } : nil }
                partition.join(parts, into: out, tables: tables, threads: node.threadCount)
            }
        } else {
            partition.join(parts, into: out, threads: node.threadCount)
        }
        if activation != .none { activation.apply(to: y.floats) }
    }

    /// The output byte of each input byte, for a uint8 input quantized unlike the output `y` (nil
    /// when they match): LiteRT's `round(q · (s_in · (1 / s_out)) + (−zp_in · that)) + zp_out` in
    /// float, rounding half away from zero, clamped to the byte.
    static func requantizationTable(_ t: RuntimeTensor, to y: RuntimeTensor) -> [UInt8]? {
        if t.scale == y.scale && t.zeroPoint == y.zeroPoint { return nil }
        let scale = t.scale * (1 / y.scale)
        let bias = -Float(t.zeroPoint) * scale
        return (0..<256).map { byte in
            let v = (Float(byte) * scale + bias).rounded(.toNearestOrAwayFromZero)
            let q = (v.isFinite ? Int(max(min(v, 1e9), -1e9)) : 0) + y.zeroPoint
            return UInt8(min(max(q, 0), 255))
        }
    }
}

/// PACK (`values_count` field 0, `axis` field 1): stacks equally shaped inputs along a new axis.
final class PackKernel: OpKernel {
    private let count: Int
    private let axisOption: Int
    private var partition = AxisPartition(outer: 0, inner: 0, extents: [], elementSize: 1)
    private let folded = FoldedOutputs()

    init(_ node: Node) throws {
        let parameters = try PackParameters(node)
        count = parameters.count
        axisOption = parameters.axis
        guard count >= 1 else { throw node.error("values_count \(count) must be at least 1") }
        try node.expect(inputs: count, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let first = try node.input(0)
        try MoveSupport.expectMovable(first, node, role: "input 0")
        for i in 1..<count {
            let t = try node.input(i)
            guard t.type == first.type, t.shape == first.shape else {
                throw node.error("input \(i) (\(t.type.name) \(t.shape)) does not match input 0 (\(first.type.name) \(first.shape))")
            }
        }
        let axis = try MoveSupport.axis(axisOption, rank: first.rank + 1, node, role: "axis")
        var shape = first.shape
        shape.insert(count, at: axis)
        try node.setOutput(0, type: first.type, shape: shape)
        partition = AxisPartition(
            outer: MoveSupport.product(first.shape, 0..<axis),
            inner: MoveSupport.product(first.shape, axis..<first.rank),
            extents: [Int](repeating: 1, count: count), elementSize: first.type.byteSize)
        if MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        let parts = try (0..<count).map { try MoveSupport.source(node.input($0), node, role: "input \($0)") }
        let out = try MoveSupport.destination(node.output(0), node, role: "output")
        partition.join(parts, into: out, threads: node.threadCount)
    }
}

/// UNPACK (`num` field 0, `axis` field 1), SPLIT (inputs: axis, value; `num_splits` field 0) and
/// SPLIT_V (inputs: value, size_splits, axis; `num_splits` field 0): cut the input along one axis.
final class SplitKernel: OpKernel {
    enum Variant { case unpack, split, splitV }

    private let variant: Variant
    private let parts: Int
    private let axisOption: Int
    private var partition = AxisPartition(outer: 0, inner: 0, extents: [], elementSize: 1)
    private let folded = FoldedOutputs()
    /// The layout of a small input (one thread's work).
    private var small: SmallAxisPlan?

    deinit { small?.deallocate() }

    init(_ node: Node, _ variant: Variant) throws {
        self.variant = variant
        if variant == .unpack {
            let parameters = try PackParameters(node)
            (parts, axisOption) = (parameters.count, parameters.axis)
        } else {
            (parts, axisOption) = (try SplitParameters(node).count, 0)
        }
        try node.expect(inputs: variant == .unpack ? 1 : variant == .split ? 2 : 3, outputs: node.outputs.count)
        guard parts >= 1, node.outputs.count == parts else {
            throw node.error("has \(node.outputs.count) outputs but its options ask for \(parts)")
        }
    }

    private var valueIndex: Int { variant == .split ? 1 : 0 }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let x = try node.input(valueIndex)
        try MoveSupport.expectMovable(x, node, role: "value")
        guard let (axis, sizes) = try layout(node, x) else {
            node.markOutputsDynamic()
            return
        }
        for (i, size) in sizes.enumerated() {
            var shape = x.shape
            if variant == .unpack { shape.remove(at: axis) } else { shape[axis] = size }
            try node.setOutput(i, type: x.type, shape: shape)
        }
        partition = AxisPartition(shape: x.shape, axis: axis, extents: sizes, elementSize: x.type.byteSize)
        small?.deallocate()
        small = nil
        if x.type != .string {
            let outer = MoveSupport.product(x.shape, 0..<axis)
            let inner = MoveSupport.product(x.shape, (axis + 1)..<x.rank) * x.type.byteSize
            small = SmallAxisPlan(outer: outer, partBytes: sizes.map { $0 * inner * outer })
        }
        if MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    /// The split axis and the size of each part along it; nil while operand values are unknown.
    private func layout(_ node: Node, _ x: RuntimeTensor) throws -> (Int, [Int])? {
        switch variant {
        case .unpack:
            let axis = try MoveSupport.axis(axisOption, rank: x.rank, node, role: "axis")
            guard x.shape[axis] == parts else {
                throw node.error("cannot unpack \(parts) values from dimension \(axis) of \(x.shape)")
            }
            return (axis, [Int](repeating: 1, count: parts))
        case .split:
            let axisTensor = try node.input(0)
            guard node.knowsValues(of: axisTensor) else { return nil }
            let axis = try MoveSupport.axis(
                MoveSupport.scalarInteger(axisTensor, node, role: "axis"), rank: x.rank, node, role: "axis")
            guard x.shape[axis] % parts == 0 else {
                throw node.error("dimension \(axis) of \(x.shape) does not split evenly into \(parts)")
            }
            return (axis, [Int](repeating: x.shape[axis] / parts, count: parts))
        case .splitV:
            let sizesTensor = try node.input(1), axisTensor = try node.input(2)
            guard sizesTensor.rank == 1, sizesTensor.elementCount == parts else {
                throw node.error("size_splits must be a vector of \(parts), has shape \(sizesTensor.shape)")
            }
            guard node.knowsValues(of: sizesTensor), node.knowsValues(of: axisTensor) else { return nil }
            let axis = try MoveSupport.axis(
                MoveSupport.scalarInteger(axisTensor, node, role: "axis"), rank: x.rank, node, role: "axis")
            var sizes = try MoveSupport.integers(sizesTensor, node, role: "size_splits")
            let inferred = sizes.indices.filter { sizes[$0] == -1 }
            guard inferred.count <= 1, sizes.allSatisfy({ $0 >= -1 }) else {
                throw node.error("size_splits \(sizes) may hold one -1 and otherwise no negative values")
            }
            var known = 0
            for size in sizes where size >= 0 {
                let (sum, overflow) = known.addingReportingOverflow(size)
                guard !overflow else { throw node.error("size_splits \(sizes) overflow") }
                known = sum
            }
            if let i = inferred.first {
                guard known <= x.shape[axis] else {
                    throw node.error("size_splits \(sizes) add up to more than dimension \(axis) of \(x.shape)")
                }
                sizes[i] = x.shape[axis] - known
            } else if known != x.shape[axis] {
                throw node.error("size_splits \(sizes) do not add up to dimension \(axis) of \(x.shape)")
            }
            return (axis, sizes)
        }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        if let small, small.split(node, valueIndex: valueIndex) { return }
        let source = try MoveSupport.source(node.input(valueIndex), node, role: "value")
        let outs = try node.outputs.enumerated().map { try MoveSupport.destination($1, node, role: "output \($0)") }
        partition.split(source, into: outs, threads: node.threadCount)
    }
}

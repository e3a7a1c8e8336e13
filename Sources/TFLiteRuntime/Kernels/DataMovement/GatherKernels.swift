/// GATHER (`GatherOptions` axis field 0, batch_dims field 1): picks slices of the input along `axis`
/// by the int16/int32/int64 indices of input 1. An index outside `0..<dim(axis)` fails at run time.
final class GatherKernel: OpKernel {
    private let axisOption: Int
    private let batchDimsOption: Int
    private var layout = GatherLayout(batch: 0, outer: 0, axisSize: 0, coordinates: 0, inner: 0)
    private let folded = FoldedOutputs()

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        let parameters = try GatherParameters(node)
        axisOption = parameters.axis
        batchDimsOption = parameters.batchDims
    }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let x = try node.input(0), indices = try node.input(1)
        if x.type != .string { try MoveSupport.expectMovable(x, node, role: "input") }
        try node.expect(indices, type: .int16, .int32, .int64, role: "indices")
        let axis = try MoveSupport.axis(axisOption, rank: x.rank, node, role: "axis")
        let batchDims = batchDimsOption < 0 ? batchDimsOption + indices.rank : batchDimsOption
        guard batchDims >= 0, batchDims <= axis, batchDims < x.rank, batchDims <= indices.rank else {
            throw node.error("batch_dims \(batchDimsOption) is invalid for axis \(axis), input rank \(x.rank) and indices rank \(indices.rank)")
        }
        for d in 0..<batchDims where x.shape[d] != indices.shape[d] {
            throw node.error("batch dimension \(d) differs: input \(x.shape), indices \(indices.shape)")
        }
        let shape = Array(x.shape[..<axis]) + Array(indices.shape[batchDims...]) + Array(x.shape[(axis + 1)...])
        try node.setOutput(0, type: x.type, shape: shape)
        layout = GatherLayout(
            batch: MoveSupport.product(x.shape, 0..<batchDims),
            outer: MoveSupport.product(x.shape, batchDims..<axis), axisSize: x.shape[axis],
            coordinates: MoveSupport.product(indices.shape, batchDims..<indices.rank),
            inner: MoveSupport.product(x.shape, (axis + 1)..<x.rank))
        if x.type != .string, MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        let indices = try MoveSupport.integers(node.input(1), node, role: "indices", allowInt16: true)
        guard indices.count == layout.batch * layout.coordinates else {
            throw node.error("indices hold \(indices.count) values, expected \(layout.batch * layout.coordinates)")
        }
        for v in indices where v < 0 || v >= layout.axisSize {
            throw node.error("index \(v) is out of range for dimension of size \(layout.axisSize)")
        }
        if x.type == .string {
            return try StringMove.run(node, input: x, output: y) { source, destination, size in
                try layout.gather(from: source, indices: indices, into: destination, elementSize: size, threads: 1)
            }
        }
        try layout.gather(
            from: MoveSupport.source(x, node, role: "input"), indices: indices,
            into: MoveSupport.destination(y, node, role: "output"), elementSize: x.type.byteSize,
            threads: node.threadCount)
    }
}

/// The loop structure of GATHER: `batch` × `outer` rows, each picking `coordinates` slices of
/// `inner` elements out of `axisSize`.
struct GatherLayout {
    let batch: Int, outer: Int, axisSize: Int, coordinates: Int, inner: Int

    /// Copies the slices; `indices` must already be checked to lie in `0..<axisSize`.
    func gather(
        from source: UnsafeRawPointer, indices: [Int], into destination: UnsafeMutableRawPointer,
        elementSize: Int, threads: Int
    ) {
        let sliceBytes = inner * elementSize
        let rows = batch * outer
        guard rows > 0, coordinates > 0, sliceBytes > 0 else { return }
        let perRow = coordinates * sliceBytes
        indices.withUnsafeBufferPointer { idx in
            parallelFor(rows, threads: threads, minimumPerThread: max(1, (1 << 16) / perRow)) { range in
                for row in range {
                    let b = row / outer
                    let from = source + row * axisSize * sliceBytes
                    let to = destination + row * perRow
                    let picks = idx.baseAddress! + b * coordinates
                    if inner == 1 {
                        GatherLayout.pickElements(from, picks, coordinates, to, elementSize)
                    } else {
                        for i in 0..<coordinates {
                            (to + i * sliceBytes).copyMemory(from: from + picks[i] * sliceBytes, byteCount: sliceBytes)
                        }
                    }
                }
            }
        }
    }

    /// Single-element slices: typed loads instead of one `memcpy` call per element.
    @inline(__always)
    private static func pickElements(
        _ from: UnsafeRawPointer, _ picks: UnsafePointer<Int>, _ n: Int, _ to: UnsafeMutableRawPointer, _ size: Int
    ) {
        func loop<T>(_: T.Type) {
            for i in 0..<n {
                to.storeBytes(of: from.loadUnaligned(fromByteOffset: picks[i] * size, as: T.self), toByteOffset: i * size, as: T.self)
            }
        }
        switch size {
        case 1: loop(UInt8.self)
        case 2: loop(UInt16.self)
        case 4: loop(UInt32.self)
        case 8: loop(UInt64.self)
        default:
            for i in 0..<n { (to + i * size).copyMemory(from: from + picks[i] * size, byteCount: size) }
        }
    }
}

/// GATHER_ND: each index vector (the last dimension of input 1) picks a slice of the params tensor.
final class GatherNDKernel: OpKernel {
    private let folded = FoldedOutputs()

    init(_ node: Node) throws { try node.expect(inputs: 2, outputs: 1) }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let params = try node.input(0), indices = try node.input(1)
        if params.type != .string { try MoveSupport.expectMovable(params, node, role: "params") }
        try node.expect(indices, type: .int16, .int32, .int64, role: "indices")
        guard params.rank >= 1 else { throw node.error("params must be at least a vector") }
        guard indices.rank >= 1 else { throw node.error("indices must be at least a vector") }
        let depth = indices.shape[indices.rank - 1]
        guard depth <= params.rank else {
            throw node.error("index depth \(depth) exceeds params rank \(params.rank)")
        }
        let shape = Array(indices.shape[..<(indices.rank - 1)]) + Array(params.shape[depth...])
        try node.setOutput(0, type: params.type, shape: shape)
        if params.type != .string, MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        let params = try node.input(0), indicesTensor = try node.input(1), y = try node.output(0)
        let indices = try MoveSupport.integers(indicesTensor, node, role: "indices", allowInt16: true)
        let depth = indicesTensor.shape[indicesTensor.rank - 1]
        let slices = MoveSupport.product(indicesTensor.shape, 0..<(indicesTensor.rank - 1))
        if params.type == .string {
            return try StringMove.run(node, input: params, output: y) { source, destination, size in
                try gather(params, indices, depth: depth, slices: slices, source, destination, size, node)
            }
        }
        try gather(
            params, indices, depth: depth, slices: slices, MoveSupport.source(params, node, role: "params"),
            MoveSupport.destination(y, node, role: "output"), params.type.byteSize, node)
    }

    private func gather(
        _ params: RuntimeTensor, _ indices: [Int], depth: Int, slices: Int, _ source: UnsafeRawPointer,
        _ destination: UnsafeMutableRawPointer, _ es: Int, _ node: Node
    ) throws {
        let sliceBytes = MoveSupport.product(params.shape, depth..<params.rank) * es
        guard slices > 0, sliceBytes > 0 else { return }
        let strides = stridesOf(params.shape)
        for s in 0..<slices {
            var offset = 0
            for j in 0..<depth {
                let v = indices[s * depth + j]
                guard v >= 0, v < params.shape[j] else {
                    throw node.error("index \(v) is out of range for dimension \(j) of params \(params.shape)")
                }
                offset += v * strides[j]
            }
            (destination + s * sliceBytes).copyMemory(from: source + offset * es, byteCount: sliceBytes)
        }
    }
}

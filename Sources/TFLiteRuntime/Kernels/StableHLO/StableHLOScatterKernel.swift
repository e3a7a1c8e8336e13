/// STABLEHLO_SCATTER: operand, int32 or int64 scatter indices, updates (`StablehloScatterOptions`);
/// the update region's single operator picks the combination: none (replace), STABLEHLO_ADD,
/// STABLEHLO_MULTIPLY, STABLEHLO_MAXIMUM or STABLEHLO_MINIMUM, as LiteRT reads it.
///
/// Types: float32, float16, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64 and bool.
/// Updates apply one element at a time in the updates' row-major order (repeated indices combine in
/// that order); an element whose target falls outside the operand is skipped, as LiteRT does, even
/// when the rest of its window fits. Integers wrap; for bool ADD/MAXIMUM are OR, MULTIPLY/MINIMUM AND.
final class StableHLOScatterKernel: OpKernel {
    enum Combine { case update, add, multiply, maximum, minimum }

    let p: StablehloScatterParameters
    let combine: Combine
    // Geometry fixed by prepare.
    private var scatterDims: [Int] = []  // update dimensions that index the scatter indices
    private var indicesDims: [Int] = []  // the matching dimensions of the indices tensor
    private var windowOperandDims: [Int] = []  // operand dimension of each update window dimension
    private var vectorLength = 1

    init(_ node: Node) throws {
        p = try StablehloScatterParameters(node)
        switch try stablehloBodyOperator(node, subgraph: p.updateComputationSubgraphIndex, role: "update") {
        case nil: combine = .update
        case .some(.stablehloAdd): combine = .add
        case .some(.stablehloMultiply): combine = .multiply
        case .some(.stablehloMaximum): combine = .maximum
        case .some(.stablehloMinimum): combine = .minimum
        case .some(let other): throw node.error("update region \(other.name) is not supported")
        }
    }

    private static let types: [TensorType] = [
        .float32, .float16, .float64, .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64, .bool,
    ]

    func prepare(_ node: Node) throws {
        try node.expect(inputs: 3, outputs: 1)
        let operand = try node.input(0)
        let indices = try node.input(1)
        let updates = try node.input(2)
        guard Self.types.contains(operand.type) else { throw node.error("type \(operand.type.name) is not supported") }
        try node.expect(indices, type: .int32, .int64, role: "scatter indices")
        guard updates.type == operand.type else {
            throw node.error("updates are \(updates.type.name), the operand \(operand.type.name)")
        }
        let rank = operand.rank
        let ivd = p.indexVectorDim
        guard ivd >= 0, ivd <= indices.rank else { throw node.error("index_vector_dim \(ivd) is out of range") }
        vectorLength = ivd < indices.rank ? indices.shape[ivd] : 1
        guard p.scatterDimsToOperandDims.count == vectorLength,
            p.scatterDimsToOperandDims.allSatisfy({ $0 >= 0 && $0 < rank })
        else { throw node.error("scatter_dims_to_operand_dims \(p.scatterDimsToOperandDims) are invalid") }
        let windowDims = p.updateWindowDims
        guard windowDims.allSatisfy({ $0 >= 0 && $0 < updates.rank }), Set(windowDims).count == windowDims.count else {
            throw node.error("update_window_dims \(windowDims) are invalid")
        }
        let inserted = Set(p.insertedWindowDims)
        guard inserted.count == p.insertedWindowDims.count, p.insertedWindowDims.allSatisfy({ $0 >= 0 && $0 < rank }),
            windowDims.count + inserted.count == rank
        else { throw node.error("inserted_window_dims \(p.insertedWindowDims) do not fit rank \(rank)") }
        windowOperandDims = (0..<rank).filter { !inserted.contains($0) }
        scatterDims = (0..<updates.rank).filter { !windowDims.contains($0) }
        indicesDims = (0..<indices.rank).filter { $0 != ivd }
        guard scatterDims.count == indicesDims.count else {
            throw node.error("updates have \(scatterDims.count) scatter dimensions, the indices \(indicesDims.count)")
        }
        for (u, i) in zip(scatterDims, indicesDims) where updates.shape[u] > indices.shape[i] {
            throw node.error("updates dimension \(u) is larger than indices dimension \(i)")
        }
        try node.setOutput(0, type: operand.type, shape: operand.shape)
    }

    private static func strides(_ shape: [Int]) -> [Int] {
        var s = [Int](repeating: 1, count: shape.count)
        for d in stride(from: shape.count - 2, through: 0, by: -1) { s[d] = s[d + 1] * shape[d + 1] }
        return s
    }

    /// The operand offset of every update element, or -1 where it falls outside (in update order).
    private func targets(_ node: Node, operand: [Int], indices: RuntimeTensor, updates: [Int]) throws -> [Int] {
        let starts: [Int]
        switch indices.type {
        case .int32: starts = try node.elementwiseBuffer(indices, Int32.self, role: "scatter indices").map(Int.init)
        case .int64:
            starts = try node.elementwiseBuffer(indices, Int64.self, role: "scatter indices").map {
                Int(truncatingIfNeeded: $0)
            }
        default: throw node.error("scatter indices must be int32 or int64")
        }
        let operandStrides = Self.strides(operand)
        let indicesStrides = Self.strides(indices.shape)
        let vectorStride = p.indexVectorDim < indices.rank ? indicesStrides[p.indexVectorDim] : 0
        let count = updates.reduce(1, *)
        var result = [Int](repeating: -1, count: count)
        var index = [Int](repeating: 0, count: updates.count)
        var full = [Int](repeating: 0, count: operand.count)
        for n in 0..<count {
            var indexBase = 0
            for (u, i) in zip(scatterDims, indicesDims) { indexBase += index[u] * indicesStrides[i] }
            for d in 0..<operand.count { full[d] = 0 }
            for k in 0..<vectorLength { full[p.scatterDimsToOperandDims[k]] = starts[indexBase + k * vectorStride] }
            for (w, u) in p.updateWindowDims.enumerated() { full[windowOperandDims[w]] &+= index[u] }
            var offset = 0
            var inside = true
            for d in 0..<operand.count {
                if full[d] < 0 || full[d] >= operand[d] { inside = false; break }
                offset += full[d] * operandStrides[d]
            }
            if inside { result[n] = offset }
            var d = updates.count - 1
            while d >= 0 {
                index[d] += 1
                if index[d] < updates[d] { break }
                index[d] = 0
                d -= 1
            }
        }
        return result
    }

    func eval(_ node: Node) throws {
        let operand = try node.input(0)
        let updates = try node.input(2)
        let output = try node.output(0)
        let size = operand.type.byteSize
        guard let destination = try stablehloBytes(node, output, role: "output") else { return }
        guard let source = try stablehloBytes(node, operand, role: "operand") else {
            throw node.error("operand has no data")
        }
        if destination != source { destination.copyMemory(from: source, byteCount: operand.requiredBytes) }
        let offsets = try targets(node, operand: operand.shape, indices: try node.input(1), updates: updates.shape)
        guard !offsets.isEmpty else { return }
        guard let values = try stablehloBytes(node, updates, role: "updates") else { throw node.error("no updates") }
        if combine == .update {
            for (n, o) in offsets.enumerated() where o >= 0 {
                (destination + o * size).copyMemory(from: values + n * size, byteCount: size)
            }
            return
        }
        switch operand.type {
        case .float32: apply(destination, values, offsets, Float.self, floatCombine(Float.self))
        case .float64: apply(destination, values, offsets, Double.self, floatCombine(Double.self))
        case .float16:
            let f = floatCombine(Float.self)
            apply(destination, values, offsets, UInt16.self) {
                HalfPrecision.half(from: f(HalfPrecision.float(fromHalf: $0), HalfPrecision.float(fromHalf: $1)))
            }
        case .int8: apply(destination, values, offsets, Int8.self, integerCombine(Int8.self))
        case .int16: apply(destination, values, offsets, Int16.self, integerCombine(Int16.self))
        case .int32: apply(destination, values, offsets, Int32.self, integerCombine(Int32.self))
        case .int64: apply(destination, values, offsets, Int64.self, integerCombine(Int64.self))
        case .uint8: apply(destination, values, offsets, UInt8.self, integerCombine(UInt8.self))
        case .uint16: apply(destination, values, offsets, UInt16.self, integerCombine(UInt16.self))
        case .uint32: apply(destination, values, offsets, UInt32.self, integerCombine(UInt32.self))
        case .uint64: apply(destination, values, offsets, UInt64.self, integerCombine(UInt64.self))
        case .bool:
            let any = combine == .add || combine == .maximum
            apply(destination, values, offsets, UInt8.self) {
                any ? ($0 != 0 || $1 != 0 ? 1 : 0) : ($0 != 0 && $1 != 0 ? 1 : 0)
            }
        default: throw node.error("type \(operand.type.name) is not supported")
        }
    }

    private func integerCombine<T: FixedWidthInteger>(_: T.Type) -> (T, T) -> T {
        switch combine {
        case .update: return { $1 }
        case .add: return { $0 &+ $1 }
        case .multiply: return { $0 &* $1 }
        case .maximum: return { $0 < $1 ? $1 : $0 }
        case .minimum: return { $1 < $0 ? $1 : $0 }
        }
    }

    private func floatCombine<T: BinaryFloatingPoint>(_: T.Type) -> (T, T) -> T {
        switch combine {
        case .update: return { $1 }
        case .add: return { $0 + $1 }
        case .multiply: return { $0 * $1 }
        case .maximum: return { $0 < $1 ? $1 : $0 }
        case .minimum: return { $1 < $0 ? $1 : $0 }
        }
    }

    private func apply<T>(
        _ destination: UnsafeMutableRawPointer, _ values: UnsafeMutableRawPointer, _ offsets: [Int], _: T.Type,
        _ f: (T, T) -> T
    ) {
        let out = destination.assumingMemoryBound(to: T.self)
        let upd = values.assumingMemoryBound(to: T.self)
        for (n, o) in offsets.enumerated() where o >= 0 { out[o] = f(out[o], upd[n]) }
    }
}

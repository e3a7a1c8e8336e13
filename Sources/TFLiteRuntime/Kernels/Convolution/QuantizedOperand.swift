/// Access to the integer data of quantized operands for the quantized convolution family.
///
/// Activations (uint8, int8, int16) are widened to Int16 with the zero point removed, so one
/// integer core serves every type: `x − zero_point` fits in Int16 for 8-bit values, and int16
/// activations are symmetric (zero point 0) in LiteRT.
enum QuantizedOperand {
    static func isQuantizedActivation(_ type: TensorType) -> Bool {
        type == .uint8 || type == .int8 || type == .int16
    }

    /// The bytes `tensor`'s elements take (int4: two per byte).
    static func storageBytes(_ tensor: RuntimeTensor) -> Int {
        tensor.type == .int4 ? (tensor.elementCount + 1) / 2 : tensor.elementCount * tensor.type.byteSize
    }

    /// Throws unless `tensor`'s bytes cover its shape.
    static func checkBytes(_ tensor: RuntimeTensor, node: Node, role: String) throws {
        let needed = storageBytes(tensor)
        guard tensor.byteCount >= needed, needed == 0 || tensor.data != nil else {
            throw node.error("\(role) holds \(tensor.byteCount) bytes but shape \(tensor.shape) needs \(needed)")
        }
    }

    /// Whether `tensor` is a constant with all its bytes (so it can be packed in `prepare`).
    static func isReadableConstant(_ tensor: RuntimeTensor) -> Bool {
        tensor.isConstant && tensor.data != nil && tensor.byteCount >= storageBytes(tensor)
    }

    /// Writes `value − zeroPoint` of every element of `tensor` (uint8, int8, int16, or int4 two per
    /// byte, low nibble first, as LiteRT unpacks it) to `out`.
    static func widen(_ tensor: RuntimeTensor, zeroPoint: Int32, into out: UnsafeMutablePointer<Int16>) {
        let n = tensor.elementCount
        guard n > 0, let d = tensor.data else { return }
        switch tensor.type {
        case .uint8:
            let p = d.assumingMemoryBound(to: UInt8.self)
            for i in 0..<n { out[i] = Int16(truncatingIfNeeded: Int32(p[i]) &- zeroPoint) }
        case .int8:
            let p = d.assumingMemoryBound(to: Int8.self)
            for i in 0..<n { out[i] = Int16(truncatingIfNeeded: Int32(p[i]) &- zeroPoint) }
        case .int16:
            let p = d.assumingMemoryBound(to: Int16.self)
            for i in 0..<n { out[i] = Int16(truncatingIfNeeded: Int32(p[i]) &- zeroPoint) }
        case .int4:
            let p = d.assumingMemoryBound(to: UInt8.self)
            for i in 0..<n {
                let byte = p[i >> 1]
                // Shift the nibble to the top of a byte, then back down with the sign.
                let nibble = Int32(Int8(bitPattern: i & 1 == 0 ? byte << 4 : byte & 0xF0) >> 4)
                out[i] = Int16(truncatingIfNeeded: nibble &- zeroPoint)
            }
        default:
            out.update(repeating: 0, count: n)
        }
    }

    /// The bias values (int32 or int64) as Int64, or zeros when there is no bias.
    static func bias(_ tensor: RuntimeTensor?, count: Int, node: Node) throws -> [Int64] {
        guard let t = tensor else { return [Int64](repeating: 0, count: count) }
        guard t.elementCount == count else {
            throw node.error("bias has \(t.elementCount) values for \(count) output channels")
        }
        try checkBytes(t, node: node, role: "bias")
        switch t.type {
        case .int32: return t.buffer(Int32.self).prefix(count).map(Int64.init)
        case .int64: return Array(t.buffer(Int64.self).prefix(count))
        default: throw node.error("bias has type \(t.type.name); quantized kernels need int32 or int64")
        }
    }

    /// Stores `values` (already clamped to the type's range) into `tensor` at element `offset`.
    @inline(__always)
    static func store(_ values: UnsafePointer<Int32>, count: Int, to base: UnsafeMutableRawPointer, type: TensorType, offset: Int) {
        switch type {
        case .uint8:
            let p = base.assumingMemoryBound(to: UInt8.self) + offset
            for i in 0..<count { p[i] = UInt8(truncatingIfNeeded: values[i]) }
        case .int8:
            let p = base.assumingMemoryBound(to: Int8.self) + offset
            for i in 0..<count { p[i] = Int8(truncatingIfNeeded: values[i]) }
        case .int16:
            let p = base.assumingMemoryBound(to: Int16.self) + offset
            for i in 0..<count { p[i] = Int16(truncatingIfNeeded: values[i]) }
        default:
            break
        }
    }

    /// The scales of a quantized tensor, or an error when it has none or one is not a finite,
    /// non-negative number (activation scales must be positive).
    static func scales(_ tensor: RuntimeTensor, node: Node, role: String, allowZero: Bool = false) throws -> [Float] {
        guard let q = tensor.quantization, !q.scales.isEmpty else {
            throw node.error("\(role) (\(tensor.type.name)) has no quantization parameters")
        }
        for s in q.scales where !s.isFinite || s < 0 || (s == 0 && !allowZero) {
            throw node.error("\(role) has quantization scale \(s)")
        }
        return q.scales
    }
}

/// A scratch buffer that grows and is reused across runs; its memory starts on a 64-byte boundary.
///
/// Buffers that hold packed weights draw their memory from the subgraph's `WeightArena` (see
/// `place(in:)`), where the first touch costs fewer page faults; the others use the heap.
final class ScratchBuffer<T> {
    private(set) var pointer: UnsafeMutablePointer<T>
    private(set) var capacity: Int
    private var arena: WeightArena?
    /// Whether `pointer` came from the heap (and is deallocated here) or from the arena.
    private var ownsPointer = true

    init(_ initial: T) {
        pointer = Self.heapAllocate(1)
        pointer.initialize(to: initial)
        capacity = 1
    }

    /// 64-byte aligned, so that rows and panels start on cache lines.
    private static func heapAllocate(_ count: Int) -> UnsafeMutablePointer<T> {
        UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<T>.stride, alignment: max(64, MemoryLayout<T>.alignment))
            .bindMemory(to: T.self, capacity: count)
    }

    deinit { if ownsPointer { pointer.deallocate() } }

    /// Takes later growth from `arena`: for buffers filled once at load time (packed weights).
    func place(in arena: WeightArena) {
        precondition(_isPOD(T.self), "arena memory is never deinitialized")
        self.arena = arena
    }

    private func grow(to count: Int) {
        if ownsPointer { pointer.deallocate() }
        if let arena {
            let raw = arena.allocate(byteCount: count * MemoryLayout<T>.stride, alignment: MemoryLayout<T>.alignment)
            pointer = raw.bindMemory(to: T.self, capacity: count)
            ownsPointer = false
        } else {
            pointer = Self.heapAllocate(count)
            ownsPointer = true
        }
        capacity = count
    }

    /// Grows to at least `count` elements without initializing new ones: only for trivial element
    /// types whose every element the caller writes before reading it.
    func reserveUninitialized(_ count: Int) {
        precondition(_isPOD(T.self), "reserveUninitialized needs a trivial element type")
        if count > capacity { grow(to: count) }
    }

    func reserve(_ count: Int, filling value: T) {
        if count > capacity {
            grow(to: count)
            pointer.initialize(repeating: value, count: count)
        }
    }
}

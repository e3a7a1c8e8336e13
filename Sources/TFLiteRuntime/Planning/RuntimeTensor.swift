/// The live state of one tensor while a subgraph executes: its current shape and where its bytes are.
///
/// Kernels read inputs and write outputs through these. Memory is owned elsewhere: the arena (most
/// activations), the model bytes (constants, read in place), or a heap block owned by this tensor
/// (tensors whose size is only known while running, and variables).
final class RuntimeTensor {
    enum Storage {
        /// Not allocated yet.
        case none
        /// A slice of the subgraph's arena at this offset.
        case arena(offset: Int)
        /// Read in place from the model bytes (or from a block packed once at load).
        case constant
        /// A heap block owned by this tensor (dynamic-size tensors and variables).
        case owned
    }

    let index: Int
    let name: String
    var type: TensorType {
        didSet { if type != oldValue { layoutVersion &+= 1 } }
    }
    var shape: [Int] {
        didSet { if shape != oldValue { layoutVersion &+= 1 } }
    }
    /// Counts the changes of `shape` and `type` (never decreases): a run-time `prepare` is redone
    /// only when one of its inputs' counts moved.
    private(set) var layoutVersion = 0
    let quantization: QuantizationInfo?
    let isVariable: Bool
    /// The sparse encoding of a constant tensor's bytes (DENSIFY reads it).
    var sparsity: SparsityInfo?
    var storage: Storage = .none
    /// True when the shape is only known at run time: the tensor lives outside the arena.
    var isDynamic = false
    private(set) var data: UnsafeMutableRawPointer?
    private(set) var byteCount: Int = 0
    private var ownedCapacity = 0

    init(index: Int, name: String, type: TensorType, shape: [Int], quantization: QuantizationInfo?, isVariable: Bool) {
        self.index = index
        self.name = name
        self.type = type
        self.shape = shape
        self.quantization = quantization
        self.isVariable = isVariable
    }

    deinit { releaseOwned() }

    var isConstant: Bool {
        if case .constant = storage { return true }
        return false
    }

    var elementCount: Int { shape.reduce(1, *) }
    var rank: Int { shape.count }

    /// Bytes needed for the current shape and type.
    var requiredBytes: Int { elementCount * type.byteSize }

    func dim(_ i: Int) -> Int { shape[i] }

    /// Points the tensor at constant bytes (model data, or a block packed at load time).
    func bindConstant(_ pointer: UnsafeRawPointer, byteCount: Int) {
        releaseOwned()
        storage = .constant
        data = UnsafeMutableRawPointer(mutating: pointer)
        self.byteCount = byteCount
    }

    func bindArena(base: UnsafeMutableRawPointer, offset: Int) {
        releaseOwned()
        storage = .arena(offset: offset)
        data = base + offset
        byteCount = requiredBytes
    }

    /// Gives the tensor its own block of at least `requiredBytes` (or `byteCount`, for string
    /// tensors, whose size their shape does not tell), keeping an existing one that fits.
    func allocateOwned(byteCount explicit: Int? = nil) throws {
        if type == .string, explicit == nil, case .owned = storage { return }
        let needed = explicit ?? (type == .string ? 4 : requiredBytes)
        guard needed <= Model.maxTensorBytes else {
            throw RuntimeError("tensor \(index) '\(name)': shape \(shape) needs \(needed) bytes, more than this runtime allows")
        }
        if case .owned = storage, needed <= ownedCapacity {
            byteCount = needed
            return
        }
        releaseOwned()
        let capacity = max(needed, 1)
        let block = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
        block.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
        data = block
        ownedCapacity = capacity
        byteCount = needed
        storage = .owned
    }

    private func releaseOwned() {
        if case .owned = storage, let d = data { d.deallocate() }
        if case .owned = storage { data = nil; ownedCapacity = 0; storage = .none }
    }

    /// The raw bytes; fails when the tensor has no memory yet.
    var raw: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: data, count: byteCount)
    }

    /// The elements as `T`. The caller must have checked `type`.
    func buffer<T>(_: T.Type) -> UnsafeMutableBufferPointer<T> {
        guard let d = data else { return UnsafeMutableBufferPointer(start: nil, count: 0) }
        let count = min(elementCount, byteCount / MemoryLayout<T>.stride)
        return UnsafeMutableBufferPointer(start: d.assumingMemoryBound(to: T.self), count: count)
    }

    var floats: UnsafeMutableBufferPointer<Float> { buffer(Float.self) }

    /// Values of an integer tensor (int32 or int64) as `Int`, for shape-like operands.
    func intValues() throws -> [Int] {
        switch type {
        case .int32: return buffer(Int32.self).map(Int.init)
        case .int64: return buffer(Int64.self).map(Int.init)
        default: throw RuntimeError("tensor \(index) '\(name)' must be int32 or int64, is \(type.name)")
        }
    }

    /// Per-tensor scale and zero point (the first, for per-channel tensors).
    var scale: Float { quantization?.scales.first ?? 0 }
    var zeroPoint: Int { Int(quantization?.zeroPoints.first ?? 0) }
}

/// An error raised while preparing or running a node; the interpreter reports it with the node.
struct RuntimeError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }

    /// The invoke was stopped by `Interpreter.cancel()`.
    static let cancelled = RuntimeError("the invocation was cancelled (Interpreter.cancel())")
}

/// The storage of one resource variable (ASSIGN_VARIABLE writes it, READ_VARIABLE reads it). A
/// streaming model assigns and reads every variable on every invoke, so the value lives in one
/// block that an assignment of the same size copies into in place, and a change of type or shape
/// bumps `layoutVersion`, which is what READ_VARIABLE's run-time prepare compares (reading an
/// unchanged variable needs no prepare: a wake-word model reads six on every invoke).
final class ResourceVariable {
    /// False until the first assignment (reading before then is an error).
    private(set) var isAssigned = false
    private(set) var type: TensorType = .float32
    private(set) var shape: [Int] = []
    /// The value's size in bytes (a string tensor's whole buffer).
    private(set) var byteCount = 0
    /// Changes whenever the type or the shape does.
    private(set) var layoutVersion = 0
    private var block: UnsafeMutableRawPointer?
    private var capacity = 0

    /// The value's bytes (`byteCount` of them); nil before the first assignment of a non-empty
    /// value. The variable kernels copy in and out of it directly once layouts are known.
    var storage: UnsafeMutableRawPointer? { block }

    deinit { block?.deallocate() }

    /// Stores a copy of `tensor`'s current value.
    func assign(from tensor: RuntimeTensor, _ node: Node) throws {
        let count = tensor.type == .string ? tensor.byteCount : tensor.requiredBytes
        guard count == 0 || (tensor.data != nil && tensor.byteCount >= count) else {
            throw node.error("value has no data")
        }
        if count > capacity {
            block?.deallocate()
            block = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 64)
            capacity = count
        }
        if !isAssigned || type != tensor.type || shape != tensor.shape {
            type = tensor.type
            shape = tensor.shape
            layoutVersion &+= 1
            isAssigned = true
        }
        byteCount = count
        if count > 0, let source = tensor.data, let block { block.copyMemory(from: source, byteCount: count) }
    }

    /// Writes the value into `tensor`, whose type and shape must already match.
    func write(to tensor: RuntimeTensor, _ node: Node, role: String) throws {
        guard tensor.type == type, tensor.shape == shape else {
            throw node.error("\(role) is \(tensor.type.name) \(tensor.shape), the value is \(type.name) \(shape)")
        }
        if type == .string { try tensor.allocateOwned(byteCount: byteCount) }
        guard tensor.byteCount >= byteCount, let destination = tensor.data else {
            throw node.error("\(role) has no memory for \(byteCount) bytes")
        }
        if byteCount > 0, let block { destination.copyMemory(from: block, byteCount: byteCount) }
    }
}

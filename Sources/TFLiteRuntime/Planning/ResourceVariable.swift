/// The storage of one resource variable (ASSIGN_VARIABLE writes it, READ_VARIABLE reads it): the
/// value's type and shape and one block of bytes, reused while the value fits, since a streaming
/// model assigns and reads every variable on every invoke (a new array per assignment cost a
/// tenth of a wake-word model's invoke).
final class ResourceVariable {
    private(set) var type: TensorType = .float32
    private(set) var shape: [Int] = []
    /// False until the first assignment: reading it before then is an error.
    private(set) var isAssigned = false
    private var block: UnsafeMutableRawPointer?
    private var capacity = 0
    /// The value's size in bytes.
    private(set) var byteCount = 0

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
        if count > 0, let block, let source = tensor.data { block.copyMemory(from: source, byteCount: count) }
        if type != tensor.type { type = tensor.type }
        if shape != tensor.shape { shape = tensor.shape }
        byteCount = count
        isAssigned = true
    }

    /// Writes the value into `tensor`, whose type and shape must already match.
    func write(to tensor: RuntimeTensor, _ node: Node, role: String) throws {
        guard tensor.type == type, tensor.shape == shape else {
            throw node.error("\(role) is \(tensor.type.name) \(tensor.shape), the variable is \(type.name) \(shape)")
        }
        if type == .string { try tensor.allocateOwned(byteCount: byteCount) }
        guard byteCount > 0 else { return }
        guard tensor.byteCount >= byteCount, let destination = tensor.data, let block else {
            throw node.error("\(role) has no memory for \(byteCount) bytes")
        }
        destination.copyMemory(from: block, byteCount: byteCount)
    }
}

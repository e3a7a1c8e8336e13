/// The storage of one resource variable (ASSIGN_VARIABLE writes it, READ_VARIABLE reads it). A
/// streaming model assigns and reads every variable on every invoke, so an assignment of the same
/// type and size copies into the value's bytes in place instead of making a new array (that
/// allocation cost a tenth of a wake-word model's invoke).
final class ResourceVariable {
    /// The current value; nil until the first assignment (reading it before then is an error).
    private(set) var value: TensorValue?

    /// Stores a copy of `tensor`'s current value.
    func assign(from tensor: RuntimeTensor, _ node: Node) throws {
        let count = tensor.type == .string ? tensor.byteCount : tensor.requiredBytes
        guard count == 0 || (tensor.data != nil && tensor.byteCount >= count) else {
            throw node.error("value has no data")
        }
        guard value?.type == tensor.type, value?.bytes.count == count, let source = tensor.data else {
            value = TensorValue(tensor)
            return
        }
        if value!.shape != tensor.shape { value!.shape = tensor.shape }
        value!.bytes.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: source, byteCount: count) }
    }
}

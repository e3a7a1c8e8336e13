extension Node {
    /// The elements of `tensor` as `T`, checked to cover its whole current shape.
    ///
    /// A constant whose buffer in the model is shorter than its shape says yields fewer elements
    /// than the shape; kernels call this instead of `buffer(_:)` so such a model throws rather than
    /// reading past the data. The caller has checked that `T` matches the tensor's type.
    func elementwiseBuffer<T>(_ tensor: RuntimeTensor, _: T.Type, role: String) throws -> UnsafeMutableBufferPointer<T>
    {
        let buffer = tensor.buffer(T.self)
        let needed = tensor.elementCount
        guard buffer.count == needed, needed == 0 || buffer.baseAddress != nil else {
            throw error("\(role) has data for \(buffer.count) elements; its shape \(tensor.shape) needs \(needed)")
        }
        return buffer
    }
}

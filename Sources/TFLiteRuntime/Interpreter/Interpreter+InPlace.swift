extension Interpreter {
    /// Lends the memory of the input tensor at `index` for writing in place, so that producers
    /// such as image pre-processing fill it without an intermediate buffer (the alternative to
    /// ``copy(_:toInputAt:)``).
    ///
    /// The buffer has exactly the tensor's byte count and is valid only inside `body`; it becomes
    /// stale after `resizeInput(at:to:)` or `allocateTensors()`. Do not call ``invoke()`` from `body`.
    ///
    /// - Throws: ``InterpreterError/invalidTensorIndex(index:maxIndex:)`` for a bad index,
    ///   ``InterpreterError/allocateTensorsRequired`` before `allocateTensors()`, and whatever
    ///   `body` throws.
    public func withUnsafeMutableBytes<Result>(
        ofInputAt index: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> Result
    ) throws -> Result {
        let tensor = executor.tensors[try tensorIndex(input: index)]
        guard executor.isAllocated else { throw InterpreterError.allocateTensorsRequired }
        guard let destination = tensor.data else { throw InterpreterError.failedToCopyDataToInputTensor }
        return try body(UnsafeMutableRawBufferPointer(start: destination, count: tensor.byteCount))
    }
}

import Foundation

extension Interpreter {
    /// Copies `strings` into the string input `index` (TensorFlow Lite's string tensor format), one
    /// per element of the input's shape. TensorFlowLiteSwift's `Tensor.DataType` has no string
    /// case, so strings go through these two methods.
    ///
    /// - Throws: ``InterpreterError/invalidTensorDataType`` when the input does not hold strings,
    ///   ``InterpreterError/invalidTensorDataCount(provided:required:)`` when the count differs
    ///   from the input's element count.
    public func copy(strings: [String], toInputAt index: Int) throws {
        let tensor = executor.tensors[try tensorIndex(input: index)]
        guard executor.isAllocated else { throw InterpreterError.allocateTensorsRequired }
        guard tensor.type == .string else { throw InterpreterError.invalidTensorDataType }
        guard strings.count == tensor.elementCount else {
            throw InterpreterError.invalidTensorDataCount(provided: strings.count, required: tensor.elementCount)
        }
        try Interpreter.mapErrors { try tensor.setStrings(strings.map { Array($0.utf8) }) }
    }

    /// The strings of string output `index` (after `invoke()`), decoded as UTF-8 (invalid bytes are
    /// repaired, as `String(decoding:as:)` does).
    public func outputStrings(at index: Int) throws -> [String] {
        let ids = executor.subgraph.outputs
        guard index >= 0, index < ids.count else {
            throw InterpreterError.invalidTensorIndex(index: index, maxIndex: ids.count - 1)
        }
        guard executor.isAllocated else { throw InterpreterError.allocateTensorsRequired }
        let tensor = executor.tensors[ids[index]]
        guard tensor.type == .string else { throw InterpreterError.invalidTensorDataType }
        var result = [String]()
        try Interpreter.mapErrors {
            result = try tensor.strings("output \(index)").map { String(decoding: $0, as: UTF8.self) }
        }
        return result
    }
}

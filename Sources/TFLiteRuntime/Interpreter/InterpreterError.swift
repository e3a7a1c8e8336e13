import Foundation

/// Errors thrown by ``Interpreter``, with the cases and meanings of TensorFlowLiteSwift's.
///
/// OpenMLKit adds ``invalidModel(_:)``, which carries the exact reason a model file was rejected.
/// Failures of operators while preparing or running are ``tensorFlowLiteError(_:)`` with a message
/// naming the node and its operator.
public enum InterpreterError: Error, Equatable, Hashable, Sendable {
    case invalidTensorIndex(index: Int, maxIndex: Int)
    case invalidTensorDataCount(provided: Int, required: Int)
    case invalidTensorDataType
    case failedToLoadModel
    case failedToCreateInterpreter
    case failedToResizeInputTensor(index: Int)
    case failedToCopyDataToInputTensor
    case failedToAllocateTensors
    case allocateTensorsRequired
    case invokeInterpreterRequired
    case tensorFlowLiteError(String)
    /// The model file is malformed or unsupported; the associated error says what and where.
    case invalidModel(ModelError)
}

extension InterpreterError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .invalidTensorIndex(let index, let maxIndex):
            return "Invalid tensor index \(index), max index is \(maxIndex)."
        case .invalidTensorDataCount(let provided, let required):
            return "Provided data count \(provided) must match the required count \(required)."
        case .invalidTensorDataType:
            return "Tensor data type is unsupported or could not be determined due to a model error."
        case .failedToLoadModel:
            return "Failed to load the given model."
        case .failedToCreateInterpreter:
            return "Failed to create the interpreter."
        case .failedToResizeInputTensor(let index):
            return "Failed to resize input tensor at index \(index)."
        case .failedToCopyDataToInputTensor:
            return "Failed to copy data to input tensor."
        case .failedToAllocateTensors:
            return "Failed to allocate memory for input tensors."
        case .allocateTensorsRequired:
            return "Must call allocateTensors()."
        case .invokeInterpreterRequired:
            return "Must call invoke()."
        case .tensorFlowLiteError(let message):
            return "TensorFlow Lite Error: \(message)"
        case .invalidModel(let error):
            return "Invalid model: \(error.description)"
        }
    }
}

extension InterpreterError: CustomStringConvertible {
    public var description: String { errorDescription ?? "\(self)" }
}

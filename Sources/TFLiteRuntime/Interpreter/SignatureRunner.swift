import Foundation

/// Runs one SignatureDef of a model by the names of its inputs and outputs (TensorFlowLiteSwift's API).
///
/// Each runner has its own tensors and memory; it is not thread-safe.
public final class SignatureRunner {
    /// The signature's key.
    public let signatureKey: String
    /// Input names, in the signature's order.
    public let inputs: [String]
    /// Output names, in the signature's order.
    public let outputs: [String]
    private let signature: ModelSignature
    private let executor: SubgraphExecutor
    /// Shared with the interpreter that made this runner (resource variables live as long as it).
    private let context: ExecutionContext

    init(context: ExecutionContext, key: String) throws {
        self.context = context
        let model = context.model
        guard let signature = model.signatures.first(where: { $0.key == key }) else {
            throw SignatureRunnerError.failedToCreateSignatureRunner(signatureKey: key)
        }
        self.signature = signature
        signatureKey = key
        inputs = signature.inputs.map(\.name)
        outputs = signature.outputs.map(\.name)
        do {
            // Its own tensors (the runner's documented contract), sharing the interpreter's resources.
            executor = try SubgraphExecutor(context: context, subgraphIndex: signature.subgraphIndex)
        } catch let error as ModelError {
            throw InterpreterError.invalidModel(error)
        } catch {
            throw SignatureRunnerError.failedToCreateSignatureRunner(signatureKey: key)
        }
    }

    private func tensor(input name: String) throws -> RuntimeTensor {
        guard let entry = signature.inputs.first(where: { $0.name == name }) else {
            throw SignatureRunnerError.failedToGetTensor(tensorType: "input", nameInSignature: name)
        }
        return executor.tensors[entry.tensor]
    }

    private func tensor(output name: String) throws -> RuntimeTensor {
        guard let entry = signature.outputs.first(where: { $0.name == name }) else {
            throw SignatureRunnerError.failedToGetTensor(tensorType: "output", nameInSignature: name)
        }
        return executor.tensors[entry.tensor]
    }

    /// Plans memory; required before the first `invoke` and after `resizeInput`.
    public func allocateTensors() throws {
        do {
            try Interpreter.mapErrors { try executor.allocate() }
        } catch {
            throw SignatureRunnerError.failedToAllocateTensors
        }
    }

    /// Changes the shape of the input `named`.
    public func resizeInput(named: String, toShape shape: Tensor.Shape) throws {
        let t = try tensor(input: named)
        guard shape.dimensions.allSatisfy({ $0 >= 0 }) else {
            throw SignatureRunnerError.failedToResizeInputTensor(inputName: named)
        }
        if t.shape != shape.dimensions {
            t.shape = shape.dimensions
            executor.invalidate()
        }
    }

    /// The input tensor `named`.
    ///
    /// - Throws: ``SignatureRunnerError/failedToGetTensor(tensorType:nameInSignature:)`` for an unknown
    ///   name, ``SignatureRunnerError/allocateTensorsRequired`` while the tensor has no memory (before
    ///   `allocateTensors()` or the first `invoke`), as TensorFlowLiteSwift does.
    public func input(named: String) throws -> Tensor {
        let t = try tensor(input: named)
        guard executor.isAllocated else { throw SignatureRunnerError.allocateTensorsRequired }
        return try Tensor(t)
    }

    /// The output tensor `named`.
    ///
    /// - Throws: as ``input(named:)``.
    public func output(named: String) throws -> Tensor {
        let t = try tensor(output: named)
        guard executor.isAllocated else { throw SignatureRunnerError.allocateTensorsRequired }
        return try Tensor(t)
    }

    /// Copies `data` into the input `named`; the size must match the tensor's byte size.
    public func copy(_ data: Data, toInputNamed name: String) throws {
        let t = try tensor(input: name)
        if !executor.isAllocated { try allocateTensors() }
        guard data.count == t.byteCount else {
            throw SignatureRunnerError.invalidTensorDataCount(provided: data.count, required: t.byteCount)
        }
        guard let destination = t.data else { throw SignatureRunnerError.failedToCopyDataToInputTensor }
        data.withUnsafeBytes { raw in
            if let source = raw.baseAddress, raw.count > 0 { destination.copyMemory(from: source, byteCount: raw.count) }
        }
    }

    /// Copies `inputs` (name → bytes) into the input tensors, then runs the signature.
    public func invoke(with inputs: [String: Data] = [:]) throws {
        if !executor.isAllocated { try allocateTensors() }
        for (name, data) in inputs { try copy(data, toInputNamed: name) }
        do {
            try Interpreter.mapErrors { try executor.invoke() }
        } catch let error as InterpreterError {
            if case .tensorFlowLiteError(let message) = error {
                throw SignatureRunnerError.failedToInvokeSignature(signatureKey: "\(signatureKey): \(message)")
            }
            throw error
        }
    }
}

/// Errors thrown by ``SignatureRunner``.
public enum SignatureRunnerError: Error, Equatable, Hashable, Sendable {
    case invalidTensorDataCount(provided: Int, required: Int)
    case invalidTensorDataType
    case failedToCreateSignatureRunner(signatureKey: String)
    case failedToGetTensor(tensorType: String, nameInSignature: String)
    case failedToResizeInputTensor(inputName: String)
    case failedToCopyDataToInputTensor
    case failedToAllocateTensors
    case failedToInvokeSignature(signatureKey: String)
    /// A tensor was read before its memory was planned: call `allocateTensors()` (or `invoke`) first.
    case allocateTensorsRequired
}

extension SignatureRunnerError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .invalidTensorDataCount(let provided, let required):
            return "Provided data count \(provided) must match the required count \(required)."
        case .invalidTensorDataType:
            return "Tensor data type is unsupported or could not be determined."
        case .failedToCreateSignatureRunner(let key):
            return "Failed to create a signature runner for signature '\(key)'."
        case .failedToGetTensor(let kind, let name):
            return "Failed to get the \(kind) tensor named '\(name)'."
        case .failedToResizeInputTensor(let name):
            return "Failed to resize the input tensor '\(name)'."
        case .failedToCopyDataToInputTensor:
            return "Failed to copy data to the input tensor."
        case .failedToAllocateTensors:
            return "Failed to allocate memory for tensors."
        case .failedToInvokeSignature(let key):
            return "Failed to invoke signature \(key)."
        case .allocateTensorsRequired:
            return "Must call allocateTensors()."
        }
    }
}

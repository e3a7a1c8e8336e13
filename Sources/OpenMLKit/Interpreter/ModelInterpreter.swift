import Foundation
import TFLiteRuntime

/// Runs a custom TensorFlow Lite model the ML Kit way (ML Kit's `ModelInterpreter`).
///
/// ```swift
/// let interpreter = ModelInterpreter.modelInterpreter(localModel: CustomLocalModel(modelPath: path))
/// let ioOptions = ModelInputOutputOptions()
/// try ioOptions.setInputFormat(index: 0, type: .float32, dimensions: [1, 224, 224, 3])
/// try ioOptions.setOutputFormat(index: 0, type: .float32, dimensions: [1, 1000])
/// let inputs = ModelInputs()
/// try inputs.addInput(inputData)
/// interpreter.run(inputs: inputs, options: ioOptions) { outputs, error in ... }
/// ```
///
/// Runs are serialized on the interpreter's own queue; completions are called on the main actor
/// on Apple platforms and on ``CompletionQueue/queue`` on Linux (see ``CompletionQueue``). The options are checked against the model first:
/// a type or shape that does not match is a ``ModelInterpreterError/formatMismatch(_:)`` naming
/// the index, what the options say and what the model takes.
public final class ModelInterpreter: @unchecked Sendable {
    private let resolveModelPath: () throws -> String
    private let queue = DispatchQueue(label: "OpenMLKit.ModelInterpreter")
    private var interpreter: Interpreter?
    private let loadedPath = LockedBox<String?>(nil)

    /// The model file this interpreter loaded (the downloaded or the bundled one, for
    /// ``modelInterpreter(remoteModel:localModel:manager:)``), or nil before its first run.
    public var modelPath: String? { loadedPath.current }

    /// Threads the runtime may use for one inference (default 1).
    public var threadCount: Int = 1

    /// Accepted for source compatibility with ML Kit; OpenMLKit collects no statistics.
    public var isStatsCollectionEnabled = false

    init(resolveModelPath: @escaping () throws -> String) {
        self.resolveModelPath = resolveModelPath
    }

    /// An interpreter for a model bundled with the app.
    public static func modelInterpreter(localModel: CustomLocalModel) -> ModelInterpreter {
        ModelInterpreter { localModel.modelPath }
    }

    /// An interpreter for a hosted model, using the version installed by `manager` (the shared
    /// manager by default) when the interpreter first loads. Runs before the model has been
    /// downloaded fail with ``ModelInterpreterError/modelNotDownloaded(name:)``.
    public static func modelInterpreter(
        remoteModel: CustomRemoteModel, manager: ModelManager = .modelManager()
    ) -> ModelInterpreter {
        ModelInterpreter {
            guard let model = manager.downloadedModel(remoteModel) else {
                throw ModelInterpreterError.modelNotDownloaded(name: remoteModel.name)
            }
            return model.path
        }
    }

    /// The seeds' fallback in one call: the hosted model if a version of it has been downloaded
    /// when the interpreter first loads, else the bundled one. The choice holds for the
    /// interpreter's life, so a version downloaded meanwhile is used by the next interpreter
    /// (ML Kit: "on the next start").
    public static func modelInterpreter(
        remoteModel: CustomRemoteModel, localModel: CustomLocalModel, manager: ModelManager = .modelManager()
    ) -> ModelInterpreter {
        ModelInterpreter { manager.downloadedModel(remoteModel)?.path ?? localModel.modelPath }
    }

    /// Runs the model and calls `completion` with the outputs or an error (on the main actor on
    /// Apple platforms, on ``CompletionQueue/queue`` on Linux).
    public func run(
        inputs: ModelInputs, options: ModelInputOutputOptions,
        completion: @escaping CompletionHandler<ModelOutputs>
    ) {
        queue.async {
            do {
                let outputs = try self.runOnQueue(inputs: inputs, options: options)
                deliverCompletion { completion(outputs, nil) }
            } catch {
                deliverCompletion { completion(nil, error) }
            }
        }
    }

    /// Runs the model and returns its outputs.
    public func run(inputs: ModelInputs, options: ModelInputOutputOptions) async throws -> ModelOutputs {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.runOnQueue(inputs: inputs, options: options) })
            }
        }
    }

    /// Runs the model on the calling thread, waiting for any run in progress.
    public func runSynchronously(inputs: ModelInputs, options: ModelInputOutputOptions) throws -> ModelOutputs {
        try queue.sync { try runOnQueue(inputs: inputs, options: options) }
    }

    /// The index of the input tensor named `opName`.
    public func inputIndex(opName: String, completion: @escaping CompletionHandler<NSNumber>) {
        tensorIndex(named: opName, inputs: true, completion: completion)
    }

    /// The index of the output tensor named `opName`.
    public func outputIndex(opName: String, completion: @escaping CompletionHandler<NSNumber>) {
        tensorIndex(named: opName, inputs: false, completion: completion)
    }

    private func tensorIndex(named name: String, inputs: Bool, completion: @escaping CompletionHandler<NSNumber>) {
        queue.async {
            do {
                let interpreter = try self.loadedInterpreter()
                let graph = interpreter.model.subgraphs[0]
                let ids = inputs ? graph.inputs : graph.outputs
                guard let position = ids.firstIndex(where: { graph.tensors[$0].name == name }) else {
                    throw ModelInterpreterError.invalidOptions("the model has no \(inputs ? "input" : "output") named '\(name)'")
                }
                deliverCompletion { completion(NSNumber(value: position), nil) }
            } catch {
                deliverCompletion { completion(nil, error) }
            }
        }
    }

    private func loadedInterpreter() throws -> Interpreter {
        // The model is chosen once: a version downloaded later is picked up by a new interpreter.
        if let interpreter { return interpreter }
        let path = try resolveModelPath()
        do {
            let created = try Interpreter(modelPath: path, options: .init(threadCount: threadCount))
            interpreter = created
            loadedPath.withLockedValue { $0 = path }
            return created
        } catch {
            throw ModelInterpreterError.modelFailed("\(path): \(error.localizedDescription)")
        }
    }

    private func runOnQueue(inputs: ModelInputs, options: ModelInputOutputOptions) throws -> ModelOutputs {
        let interpreter = try loadedInterpreter()
        let values = inputs.all
        let formats = options.inputFormats
        guard values.count == interpreter.inputTensorCount else {
            throw ModelInterpreterError.invalidInput(
                "\(values.count) input(s) given, the model takes \(interpreter.inputTensorCount)")
        }
        let graph = interpreter.model.subgraphs[0]
        var prepared = [Data]()
        do {
            for (i, value) in values.enumerated() {
                guard let format = formats[i] else {
                    throw ModelInterpreterError.invalidOptions("no input format set for index \(i)")
                }
                let declared = graph.tensors[graph.inputs[i]]
                try ModelInterpreter.check(format, against: declared, what: "input \(i)")
                let current = try interpreter.input(at: i).shape.dimensions
                if current != format.dimensions {
                    try interpreter.resizeInput(at: i, to: Tensor.Shape(format.dimensions))
                }
                prepared.append(try ModelInterpreter.bytes(value, format: format, what: "input \(i)"))
            }
            try interpreter.allocateTensors()
            for (i, data) in prepared.enumerated() { try interpreter.copy(data, toInputAt: i) }
            try interpreter.invoke()
        } catch let error as ModelInterpreterError {
            throw error
        } catch {
            throw ModelInterpreterError.modelFailed(error.localizedDescription)
        }
        var outputs = [ModelOutputs.Output]()
        for o in 0..<interpreter.outputTensorCount {
            let tensor: Tensor
            do { tensor = try interpreter.output(at: o) } catch { throw ModelInterpreterError.modelFailed(error.localizedDescription) }
            let actualType = ModelInterpreter.elementType(tensor.dataType.tensorType)
            if let format = options.outputFormats[o] {
                guard actualType == format.type else {
                    throw ModelInterpreterError.formatMismatch(
                        "output \(o): options say \(format.type) but the model gives \(tensor.dataType.tensorType.numpyName)")
                }
                guard format.dimensions == tensor.shape.dimensions else {
                    throw ModelInterpreterError.formatMismatch(
                        "output \(o): options say dimensions \(format.dimensions) but the model gives \(tensor.shape.dimensions)")
                }
            }
            guard let type = actualType else {
                throw ModelInterpreterError.formatMismatch(
                    "output \(o): the model gives \(tensor.dataType.tensorType.numpyName), which ML Kit's element types cannot hold")
            }
            outputs.append(.init(type: type, dimensions: tensor.shape.dimensions, data: tensor.data))
        }
        return ModelOutputs(outputs)
    }

    static func elementType(_ type: TensorType) -> ModelElementType? {
        switch type {
        case .float32: return .float32
        case .int32: return .int32
        case .uint8: return .uInt8
        case .int64: return .int64
        case .int8: return .int8
        default: return nil
        }
    }

    /// Checks a declared format against the model's tensor (type, rank, fixed dimensions).
    static func check(_ format: ModelInputOutputOptions.Format, against tensor: ModelTensor, what: String) throws {
        guard elementType(tensor.type) == format.type else {
            throw ModelInterpreterError.formatMismatch(
                "\(what): options say \(format.type) but the model takes \(tensor.type.numpyName)")
        }
        let signature = tensor.shapeSignature ?? tensor.shape
        let fits = format.dimensions.count == signature.count
            && zip(format.dimensions, signature).allSatisfy { $1 == -1 || $0 == $1 }
        guard fits || format.dimensions == tensor.shape else {
            throw ModelInterpreterError.formatMismatch(
                "\(what): options say dimensions \(format.dimensions) but the model takes \(signature)")
        }
    }

    /// The tensor bytes of an input value in the declared format.
    static func bytes(_ value: ModelInputs.Value, format: ModelInputOutputOptions.Format, what: String) throws -> Data {
        let expected = format.elementCount * format.type.byteSize
        switch value {
        case .bytes(let data):
            guard data.count == expected else {
                throw ModelInterpreterError.invalidInput(
                    "\(what) has \(data.count) bytes; \(format.type) \(format.dimensions) needs \(expected)")
            }
            return data
        case .numbers(let numbers):
            guard numbers.count == format.elementCount else {
                throw ModelInterpreterError.invalidInput(
                    "\(what) has \(numbers.count) numbers; \(format.dimensions) needs \(format.elementCount)")
            }
            var data = Data(capacity: expected)
            func append<T>(_ value: T) { withUnsafeBytes(of: value) { data.append(contentsOf: $0) } }
            for n in numbers {
                switch format.type {
                case .float32: append(Float(n))
                case .int32: append(Int32(clamping: Int64(n.rounded(.towardZero))))
                case .int64: append(Int64(n.rounded(.towardZero)))
                case .uInt8: append(UInt8(clamping: Int(n.rounded(.towardZero))))
                case .int8: append(Int8(clamping: Int(n.rounded(.towardZero))))
                }
            }
            return data
        }
    }
}

import Foundation

/// Runs a TensorFlow Lite model: the API of TensorFlowLiteSwift's `Interpreter`, in pure Swift.
///
/// ```swift
/// let interpreter = try Interpreter(modelPath: path)
/// try interpreter.allocateTensors()
/// try interpreter.copy(inputData, toInputAt: 0)
/// try interpreter.invoke()
/// let output = try interpreter.output(at: 0)
/// ```
///
/// An interpreter is not thread-safe: use one per thread (they can share a ``Model``).
public final class Interpreter {
    /// The options the interpreter was created with.
    public let options: Options?
    /// Accepted for source compatibility; OpenMLKit runs every operator itself.
    public let delegates: [Delegate]?
    /// The loaded model (shared, immutable).
    public let model: Model
    /// The operators this interpreter runs (built-in kernels plus registered custom operators).
    public let resolver: OperatorResolver
    /// State the subgraphs share (control flow, resource variables); owns the executors.
    let context: ExecutionContext
    let executor: SubgraphExecutor
    var hasInvoked = false

    /// Loads the model at `modelPath` (memory-mapped) and creates an interpreter for its first subgraph.
    ///
    /// - Throws: ``InterpreterError/failedToLoadModel`` when the file cannot be read,
    ///   ``InterpreterError/invalidModel(_:)`` when it is not a valid TensorFlow Lite model.
    public convenience init(
        modelPath: String, options: Options? = nil, delegates: [Delegate]? = nil,
        resolver: OperatorResolver = OperatorResolver()
    ) throws {
        let model: Model
        do {
            model = try Model(path: modelPath)
        } catch let error as ModelError {
            if case .unreadable = error { throw InterpreterError.failedToLoadModel }
            throw InterpreterError.invalidModel(error)
        }
        try self.init(model: model, options: options, delegates: delegates, resolver: resolver)
    }

    /// Creates an interpreter from model bytes held in memory.
    public convenience init(
        modelData: Data, options: Options? = nil, delegates: [Delegate]? = nil,
        resolver: OperatorResolver = OperatorResolver()
    ) throws {
        let model: Model
        do {
            model = try Model(data: modelData)
        } catch let error as ModelError {
            throw InterpreterError.invalidModel(error)
        }
        try self.init(model: model, options: options, delegates: delegates, resolver: resolver)
    }

    /// Creates an interpreter for an already loaded model.
    ///
    /// - Throws: ``InterpreterError/tensorFlowLiteError(_:)`` naming the subgraph, node, operator
    ///   and version when the model uses an operator this runtime cannot run (raised here, where
    ///   TensorFlowLiteSwift raises it, not at `allocateTensors()`);
    ///   ``InterpreterError/invalidModel(_:)`` for a malformed model.
    ///   `resolver` adds custom operators to the built-in kernels (see ``OperatorResolver``).
    public init(
        model: Model, options: Options? = nil, delegates: [Delegate]? = nil,
        resolver: OperatorResolver = OperatorResolver()
    ) throws {
        self.model = model
        self.options = options
        self.delegates = delegates
        self.resolver = resolver
        if let problem = model.firstUnsupportedOperator(resolver) {
            throw InterpreterError.tensorFlowLiteError(problem)
        }
        context = ExecutionContext(model: model, resolver: resolver, threadCount: options?.resolvedThreadCount ?? 1)
        do {
            executor = try context.executor(for: 0)
        } catch let error as ModelError {
            throw InterpreterError.invalidModel(error)
        } catch {
            throw InterpreterError.tensorFlowLiteError("\(error)")
        }
    }

    /// The number of input tensors.
    public var inputTensorCount: Int { executor.subgraph.inputs.count }

    /// The number of output tensors.
    public var outputTensorCount: Int { executor.subgraph.outputs.count }

    /// Runs the model on the current input data.
    ///
    /// - Throws: ``InterpreterError/allocateTensorsRequired`` before `allocateTensors()`, or
    ///   ``InterpreterError/tensorFlowLiteError(_:)`` naming the node that failed.
    public func invoke() throws {
        executor.cancellation.clear()
        try Interpreter.mapErrors { try executor.invoke() }
        hasInvoked = true
    }

    /// Stops the `invoke()` running on another thread before its next operator (or the next turn of
    /// a WHILE loop), which then throws ``InterpreterError/tensorFlowLiteError(_:)`` saying it was
    /// cancelled; the outputs are then undefined. TFLite's `Interpreter::Cancel()`: a server can put
    /// a deadline on a model it did not write (a WHILE loop that never ends). Safe to call from any
    /// thread; a call while no invoke runs has no effect, since every `invoke()` starts afresh.
    public func cancel() {
        executor.cancellation.raise()
    }

    /// The input tensor at `index`.
    public func input(at index: Int) throws -> Tensor {
        try Tensor(executor.tensors[try tensorIndex(input: index)])
    }

    /// The output tensor at `index` (its data is meaningful after `invoke()`).
    ///
    /// - Throws: ``InterpreterError/invalidTensorIndex(index:maxIndex:)``, or
    ///   ``InterpreterError/invokeInterpreterRequired`` while the output has no memory (before
    ///   `allocateTensors()`), as TensorFlowLiteSwift does when the tensor's data is missing.
    public func output(at index: Int) throws -> Tensor {
        let ids = executor.subgraph.outputs
        guard index >= 0, index < ids.count else {
            throw InterpreterError.invalidTensorIndex(index: index, maxIndex: ids.count - 1)
        }
        guard executor.isAllocated else { throw InterpreterError.invokeInterpreterRequired }
        return try Tensor(executor.tensors[ids[index]])
    }

    /// Changes the shape of input `index`; call `allocateTensors()` before the next `invoke()`.
    public func resizeInput(at index: Int, to shape: Tensor.Shape) throws {
        let tensor = executor.tensors[try tensorIndex(input: index)]
        guard shape.dimensions.allSatisfy({ $0 >= 0 }) else {
            throw InterpreterError.failedToResizeInputTensor(index: index)
        }
        var elements = 1
        for d in shape.dimensions {
            let (p, o) = elements.multipliedReportingOverflow(by: d)
            guard !o, p <= Model.maxTensorBytes else { throw InterpreterError.failedToResizeInputTensor(index: index) }
            elements = p
        }
        guard tensor.shape != shape.dimensions else { return }
        tensor.shape = shape.dimensions
        executor.invalidate()
        hasInvoked = false
    }

    /// Copies `data` into input `index`; its size must equal the tensor's byte size.
    @discardableResult
    public func copy(_ data: Data, toInputAt index: Int) throws -> Tensor {
        let tensor = executor.tensors[try tensorIndex(input: index)]
        guard executor.isAllocated else { throw InterpreterError.allocateTensorsRequired }
        guard data.count == tensor.byteCount else {
            throw InterpreterError.invalidTensorDataCount(provided: data.count, required: tensor.byteCount)
        }
        guard let destination = tensor.data else { throw InterpreterError.failedToCopyDataToInputTensor }
        data.withUnsafeBytes { raw in
            if let source = raw.baseAddress, raw.count > 0 { destination.copyMemory(from: source, byteCount: raw.count) }
        }
        return try Tensor(tensor)
    }

    /// Plans memory for every tensor; required after creation and after `resizeInput`.
    ///
    /// - Throws: ``InterpreterError/failedToAllocateTensors`` when the activations need more memory
    ///   than the runtime allows; ``InterpreterError/tensorFlowLiteError(_:)`` naming the node when an
    ///   operator rejects its tensors (TensorFlowLiteSwift reports that case as
    ///   `failedToAllocateTensors` and prints the reason; here the reason is kept in the error).
    public func allocateTensors() throws {
        try Interpreter.mapErrors { try executor.allocate() }
    }

    /// The keys of the model's SignatureDefs.
    public var signatureKeys: [String] { model.signatures.map(\.key) }

    /// A runner for the signature `key`, with its own tensors.
    public func signatureRunner(with key: String) throws -> SignatureRunner {
        try SignatureRunner(context: context, key: key)
    }

    func tensorIndex(input index: Int) throws -> Int {
        let ids = executor.subgraph.inputs
        guard index >= 0, index < ids.count else {
            throw InterpreterError.invalidTensorIndex(index: index, maxIndex: ids.count - 1)
        }
        return ids[index]
    }

    static func mapErrors(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as InterpreterError {
            throw error
        } catch let error as ModelError {
            throw InterpreterError.invalidModel(error)
        } catch let error as RuntimeError {
            throw InterpreterError.tensorFlowLiteError(error.description)
        }
    }
}

extension Interpreter {
    /// Options for creating an interpreter.
    public struct Options: Equatable, Hashable, Sendable {
        /// The most threads kernels that split their work may use; nil lets the runtime choose
        /// (today one thread, as TensorFlow Lite's CPU kernels do when no count is given).
        public var threadCount: Int? = nil
        /// Accepted for source compatibility with TensorFlowLiteSwift; OpenMLKit has no delegates.
        public var isXNNPackEnabled: Bool = false

        /// The default options: the runtime's thread count, no XNNPACK request.
        public init() {}

        /// Options with `threadCount` threads (nil: the runtime's choice).
        public init(threadCount: Int?) {
            self.threadCount = threadCount
        }

        var resolvedThreadCount: Int { max(1, min(threadCount ?? 1, 64)) }
    }
}

/// A hardware delegate. Accepted for source compatibility; OpenMLKit executes every operator itself.
public protocol Delegate: AnyObject {}

/// TensorFlowLiteSwift's older name of ``Interpreter/Options``, deprecated there in the same way.
@available(*, deprecated, renamed: "Interpreter.Options")
public typealias InterpreterOptions = Interpreter.Options

import Foundation

/// A kernel for a custom operator, written by the user of the runtime: what TensorFlow Lite's
/// `TfLiteRegistration` (`prepare`, `invoke`) gives C++ users.
///
/// One kernel object is made per node that uses the operator, when the interpreter first allocates
/// tensors. `prepare` runs at `allocateTensors()` and again whenever an input's shape may have
/// changed; it checks the inputs and sets each output's type and shape. `invoke` runs on every
/// `Interpreter.invoke()`. Both run on the thread that calls the interpreter.
///
/// Throw any error to refuse a node: the interpreter reports it as
/// ``InterpreterError/tensorFlowLiteError(_:)`` with the node's index and operator name prefixed.
public protocol CustomOperatorKernel: AnyObject {
    /// Checks the node's inputs and sets every output's type and shape with
    /// ``CustomOperatorContext/setOutput(_:type:shape:)``.
    func prepare(_ context: CustomOperatorContext) throws
    /// Computes the outputs from the inputs.
    func invoke(_ context: CustomOperatorContext) throws
}

/// A custom operator registered with an ``OperatorResolver``: its name in the model (the
/// operator code's `custom_code`), the versions it accepts, and how to make a kernel for a node.
public struct CustomOperator: Sendable {
    /// The `custom_code` the model uses, e.g. `"MyNormalize"`.
    public let name: String
    /// The operator versions this kernel accepts; a node of another version is refused when the
    /// interpreter is created.
    public let versions: ClosedRange<Int>
    /// Makes the kernel for one node, given that node's custom options.
    public let makeKernel: @Sendable (CustomOperatorOptions) throws -> any CustomOperatorKernel

    public init(
        name: String, versions: ClosedRange<Int> = 1...1,
        makeKernel: @escaping @Sendable (CustomOperatorOptions) throws -> any CustomOperatorKernel
    ) {
        self.name = name
        self.versions = versions
        self.makeKernel = makeKernel
    }
}

/// The custom options of one node: the raw bytes, and typed reads of the FlexBuffer map most
/// custom operators store there (TensorFlow Lite's converter and MediaPipe both write one).
///
/// Every read is bounds-checked; a malformed buffer throws, it never traps.
public struct CustomOperatorOptions: Sendable {
    /// The node's custom options bytes (empty when it has none).
    public let data: Data

    public init(data: Data) { self.data = data }

    /// The keys of the FlexBuffer map; throws when the options are not a FlexBuffer map.
    public func keys() throws -> [String] {
        try read { try $0.mapKeys() }
    }

    /// The integer stored under `key`, or nil when the map has no such key.
    public func int(_ key: String) throws -> Int? {
        try read { try $0.value(forKey: key).map { Int(try $0.asInt64()) } }
    }

    /// The number stored under `key` (integers are converted), or nil when absent.
    public func double(_ key: String) throws -> Double? {
        try read { try $0.value(forKey: key).map { try $0.asDouble() } }
    }

    /// The boolean stored under `key`, or nil when absent.
    public func bool(_ key: String) throws -> Bool? {
        try read { try $0.value(forKey: key).map { try $0.asBool() } }
    }

    /// The string stored under `key`, or nil when absent.
    public func string(_ key: String) throws -> String? {
        try read { try $0.value(forKey: key).map { try $0.asString() } }
    }

    /// The vector of integers stored under `key`, or nil when absent.
    public func ints(_ key: String) throws -> [Int]? {
        try read { try $0.value(forKey: key).map { try $0.elements().map { Int(try $0.asInt64()) } } }
    }

    private func read<R>(_ body: (FlexReference) throws -> R) throws -> R {
        try data.withUnsafeBytes { raw in
            try body(try FlexBuffer(bytes: raw, what: "custom options").root())
        }
    }
}

/// What a ``CustomOperatorKernel`` sees of its node while it prepares or runs: its tensors, its
/// options, and how to set output shapes. Valid only during the call it is passed to.
public struct CustomOperatorContext {
    let node: Node

    /// The node's index in its subgraph.
    public var nodeIndex: Int { node.index }
    /// The number of inputs, including omitted optional ones.
    public var inputCount: Int { node.inputs.count }
    /// The number of outputs.
    public var outputCount: Int { node.outputs.count }
    /// The number of threads the interpreter was created with; a kernel may split its work.
    public var threadCount: Int { node.threadCount }
    /// The node's custom options.
    public var options: CustomOperatorOptions {
        CustomOperatorOptions(data: Data(node.customOptions))
    }

    /// Input `index`; nil when the model omits this optional input. Throws when out of range.
    public func input(_ index: Int) throws -> CustomOperatorTensor? {
        guard index >= 0, index < node.inputs.count else {
            throw node.error("input \(index) does not exist (the node has \(node.inputs.count))")
        }
        return node.inputs[index].map { CustomOperatorTensor(tensor: $0, node: node) }
    }

    /// Output `index`. Throws when out of range.
    public func output(_ index: Int) throws -> CustomOperatorTensor {
        CustomOperatorTensor(tensor: try node.output(index), node: node)
    }

    /// Sets output `index`'s element type and shape (in `prepare`).
    public func setOutput(_ index: Int, type: Tensor.DataType, shape: [Int]) throws {
        try node.setOutput(index, type: type.tensorType, shape: shape)
    }

    /// Whether the values of input `index` can be read now: always for constants, and for every
    /// input while the interpreter runs.
    public func knowsValues(ofInput index: Int) throws -> Bool {
        guard let t = try input(index) else { return false }
        return node.knowsValues(of: t.tensor)
    }

    /// Declares that the outputs' shapes depend on input values: `prepare` is called again during
    /// `invoke`, before `invoke`, when every input's values can be read.
    public func markOutputsDynamic() { node.markOutputsDynamic() }
}

/// One tensor of a custom operator's node, as its kernel reads or writes it.
public struct CustomOperatorTensor {
    let tensor: RuntimeTensor
    let node: Node

    /// The tensor's name in the model.
    public var name: String { tensor.name }
    /// The element type; nil for types the public API does not expose (strings, resources).
    public var dataType: Tensor.DataType? { Tensor.DataType(tensor.type) }
    /// The current shape.
    public var shape: [Int] { tensor.shape }
    /// The per-tensor scale and zero point of a quantized tensor.
    public var quantizationParameters: QuantizationParameters? {
        guard let q = tensor.quantization, let scale = q.scales.first else { return nil }
        return QuantizationParameters(scale: scale, zeroPoint: Int(q.zeroPoints.first ?? 0))
    }
    /// Whether the tensor holds constant data from the model.
    public var isConstant: Bool { tensor.isConstant }

    /// Calls `body` with the tensor's bytes. Throws when the tensor has no memory yet (before
    /// `allocateTensors()`, or an output in `prepare`).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        guard tensor.data != nil else { throw node.error("tensor '\(tensor.name)' has no memory yet") }
        return try body(UnsafeRawBufferPointer(tensor.raw))
    }

    /// Calls `body` with the tensor's bytes to write them; only outputs may be written.
    public func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) throws -> R {
        guard node.outputs.contains(where: { $0 === tensor }) else {
            throw node.error("tensor '\(tensor.name)' is an input; only outputs may be written")
        }
        guard tensor.data != nil else { throw node.error("tensor '\(tensor.name)' has no memory yet") }
        return try body(tensor.raw)
    }

    /// The elements as an array of `T`; throws when `T`'s size does not match the element type.
    public func values<T>(as _: T.Type) throws -> [T] {
        guard tensor.type.byteSize == MemoryLayout<T>.stride else {
            throw node.error("tensor '\(tensor.name)' has \(tensor.type.name) elements, not \(T.self)")
        }
        return try withUnsafeBytes { Array($0.bindMemory(to: T.self).prefix(tensor.elementCount)) }
    }

    /// Writes `values` into the output; their count must equal its element count.
    public func write<T>(_ values: [T]) throws {
        guard tensor.type.byteSize == MemoryLayout<T>.stride else {
            throw node.error("tensor '\(tensor.name)' has \(tensor.type.name) elements, not \(T.self)")
        }
        guard values.count == tensor.elementCount else {
            throw node.error("tensor '\(tensor.name)' has \(tensor.elementCount) elements, not \(values.count)")
        }
        try withUnsafeMutableBytes { raw in
            values.withUnsafeBytes { source in
                if let s = source.baseAddress, let d = raw.baseAddress { d.copyMemory(from: s, byteCount: source.count) }
            }
        }
    }
}

/// Runs a user's ``CustomOperatorKernel`` as one of the runtime's kernels.
final class CustomOperatorAdapter: OpKernel {
    let kernel: any CustomOperatorKernel
    let name: String

    init(_ node: Node, _ registration: CustomOperator) throws {
        name = registration.name
        do {
            kernel = try registration.makeKernel(CustomOperatorOptions(data: Data(node.customOptions)))
        } catch {
            throw node.error("could not make the kernel: \(error)")
        }
    }

    func prepare(_ node: Node) throws {
        do { try kernel.prepare(CustomOperatorContext(node: node)) } catch let e as RuntimeError { throw e } catch {
            throw node.error("\(error)")
        }
    }

    func eval(_ node: Node) throws {
        do { try kernel.invoke(CustomOperatorContext(node: node)) } catch let e as RuntimeError { throw e } catch {
            throw node.error("\(error)")
        }
    }
}

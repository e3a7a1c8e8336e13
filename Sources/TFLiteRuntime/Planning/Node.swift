/// A kernel: the implementation of one operator for one node of the graph.
///
/// A kernel object is created once per node (when tensors are first allocated); it may read its
/// options and pack constant weights then. `prepare` runs whenever input shapes may have changed;
/// `eval` runs on every invoke.
protocol OpKernel: AnyObject {
    /// Checks the node's inputs and sets the type and shape of each output.
    ///
    /// When an output's shape depends on values that are not known yet (a non-constant shape
    /// operand), call `node.markOutputsDynamic()` and return; `prepare` is then called again at
    /// run time, when `node.knowsValues(of:)` is true for every input.
    func prepare(_ node: Node) throws
    /// Computes the outputs from the inputs.
    func eval(_ node: Node) throws
    /// For a node prepared on every invoke (its output shapes depend on input values): true when
    /// its last run-time prepare still holds, so the executor need not prepare it again. A
    /// READ_VARIABLE whose variable kept its shape is the case this is for.
    func isStillPrepared(_ node: Node) -> Bool
    /// True when `eval` no longer reads input `index`'s bytes because `prepare` made its own copy
    /// (a convolution's packed constant filter), until `prepare` runs again. The executor may then
    /// free that input if it is a folded constant (see `releasableFold`).
    func holdsOwnCopy(ofInput index: Int) -> Bool
    /// Outputs this kernel computed from constants while preparing (weights dequantized from
    /// float16 or expanded from a sparse layout) that may be freed once every reader holds its own
    /// copy; nil for kernels that fold nothing of the kind.
    var releasableFold: FoldedOutputs? { get }
}

extension OpKernel {
    func isStillPrepared(_ node: Node) -> Bool { false }
    func holdsOwnCopy(ofInput index: Int) -> Bool { false }
    var releasableFold: FoldedOutputs? { nil }
}

/// Creates the kernel for a node; may throw when the node's options are not supported.
typealias KernelFactory = (Node) throws -> OpKernel

/// One operator of a subgraph, with its tensors bound, as kernels see it.
final class Node {
    let index: Int
    let code: OperatorCode
    let inputs: [RuntimeTensor?]
    let outputs: [RuntimeTensor]
    let intermediates: [RuntimeTensor]
    /// The builtin options table, read with bounds checks; nil when the operator has none. Kernels
    /// read it through the typed parameters of Model/BuiltinOptions.swift, never by field number.
    let options: FlatTable?
    /// The second builtin options table (`builtin_options_2`, used by StableHLO operators).
    var options2: FlatTable?
    /// Custom options bytes (FlexBuffer for custom operators); empty when absent.
    let customOptions: UnsafeRawBufferPointer
    let threadCount: Int
    /// Memory for weights the kernel repacks; lives as long as the subgraph's kernels.
    let weightArena: WeightArena
    /// True while the executor runs (values of every input are available).
    var isRunning = false
    /// Set by `prepare` when output shapes can only be known at run time.
    var hasDynamicOutputs = false
    /// The interpreter-wide state: other subgraphs (control flow) and resources (variables).
    weak var context: ExecutionContext?

    init(
        index: Int, code: OperatorCode, inputs: [RuntimeTensor?], outputs: [RuntimeTensor],
        intermediates: [RuntimeTensor], options: FlatTable?, customOptions: UnsafeRawBufferPointer, threadCount: Int,
        weightArena: WeightArena = WeightArena(expectedBytes: 0)
    ) {
        self.index = index
        self.code = code
        self.inputs = inputs
        self.outputs = outputs
        self.intermediates = intermediates
        self.options = options
        self.customOptions = customOptions
        self.threadCount = threadCount
        self.weightArena = weightArena
    }

    var opName: String { code.displayName }

    /// A failure of this node, with its index and operator in the message.
    func error(_ message: String) -> RuntimeError {
        RuntimeError("node \(index) (\(opName)): \(message)")
    }

    var inputCount: Int { inputs.count }

    /// Input `i`; throws when it is missing or omitted.
    func input(_ i: Int) throws -> RuntimeTensor {
        guard i < inputs.count, let t = inputs[i] else { throw error("input \(i) is missing") }
        return t
    }

    /// Input `i` when present (optional operands are marked -1 in the model).
    func optionalInput(_ i: Int) -> RuntimeTensor? {
        i < inputs.count ? inputs[i] : nil
    }

    func output(_ i: Int) throws -> RuntimeTensor {
        guard i < outputs.count else { throw error("output \(i) is missing") }
        return outputs[i]
    }

    /// Throws unless the node has between `min` and `max` inputs and exactly `outputs` outputs.
    func expect(inputs min: Int, _ max: Int? = nil, outputs: Int) throws {
        let upper = max ?? min
        guard inputs.count >= min, inputs.count <= upper else {
            throw error("expects \(min == upper ? "\(min)" : "\(min)...\(upper)") inputs, has \(inputs.count)")
        }
        guard self.outputs.count == outputs else {
            throw error("expects \(outputs) outputs, has \(self.outputs.count)")
        }
    }

    /// Throws unless `tensor` has one of `types`.
    func expect(_ tensor: RuntimeTensor, type types: TensorType..., role: String) throws {
        guard types.contains(tensor.type) else {
            throw error("\(role) has type \(tensor.type.name); supported: \(types.map(\.name).joined(separator: ", "))")
        }
    }

    /// Whether the values of `tensor` can be read now (constants always; others while running).
    func knowsValues(of tensor: RuntimeTensor) -> Bool {
        tensor.isConstant || (isRunning && tensor.data != nil)
    }

    /// Marks every output as sized at run time.
    func markOutputsDynamic() { hasDynamicOutputs = true }

    /// Sets output `i`'s type and shape.
    func setOutput(_ i: Int, type: TensorType, shape: [Int]) throws {
        let t = try output(i)
        var elements = 1
        for d in shape {
            guard d >= 0 else { throw error("output \(i) would have negative dimension in \(shape)") }
            let (p, o) = elements.multipliedReportingOverflow(by: d)
            guard !o, p <= Model.maxTensorBytes else { throw error("output \(i) shape \(shape) is too large") }
            elements = p
        }
        t.type = type
        t.shape = shape
    }
}

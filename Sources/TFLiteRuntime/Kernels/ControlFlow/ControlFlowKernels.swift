/// IF: runs the then- or else-subgraph on inputs 1..., chosen by the boolean (or numeric, non-zero
/// is true) scalar input 0; the outputs are the branch's outputs.
///
/// The branch, and so the output shapes, are only known from the condition's value: the node
/// computes its branch in `prepare` at invoke time (outputs sized then) and `eval` copies the result.
final class IfKernel: OpKernel {
    let parameters: IfParameters
    private var results: [TensorValue] = []

    init(_ node: Node) throws {
        guard node.inputCount >= 1 else { throw node.error("expects a condition input") }
        parameters = try IfParameters(node)
        _ = try node.subgraphExecutor(parameters.thenSubgraph, role: "then")
        _ = try node.subgraphExecutor(parameters.elseSubgraph, role: "else")
    }

    func prepare(_ node: Node) throws {
        guard node.isRunning else { return node.markOutputsDynamic() }
        let condition = try ControlFlow.truth(of: try node.input(0), node)
        let branch = condition ? parameters.thenSubgraph : parameters.elseSubgraph
        let inputs = try (1..<node.inputCount).map { TensorValue(try node.input($0)) }
        results = try node.subgraphExecutor(branch, role: condition ? "then" : "else").call(with: inputs, from: node)
        try node.setOutputs(results)
    }

    func eval(_ node: Node) throws {
        try node.writeOutputs(results)
        results = []
    }
}

/// WHILE: runs the body subgraph on the loop state while the condition subgraph returns true; the
/// state starts as the inputs and the outputs are its final value (shapes may change each turn).
final class WhileKernel: OpKernel {
    let parameters: WhileParameters
    private var results: [TensorValue] = []
    /// A loop that runs this many turns is stopped; `Interpreter.cancel()` stops one sooner.
    static let maximumIterations = 100_000_000

    init(_ node: Node) throws {
        parameters = try WhileParameters(node)
        guard node.inputCount == node.outputs.count else {
            throw node.error("has \(node.inputCount) inputs and \(node.outputs.count) outputs; they must be equal")
        }
        _ = try node.subgraphExecutor(parameters.condSubgraph, role: "condition")
        _ = try node.subgraphExecutor(parameters.bodySubgraph, role: "body")
    }

    func prepare(_ node: Node) throws {
        guard node.isRunning else { return node.markOutputsDynamic() }
        let cond = try node.subgraphExecutor(parameters.condSubgraph, role: "condition")
        let body = try node.subgraphExecutor(parameters.bodySubgraph, role: "body")
        var state = try (0..<node.inputCount).map { TensorValue(try node.input($0)) }
        var turns = 0
        let cancellation = node.context?.cancellation
        while true {
            if let cancellation, cancellation.isRaised { throw RuntimeError.cancelled }
            let verdict = try cond.call(with: state, from: node)
            guard verdict.count == 1 else { throw node.error("condition subgraph returns \(verdict.count) values, not 1") }
            guard try ControlFlow.truth(of: verdict[0], node) else { break }
            let next = try body.call(with: state, from: node)
            guard next.count == state.count else {
                throw node.error("body subgraph returns \(next.count) values for \(state.count) loop variables")
            }
            for (old, new) in zip(state, next) where old.type != new.type {
                throw node.error("body subgraph changes a loop variable from \(old.type.name) to \(new.type.name)")
            }
            state = next
            turns += 1
            guard turns < WhileKernel.maximumIterations else {
                throw node.error("stopped after \(turns) iterations")
            }
        }
        results = state
        try node.setOutputs(results)
    }

    func eval(_ node: Node) throws {
        try node.writeOutputs(results)
        results = []
    }
}

/// CALL_ONCE: runs the initialization subgraph (which assigns the model's variables) the first time
/// the interpreter invokes the node, and never again.
final class CallOnceKernel: OpKernel {
    let parameters: CallOnceParameters

    init(_ node: Node) throws {
        parameters = try CallOnceParameters(node)
        _ = try node.subgraphExecutor(parameters.initSubgraph, role: "initialization")
    }

    func prepare(_ node: Node) throws {
        guard node.outputs.isEmpty else { throw node.error("has outputs; CALL_ONCE has none") }
    }

    /// Set once the subgraph has run: the kernel belongs to one interpreter, whose record of it
    /// never clears, so later invokes need not look (a weak reference and a set lookup per invoke).
    private var done = false

    func eval(_ node: Node) throws {
        if done { return }
        guard let context = node.context else { throw node.error("has no interpreter context") }
        guard !context.initializedSubgraphs.contains(parameters.initSubgraph) else {
            done = true
            return
        }
        let executor = try node.subgraphExecutor(parameters.initSubgraph, role: "initialization")
        guard executor.subgraph.inputs.isEmpty else {
            throw node.error("initialization subgraph \(parameters.initSubgraph) takes inputs")
        }
        _ = try executor.call(with: [], from: node)
        context.initializedSubgraphs.insert(parameters.initSubgraph)
        done = true
    }
}

enum ControlFlow {
    /// The truth of a one-element condition tensor: a bool, or a number that is not zero.
    static func truth(of tensor: RuntimeTensor, _ node: Node) throws -> Bool {
        try truth(of: TensorValue(tensor), node)
    }

    static func truth(of value: TensorValue, _ node: Node) throws -> Bool {
        let count = value.shape.reduce(1, *)
        guard count == 1 else { throw node.error("condition has \(count) elements; it must have one") }
        guard value.type.byteSize > 0, value.bytes.count >= value.type.byteSize else {
            throw node.error("condition of type \(value.type.name) cannot be read as true or false")
        }
        switch value.type {
        case .bool, .uint8, .int8, .int16, .int32, .int64, .uint16, .uint32, .uint64:
            return value.bytes.prefix(value.type.byteSize).contains { $0 != 0 }
        case .float32:
            return value.bytes.withUnsafeBytes { $0.loadUnaligned(as: Float.self) } != 0
        default:
            throw node.error("condition of type \(value.type.name) cannot be read as true or false")
        }
    }
}

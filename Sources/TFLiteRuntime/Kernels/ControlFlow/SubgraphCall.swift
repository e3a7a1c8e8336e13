/// A tensor's value held outside any subgraph: what control-flow operators pass between subgraphs
/// (loop state, branch results) and what a resource variable stores.
struct TensorValue {
    var type: TensorType
    var shape: [Int]
    var bytes: [UInt8]

    /// A copy of `tensor`'s current value.
    init(_ tensor: RuntimeTensor) {
        type = tensor.type
        shape = tensor.shape
        let raw = UnsafeRawBufferPointer(tensor.raw)
        bytes = Array(raw.prefix(tensor.type == .string ? tensor.byteCount : tensor.requiredBytes))
    }

    init(type: TensorType, shape: [Int], bytes: [UInt8]) {
        self.type = type
        self.shape = shape
        self.bytes = bytes
    }

    /// Writes the value into `tensor`, whose type and shape must already match.
    func write(to tensor: RuntimeTensor, _ node: Node, role: String) throws {
        guard tensor.type == type, tensor.shape == shape else {
            throw node.error("\(role) is \(tensor.type.name) \(tensor.shape), the value is \(type.name) \(shape)")
        }
        if type == .string { try tensor.allocateOwned(byteCount: bytes.count) }
        guard tensor.byteCount >= bytes.count, let destination = tensor.data else {
            throw node.error("\(role) has no memory for \(bytes.count) bytes")
        }
        bytes.withUnsafeBytes { source in
            if let s = source.baseAddress, !bytes.isEmpty { destination.copyMemory(from: s, byteCount: bytes.count) }
        }
    }
}

extension SubgraphExecutor {
    /// Runs this subgraph on `inputs` (one value per subgraph input, in order) and returns copies of
    /// its outputs: resizes and re-plans the subgraph only when an input's shape changed.
    func call(with inputs: [TensorValue], from node: Node) throws -> [TensorValue] {
        let graph = subgraph
        guard inputs.count == graph.inputs.count else {
            throw node.error("subgraph \(subgraphIndex) takes \(graph.inputs.count) inputs, the operator passes \(inputs.count)")
        }
        for (value, index) in zip(inputs, graph.inputs) {
            let tensor = tensors[index]
            guard tensor.type == value.type else {
                throw node.error(
                    "subgraph \(subgraphIndex) input '\(tensor.name)' is \(tensor.type.name), the operator passes \(value.type.name)")
            }
            if tensor.shape != value.shape {
                tensor.shape = value.shape
                invalidate()
            }
        }
        if !isAllocated { try allocate() }
        for (i, (value, index)) in zip(inputs, graph.inputs).enumerated() {
            try value.write(to: tensors[index], node, role: "subgraph \(subgraphIndex) input \(i)")
        }
        try invoke()
        return graph.outputs.map { TensorValue(tensors[$0]) }
    }
}

extension Node {
    /// The executor of subgraph `index` of this node's interpreter.
    func subgraphExecutor(_ index: Int, role: String) throws -> SubgraphExecutor {
        guard let context else { throw error("has no interpreter context to run subgraph \(index)") }
        guard index >= 0, index < context.model.subgraphs.count else {
            throw error("\(role) subgraph \(index) does not exist (the model has \(context.model.subgraphs.count))")
        }
        return try context.executor(for: index)
    }

    /// Sets every output from `values` (type and shape) for a prepare that ran at invoke time.
    func setOutputs(_ values: [TensorValue]) throws {
        guard values.count == outputs.count else {
            throw error("produces \(values.count) values for \(outputs.count) outputs")
        }
        for (i, v) in values.enumerated() { try setOutput(i, type: v.type, shape: v.shape) }
    }

    /// Copies `values` into the outputs (after `setOutputs` and allocation).
    func writeOutputs(_ values: [TensorValue]) throws {
        for (i, v) in values.enumerated() { try v.write(to: try output(i), self, role: "output \(i)") }
    }
}

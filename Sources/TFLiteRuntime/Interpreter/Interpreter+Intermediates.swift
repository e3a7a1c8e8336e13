/// The outputs of one operator, right after it ran (see ``Interpreter/invoke(observingNodes:)``).
public struct NodeOutputs: Sendable {
    /// The node's index in the subgraph's operator list.
    public let nodeIndex: Int
    /// The operator's name (`CONV_2D`, or the custom code).
    public let operatorName: String
    /// The model's tensor index of each output, in the operator's output order.
    public let tensorIndices: [Int]
    /// Copies of the output tensors (name, type, shape, data, quantization). Weights folded at
    /// load (a DEQUANTIZE of float16 filters) that the convolutions reading them have packed are
    /// freed after packing, so such outputs come with their type and shape but no data.
    public let tensors: [Tensor]
}

extension Interpreter {
    /// Runs the model like ``invoke()`` and hands every operator's outputs to `body` as soon as the
    /// operator has run, in execution order: LiteRT's `experimental_preserve_all_tensors`, for
    /// finding the first layer where two runtimes part.
    ///
    /// The arena reuses memory between tensors, so the outputs are copied before the next operator
    /// runs; this costs a copy of every intermediate tensor and is meant for debugging.
    ///
    /// - Throws: what ``invoke()`` throws, and the first error `body` throws (after which `body` is
    ///   not called again; the model still runs to the end).
    public func invoke(observingNodes body: (NodeOutputs) throws -> Void) throws {
        let names = executor.nodeNames
        var failure: Error?
        try withoutActuallyEscaping(body) { body in
            try Interpreter.mapErrors {
                try executor.invoke(fused: false) { node, _ in
                    guard failure == nil else { return }
                    do {
                        let outputs = self.executor.nodes[node].outputs
                        let observed = NodeOutputs(
                            nodeIndex: node, operatorName: names[node], tensorIndices: outputs.map(\.index),
                            tensors: try outputs.map { try Tensor($0) })
                        try body(observed)
                    } catch {
                        failure = error
                    }
                }
            }
        }
        if let failure { throw failure }
        hasInvoked = true
    }
}

/// STABLEHLO_CASE: an int32 index (one element) picks one of `StablehloCaseOptions.branch_subgraph_indices`
/// (an index out of range picks the last branch, as LiteRT does); the node's other inputs are the
/// branch's inputs and its outputs the node's. STABLEHLO_COMPOSITE runs its decomposition subgraph
/// (`StableHLOCompositeOptions`) on the node's inputs, which is what LiteRT's inlining computes.
/// Any types the subgraphs take; output shapes are known at run time.
final class StableHLOCallKernel: OpKernel {
    enum Kind { case branches([Int]), composite(Int) }

    let kind: Kind
    private var results: [TensorValue] = []

    init(_ node: Node, caseOperator: Bool) throws {
        if caseOperator {
            let branches = try StablehloCaseParameters(node).branchSubgraphIndices
            guard !branches.isEmpty else { throw node.error("has no branches") }
            for (i, b) in branches.enumerated() { _ = try node.subgraphExecutor(b, role: "branch \(i)") }
            kind = .branches(branches)
        } else {
            let index = try StablehloCompositeParameters(node).decompositionSubgraphIndex
            _ = try node.subgraphExecutor(index, role: "decomposition")
            kind = .composite(index)
        }
    }

    func prepare(_ node: Node) throws {
        guard node.isRunning else { return node.markOutputsDynamic() }
        let subgraph: Int
        let first: Int
        switch kind {
        case .branches(let branches):
            let index = try node.input(0)
            try node.expect(index, type: .int32, role: "branch index")
            let values = try node.elementwiseBuffer(index, Int32.self, role: "branch index")
            guard values.count == 1 else { throw node.error("branch index must have one element") }
            let chosen = Int(values[0])
            subgraph = branches[chosen >= 0 && chosen < branches.count ? chosen : branches.count - 1]
            first = 1
        case .composite(let index):
            subgraph = index
            first = 0
        }
        let inputs = try (first..<node.inputCount).map { TensorValue(try node.input($0)) }
        results = try node.subgraphExecutor(subgraph, role: "called").call(with: inputs, from: node)
        try node.setOutputs(results)
    }

    func eval(_ node: Node) throws {
        try node.writeOutputs(results)
        results = []
    }
}

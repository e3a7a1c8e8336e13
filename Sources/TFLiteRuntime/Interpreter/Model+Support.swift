extension Model {
    /// Names of the operators in this model that this runtime cannot execute (empty when all can).
    public var unsupportedOperators: [String] {
        var names = Set<String>()
        for graph in subgraphs {
            for op in graph.operators {
                let code = operatorCodes[op.opcodeIndex]
                if OpRegistry.factory(for: code) == nil { names.insert(code.displayName) }
            }
        }
        return names.sorted()
    }

    /// "subgraph S node N: operator NAME (version V) is not supported" for the first operator no
    /// kernel of this runtime runs; nil when every one has a kernel.
    var firstUnsupportedOperator: String? {
        for (g, graph) in subgraphs.enumerated() {
            for (n, op) in graph.operators.enumerated() {
                let code = operatorCodes[op.opcodeIndex]
                guard OpRegistry.factory(for: code) == nil else { continue }
                let kind = code.builtin == .custom ? "custom operator" : "operator"
                return "subgraph \(g) node \(n): \(kind) \(code.displayName) (version \(code.version)) is not supported"
            }
        }
        return nil
    }
}

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
}

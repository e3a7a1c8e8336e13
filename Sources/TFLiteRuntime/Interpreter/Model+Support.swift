extension Model {
    /// Names of the operators in this model that this runtime cannot execute (empty when all can).
    public var unsupportedOperators: [String] {
        var names = Set<String>()
        for graph in subgraphs {
            for op in graph.operators {
                let code = operatorCodes[op.opcodeIndex]
                if OpRegistry.versions(for: code) == nil {
                    names.insert(code.displayName)
                } else if OpRegistry.unsupportedReason(code) != nil {
                    names.insert("\(code.displayName) v\(code.version)")
                }
            }
        }
        return names.sorted()
    }

    /// "subgraph S node N: operator NAME (version V) is not supported" for the first operator no
    /// kernel of this runtime runs, or whose version is outside the range it accepts; nil when
    /// every one can run.
    func firstUnsupportedOperator(_ resolver: OperatorResolver = OperatorResolver()) -> String? {
        for (g, graph) in subgraphs.enumerated() {
            for (n, op) in graph.operators.enumerated() {
                let code = operatorCodes[op.opcodeIndex]
                guard let reason = resolver.unsupportedReason(code) else { continue }
                return "subgraph \(g) node \(n): \(reason)"
            }
        }
        return nil
    }
}

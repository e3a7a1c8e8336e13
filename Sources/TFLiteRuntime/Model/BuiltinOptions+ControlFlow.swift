/// IF (`IfOptions`): the subgraphs run when the condition is true or false.
struct IfParameters {
    var thenSubgraph: Int
    var elseSubgraph: Int

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        thenSubgraph = Int(try o.int(0))
        elseSubgraph = Int(try o.int(1))
    }
}

/// WHILE (`WhileOptions`): the condition and body subgraphs.
struct WhileParameters {
    var condSubgraph: Int
    var bodySubgraph: Int

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        condSubgraph = Int(try o.int(0))
        bodySubgraph = Int(try o.int(1))
    }
}

/// CALL_ONCE (`CallOnceOptions`): the subgraph that initializes the model's resources.
struct CallOnceParameters {
    var initSubgraph: Int

    init(_ node: Node) throws {
        initSubgraph = Int(try OptionsReader(node).int(0))
    }
}

/// VAR_HANDLE (`VarHandleOptions`): the variable's container and shared name.
struct VarHandleParameters {
    var container: String
    var sharedName: String

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        container = try o.string(0) ?? ""
        sharedName = try o.string(1) ?? ""
    }
}

/// HASHTABLE (`HashtableOptions`): the table's id and its key and value types.
struct HashtableParameters {
    var tableID: Int32
    var keyType: TensorType
    var valueType: TensorType

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        tableID = try o.int(0)
        let key = try o.byte(1), value = try o.byte(2)
        guard let k = TensorType(rawValue: key), let v = TensorType(rawValue: value) else {
            throw node.error("unknown key or value type \(key), \(value)")
        }
        keyType = k
        valueType = v
    }
}

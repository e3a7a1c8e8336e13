/// HASHTABLE, HASHTABLE_IMPORT, HASHTABLE_FIND and HASHTABLE_SIZE: the static lookup tables
/// TensorFlow's `tf.lookup.StaticHashTable` converts to. Keys are int64 or strings, values int64 or
/// strings. A table lives as long as the interpreter (a resource, like a variable); HASHTABLE
/// outputs its handle (the table id), the initialization subgraph (CALL_ONCE) imports the pairs,
/// and FIND looks keys up, giving the default value for a key the table does not hold.
final class HashtableKernel: OpKernel {
    let parameters: HashtableParameters

    init(_ node: Node) throws {
        try node.expect(inputs: 0, outputs: 1)
        parameters = try HashtableParameters(node)
        for (type, role) in [(parameters.keyType, "key"), (parameters.valueType, "value")]
        where type != .int64 && type != .string {
            throw node.error("\(role) type \(type.name) is not supported (int64 or string)")
        }
    }

    func prepare(_ node: Node) throws {
        try node.setOutput(0, type: .resource, shape: [])
    }

    func eval(_ node: Node) throws {
        guard let context = node.context else { throw node.error("has no interpreter context") }
        let id = parameters.tableID
        if let existing = context.resources.tables[id] {
            guard existing.keyType == parameters.keyType, existing.valueType == parameters.valueType else {
                throw node.error("table \(id) exists with other key or value types")
            }
        } else {
            context.resources.tables[id] = ResourceStore.HashTable(keyType: parameters.keyType, valueType: parameters.valueType)
        }
        let y = try node.output(0)
        guard let data = y.data, y.byteCount >= 4 else { throw node.error("output has no memory") }
        data.storeBytes(of: id, as: Int32.self)
    }
}

/// HASHTABLE_IMPORT: inserts keys (input 1) and values (input 2) into the table (input 0). As in
/// LiteRT's static table, a table is filled once: later imports leave it as it is.
final class HashtableImportKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 3, outputs: 0) }

    func prepare(_ node: Node) throws {
        let keys = try node.input(1), values = try node.input(2)
        guard keys.elementCount == values.elementCount else {
            throw node.error("\(keys.elementCount) keys for \(values.elementCount) values")
        }
    }

    func eval(_ node: Node) throws {
        guard let context = node.context else { throw node.error("has no interpreter context") }
        let id = try Variables.id(try node.input(0), node)
        guard var table = context.resources.tables[id] else { throw node.error("table \(id) does not exist") }
        guard table.entries.isEmpty else { return }
        let keys = try Hashtables.keys(try node.input(1), type: table.keyType, node)
        let values = try Hashtables.values(try node.input(2), type: table.valueType, node)
        guard keys.count == values.count else { throw node.error("\(keys.count) keys for \(values.count) values") }
        for (k, v) in zip(keys, values) where table.entries[k] == nil { table.entries[k] = v }
        context.resources.tables[id] = table
    }
}

/// HASHTABLE_FIND: the value of each key of input 1 in the table (input 0), or input 2 (a scalar
/// default) for a missing key; the output has the keys' shape and the table's value type.
final class HashtableFindKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 3, outputs: 1) }

    func prepare(_ node: Node) throws {
        let keys = try node.input(1), fallback = try node.input(2)
        guard fallback.type == .int64 || fallback.type == .string else {
            throw node.error("default value has type \(fallback.type.name) (int64 or string)")
        }
        try node.setOutput(0, type: fallback.type, shape: keys.shape)
    }

    func eval(_ node: Node) throws {
        guard let context = node.context else { throw node.error("has no interpreter context") }
        let id = try Variables.id(try node.input(0), node)
        guard let table = context.resources.tables[id] else { throw node.error("table \(id) does not exist") }
        let keys = try Hashtables.keys(try node.input(1), type: table.keyType, node)
        let defaults = try Hashtables.values(try node.input(2), type: table.valueType, node)
        guard let fallback = defaults.first else { throw node.error("default value is empty") }
        let found = keys.map { table.entries[$0] ?? fallback }
        let y = try node.output(0)
        switch table.valueType {
        case .int64:
            let out = y.buffer(Int64.self)
            guard out.count == found.count else { throw node.error("output has \(out.count) elements for \(found.count)") }
            for (i, v) in found.enumerated() { if case .int(let x) = v { out[i] = x } }
        default:
            try y.setStrings(found.map { if case .bytes(let b) = $0 { return b } else { return [] } })
        }
    }
}

/// HASHTABLE_SIZE: the number of entries of the table (input 0), as int64 of shape [1].
final class HashtableSizeKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 1, outputs: 1) }

    func prepare(_ node: Node) throws { try node.setOutput(0, type: .int64, shape: [1]) }

    func eval(_ node: Node) throws {
        guard let context = node.context else { throw node.error("has no interpreter context") }
        let id = try Variables.id(try node.input(0), node)
        guard let table = context.resources.tables[id] else { throw node.error("table \(id) does not exist") }
        let out = try node.output(0).buffer(Int64.self)
        guard out.count == 1 else { throw node.error("output has no memory") }
        out[0] = Int64(table.entries.count)
    }
}

enum Hashtables {
    static func keys(_ t: RuntimeTensor, type: TensorType, _ node: Node) throws -> [ResourceStore.HashTable.Key] {
        guard t.type == type else { throw node.error("keys are \(t.type.name); the table's keys are \(type.name)") }
        if type == .string { return try t.strings("keys").map { .bytes($0) } }
        return Array(t.buffer(Int64.self)).map { .int($0) }
    }

    static func values(_ t: RuntimeTensor, type: TensorType, _ node: Node) throws -> [ResourceStore.HashTable.Value] {
        guard t.type == type else { throw node.error("values are \(t.type.name); the table's values are \(type.name)") }
        if type == .string { return try t.strings("values").map { .bytes($0) } }
        return Array(t.buffer(Int64.self)).map { .int($0) }
    }
}

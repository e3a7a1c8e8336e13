/// The resources of one interpreter: resource variables (VAR_HANDLE, READ_VARIABLE,
/// ASSIGN_VARIABLE) and hash tables, each under the int32 id that its handle tensor holds.
struct ResourceStore {
    /// Ids by (container, shared name): the same name always gives the same resource, in every
    /// subgraph, as in LiteRT.
    private var ids: [String: Int32] = [:]
    /// A hash table's contents: keys (int64 or strings as bytes) to values (int64 or strings).
    struct HashTable {
        enum Key: Hashable { case int(Int64), bytes([UInt8]) }
        enum Value { case int(Int64), bytes([UInt8]) }
        let keyType: TensorType
        let valueType: TensorType
        var entries: [Key: Value] = [:]
    }

    /// Hash tables by their table id (HASHTABLE's `table_id`).
    var tables: [Int32: HashTable] = [:]
    /// Resource variables, by id.
    private var variables: [Int32: ResourceVariable] = [:]

    /// The variable with id `id`, made (unassigned) on first use.
    mutating func variable(_ id: Int32) -> ResourceVariable {
        if let existing = variables[id] { return existing }
        let made = ResourceVariable()
        variables[id] = made
        return made
    }

    /// The id of the resource named `container`/`sharedName`, made on first use.
    mutating func id(container: String, sharedName: String) -> Int32 {
        let key = container + "\u{0}" + sharedName
        if let id = ids[key] { return id }
        let id = Int32(ids.count)
        ids[key] = id
        return id
    }
}

/// The resources of one interpreter: resource variables (VAR_HANDLE, READ_VARIABLE,
/// ASSIGN_VARIABLE) and hash tables, each under the int32 id that its handle tensor holds.
struct ResourceStore {
    /// Ids by (container, shared name): the same name always gives the same resource, in every
    /// subgraph, as in LiteRT.
    private var ids: [String: Int32] = [:]
    /// Resource variables' current values.
    var variables: [Int32: TensorValue] = [:]

    /// The id of the resource named `container`/`sharedName`, made on first use.
    mutating func id(container: String, sharedName: String) -> Int32 {
        let key = container + "\u{0}" + sharedName
        if let id = ids[key] { return id }
        let id = Int32(ids.count)
        ids[key] = id
        return id
    }
}

/// Bounds-checked reads of one node's options table, for the typed parameter structs of
/// `BuiltinOptions*.swift` only (kernels never call it).
struct OptionsReader {
    let node: Node
    /// The table read: the node's options, or its second options table (`builtin_options_2`).
    private let table: FlatTable?

    init(_ node: Node) {
        self.node = node
        table = node.options
    }

    /// A reader of the node's `builtin_options_2` table (StableHLO operators keep options there).
    init(second node: Node) {
        self.node = node
        table = node.options2
    }

    func int(_ field: Int, _ defaultValue: Int32 = 0) throws -> Int32 {
        try table?.int32(field, defaultValue) ?? defaultValue
    }
    func int64(_ field: Int, _ defaultValue: Int64 = 0) throws -> Int64 {
        try table?.int64(field, defaultValue) ?? defaultValue
    }
    func byte(_ field: Int, _ defaultValue: Int8 = 0) throws -> Int8 {
        try table?.int8(field, defaultValue) ?? defaultValue
    }
    func bool(_ field: Int, _ defaultValue: Bool = false) throws -> Bool {
        try table?.bool(field, defaultValue) ?? defaultValue
    }
    func float(_ field: Int, _ defaultValue: Float = 0) throws -> Float {
        try table?.float(field, defaultValue) ?? defaultValue
    }
    func ints(_ field: Int) throws -> [Int]? {
        try table?.int32Vector(field)?.map(Int.init)
    }
    func string(_ field: Int) throws -> String? {
        try table?.string(field)
    }
    func has(_ field: Int) -> Bool { table?.has(field) ?? false }
    /// An int64 vector read as `Int`s (StableHLO options).
    func longs(_ field: Int) throws -> [Int]? {
        try table?.scalarVector(field, as: Int64.self)?.map { Int(truncatingIfNeeded: $0) }
    }
    func floats(_ field: Int) throws -> [Float]? {
        try table?.floatVector(field)
    }

    func padding(_ field: Int) throws -> PaddingScheme {
        let raw = try byte(field)
        guard let value = PaddingScheme(rawValue: raw) else { throw node.error("unknown padding \(raw)") }
        return value
    }

    func activation(_ field: Int) throws -> FusedActivation {
        let raw = try byte(field)
        guard let value = FusedActivation(rawValue: raw) else { throw node.error("unknown fused activation \(raw)") }
        return value
    }
}

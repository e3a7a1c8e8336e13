/// CUMSUM (`CumsumOptions`): field 0 exclusive, field 1 reverse.
struct CumsumParameters {
    var exclusive: Bool
    var reverse: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        exclusive = try o.bool(0)
        reverse = try o.bool(1)
    }
}

/// ONE_HOT (`OneHotOptions`): field 0 axis (default 0; -1 appends the new axis last).
struct OneHotParameters {
    var axis: Int

    init(_ node: Node) throws { axis = Int(try OptionsReader(node).int(0)) }
}

/// REVERSE_SEQUENCE (`ReverseSequenceOptions`): field 0 seq_dim, field 1 batch_dim.
struct ReverseSequenceParameters {
    var seqDim: Int
    var batchDim: Int

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        seqDim = Int(try o.int(0))
        batchDim = Int(try o.int(1))
    }
}

/// UNIQUE (`UniqueOptions`): field 0 idx_out_type as a raw `TensorType` (default INT32).
struct UniqueParameters {
    var indexType: Int8

    init(_ node: Node) throws { indexType = try OptionsReader(node).byte(0, Int8(TensorType.int32.rawValue)) }
}

/// BUCKETIZE (`BucketizeOptions`): field 0 boundaries (float vector, ascending).
struct BucketizeParameters {
    var boundaries: [Float]

    init(_ node: Node) throws { boundaries = try OptionsReader(node).floats(0) ?? [] }
}

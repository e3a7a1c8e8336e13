/// Options of the miscellaneous operators (complex parts, FAKE_QUANT, the classic text and
/// embedding operators, random sampling), read once when their kernels are made.

/// FAKE_QUANT (`FakeQuantOptions`).
struct FakeQuantParameters {
    var min: Float
    var max: Float
    var numBits: Int
    var narrowRange: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        min = try o.float(0)
        max = try o.float(1)
        numBits = Int(try o.int(2))
        narrowRange = try o.bool(3)
    }
}

/// LSH_PROJECTION (`LSHProjectionOptions`): 1 sparse (one signature per hash function), 2 dense
/// (one bit per seed); 0 is UNKNOWN.
struct LSHProjectionParameters {
    var projection: Int8

    init(_ node: Node) throws {
        projection = try OptionsReader(node).byte(0)
    }
}

/// SKIP_GRAM (`SkipGramOptions`).
struct SkipGramParameters {
    var ngramSize: Int
    var maxSkipSize: Int
    var includeAllNgrams: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        ngramSize = Int(try o.int(0))
        maxSkipSize = Int(try o.int(1))
        includeAllNgrams = try o.bool(2)
    }
}

/// EMBEDDING_LOOKUP_SPARSE (`EmbeddingLookupSparseOptions`): combiner 0 SUM, 1 MEAN, 2 SQRTN.
struct EmbeddingLookupSparseParameters {
    var combiner: Int8

    init(_ node: Node) throws {
        combiner = try OptionsReader(node).byte(0)
    }
}

/// RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL (`RandomOptions`, int64 seeds).
struct RandomParameters {
    var seed: Int64
    var seed2: Int64

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        seed = try o.int64(0)
        seed2 = try o.int64(1)
    }
}

/// Options of the StableHLO operators, DILATE and REDUCE_WINDOW. Except REDUCE_WINDOW's
/// `ReduceWindowOptions`, they sit in the operator's second options union (`builtin_options_2`),
/// read with `OptionsReader(second:)`. Field numbers are the schema's.

/// STABLEHLO_PAD (`StablehloPadOptions`): per dimension, padding before and after (negative values
/// crop) and between elements.
struct StablehloPadParameters {
    var edgePaddingLow: [Int]
    var edgePaddingHigh: [Int]
    var interiorPadding: [Int]

    init(_ node: Node) throws {
        let o = OptionsReader(second: node)
        edgePaddingLow = try o.longs(0) ?? []
        edgePaddingHigh = try o.longs(1) ?? []
        interiorPadding = try o.longs(2) ?? []
    }
}

/// STABLEHLO_GATHER (`StablehloGatherOptions`).
struct StablehloGatherParameters {
    var offsetDims: [Int]
    var collapsedSliceDims: [Int]
    var startIndexMap: [Int]
    var indexVectorDim: Int
    var sliceSizes: [Int]
    var indicesAreSorted: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(second: node)
        offsetDims = try o.longs(0) ?? []
        collapsedSliceDims = try o.longs(1) ?? []
        startIndexMap = try o.longs(2) ?? []
        indexVectorDim = Int(truncatingIfNeeded: try o.int64(3))
        sliceSizes = try o.longs(4) ?? []
        indicesAreSorted = try o.bool(5)
    }
}

/// STABLEHLO_SCATTER (`StablehloScatterOptions`).
struct StablehloScatterParameters {
    var indicesAreSorted: Bool
    var updateWindowDims: [Int]
    var insertedWindowDims: [Int]
    var scatterDimsToOperandDims: [Int]
    var indexVectorDim: Int
    var uniqueIndices: Bool
    var updateComputationSubgraphIndex: Int

    init(_ node: Node) throws {
        let o = OptionsReader(second: node)
        indicesAreSorted = try o.bool(0)
        updateWindowDims = try o.longs(1) ?? []
        insertedWindowDims = try o.longs(2) ?? []
        scatterDimsToOperandDims = try o.longs(3) ?? []
        indexVectorDim = Int(truncatingIfNeeded: try o.int64(4))
        uniqueIndices = try o.bool(5)
        updateComputationSubgraphIndex = Int(try o.int(6))
    }
}

/// STABLEHLO_REDUCE_WINDOW (`StablehloReduceWindowOptions`); `padding` holds (low, high) pairs.
struct StablehloReduceWindowParameters {
    var windowDimensions: [Int]
    var windowStrides: [Int]
    var baseDilations: [Int]
    var windowDilations: [Int]
    var padding: [Int]
    var bodySubgraphIndex: Int

    init(_ node: Node) throws {
        let o = OptionsReader(second: node)
        windowDimensions = try o.longs(0) ?? []
        windowStrides = try o.longs(1) ?? []
        baseDilations = try o.longs(2) ?? []
        windowDilations = try o.longs(3) ?? []
        padding = try o.longs(4) ?? []
        bodySubgraphIndex = Int(try o.int(5))
    }
}

/// REDUCE_WINDOW (`ReduceWindowOptions`, in `builtin_options_2` like the StableHLO tables).
struct ReduceWindowParameters {
    /// The schema's `ReduceWindowFunction`: 1 ADD, 2 MUL, 3 MINIMUM, 4 MAXIMUM, 5 ALL, 6 ANY.
    var reduceFunction: Int

    init(_ node: Node) throws {
        reduceFunction = Int(try OptionsReader(second: node).int(0))
    }
}

/// STABLEHLO_CASE (`StablehloCaseOptions`).
struct StablehloCaseParameters {
    var branchSubgraphIndices: [Int]

    init(_ node: Node) throws {
        branchSubgraphIndices = try OptionsReader(second: node).ints(0) ?? []
    }
}

/// STABLEHLO_COMPOSITE (`StableHLOCompositeOptions`): the decomposition subgraph runs the operator.
struct StablehloCompositeParameters {
    var name: String
    var decompositionSubgraphIndex: Int
    var version: Int

    init(_ node: Node) throws {
        let o = OptionsReader(second: node)
        name = try o.string(0) ?? ""
        decompositionSubgraphIndex = Int(try o.int(1))
        version = Int(try o.int(4))
    }
}

/// STABLEHLO_RNG_BIT_GENERATOR (`StablehloRngBitGeneratorOptions`): 0 DEFAULT, 1 PHILOX, 2 THREEFRY.
struct StablehloRngBitGeneratorParameters {
    var algorithm: Int

    init(_ node: Node) throws {
        algorithm = Int(try OptionsReader(second: node).byte(0))
    }
}

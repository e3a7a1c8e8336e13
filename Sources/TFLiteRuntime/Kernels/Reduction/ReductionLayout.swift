/// The axes a reduction folds, resolved against an input shape, with the input's dimensions merged
/// into alternating runs of kept and reduced ones.
///
/// `[2, 3, 4, 5]` reduced over axes `[2, 3]` becomes one kept dimension of 6 and one reduced of 20;
/// kernels then walk the input once, in memory order, with a tight loop over the innermost run.
struct ReductionLayout {
    /// The output shape (reduced axes removed, or kept as 1 with `keepDims`).
    let outputShape: [Int]
    let outputCount: Int
    let inputCount: Int
    /// Input elements folded into each output element.
    let reducedCount: Int
    /// Merged input dimensions, outermost first (at least one).
    let dims: [Int]
    /// Whether each merged dimension is reduced.
    let reduced: [Bool]
    /// Element strides of the (contiguous) input per merged dimension.
    let inputStrides: [Int]
    /// Element strides of the output per merged dimension; 0 on reduced ones.
    let outputStrides: [Int]

    /// Resolves `axes` (negative ones count from the end; repeats allowed) against `shape`.
    ///
    /// A scalar input reduces to itself whatever the axes, as in LiteRT. Throws `node.error` for an
    /// axis out of range.
    init(_ node: Node, shape: [Int], axes: [Int], keepDims: Bool) throws {
        let rank = shape.count
        var isReduced = [Bool](repeating: false, count: rank)
        if rank > 0 {
            for a in axes {
                guard a >= -rank, a < rank else {
                    throw node.error("axis \(a) is out of range for input of rank \(rank)")
                }
                isReduced[a < 0 ? a + rank : a] = true
            }
        }
        var out = [Int]()
        for i in 0..<rank where !isReduced[i] || keepDims {
            out.append(isReduced[i] ? 1 : shape[i])
        }
        outputShape = out
        outputCount = out.reduce(1, *)
        inputCount = shape.reduce(1, *)
        var folded = 1
        for i in 0..<rank where isReduced[i] { folded *= shape[i] }
        reducedCount = folded

        // Dimensions of size 1 do not affect the memory order; drop them, merge neighbours alike.
        var merged: [(size: Int, reduced: Bool)] = []
        for i in 0..<rank where shape[i] != 1 {
            if let last = merged.last, last.reduced == isReduced[i] {
                merged[merged.count - 1].size = last.size * shape[i]
            } else {
                merged.append((shape[i], isReduced[i]))
            }
        }
        if merged.isEmpty { merged = [(1, false)] }
        dims = merged.map(\.size)
        reduced = merged.map(\.reduced)
        var inS = [Int](repeating: 0, count: merged.count)
        var outS = inS
        var inStep = 1
        var outStep = 1
        for i in stride(from: merged.count - 1, through: 0, by: -1) {
            inS[i] = inStep
            inStep *= merged[i].size
            if !merged[i].reduced {
                outS[i] = outStep
                outStep *= merged[i].size
            }
        }
        inputStrides = inS
        outputStrides = outS
    }

    /// The outermost kept merged dimension: splitting it over threads gives each worker its own
    /// outputs. Nil for a reduction to a single value.
    var splitDimension: Int? { reduced.firstIndex(of: false) }
}

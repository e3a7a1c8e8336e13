/// How two operands broadcast to one output (NumPy rules), reduced to the fewest dimensions.
///
/// Adjacent dimensions in which each operand either runs fully or is broadcast in the same way are
/// merged, so `[8, 16, 16, 32] + [32]` becomes `[2048, 32]` with the second operand's outer stride 0.
/// Kernels then run a tight inner loop over the last merged dimension and step the outer ones with
/// an odometer. The plan is computed in `prepare` and holds no memory of the tensors.
struct BroadcastPlan {
    /// The shapes of the two operands work on element-for-element.
    enum Kind {
        /// Both operands have every element of the output (same element count, no broadcast).
        case elementwise
        /// The first operand is a single value.
        case scalarA
        /// The second operand is a single value.
        case scalarB
        /// Anything else: walk `dims` with `aStrides` and `bStrides`.
        case general
    }

    /// The broadcast output shape, as the model sees it.
    let outputShape: [Int]
    let outputCount: Int
    let kind: Kind
    /// Merged output dimensions, outermost first (at least one).
    let dims: [Int]
    /// Element strides of each operand per merged dimension; 0 where it is broadcast.
    let aStrides: [Int]
    let bStrides: [Int]

    /// The plan for operands of shapes `a` and `b`; nil when they cannot broadcast, or when the
    /// broadcast shape has more elements than `Int` counts (two large operands can multiply up).
    init?(_ a: [Int], _ b: [Int]) {
        guard let out = broadcastShape(a, b) else { return nil }
        var count = 1
        for d in out {
            let (product, overflow) = count.multipliedReportingOverflow(by: d)
            guard !overflow else { return nil }
            count = product
        }
        outputShape = out
        outputCount = count
        let aCount = a.reduce(1, *)
        let bCount = b.reduce(1, *)
        if aCount == outputCount && bCount == outputCount {
            kind = .elementwise
        } else if aCount == 1 {
            kind = .scalarA
        } else if bCount == 1 {
            kind = .scalarB
        } else {
            kind = .general
        }

        // Per output dimension: does each operand run along it (true) or stay put (false)?
        let rank = out.count
        var merged: [(size: Int, aRuns: Bool, bRuns: Bool)] = []
        for i in 0..<rank {
            let size = out[i]
            if size == 1 { continue }
            let da = i < rank - a.count ? 1 : a[i - (rank - a.count)]
            let db = i < rank - b.count ? 1 : b[i - (rank - b.count)]
            let aRuns = da != 1
            let bRuns = db != 1
            if let last = merged.last, last.aRuns == aRuns, last.bRuns == bRuns {
                merged[merged.count - 1].size = last.size * size
            } else {
                merged.append((size, aRuns, bRuns))
            }
        }
        if merged.isEmpty { merged = [(1, true, true)] }

        dims = merged.map(\.size)
        var aS = [Int](repeating: 0, count: merged.count)
        var bS = [Int](repeating: 0, count: merged.count)
        var aStep = 1
        var bStep = 1
        for i in stride(from: merged.count - 1, through: 0, by: -1) {
            if merged[i].aRuns {
                aS[i] = aStep
                aStep *= merged[i].size
            }
            if merged[i].bRuns {
                bS[i] = bStep
                bStep *= merged[i].size
            }
        }
        aStrides = aS
        bStrides = bS
    }

    /// Length of the innermost merged dimension: the run each inner loop covers.
    var innerCount: Int { dims[dims.count - 1] }

    /// Number of inner runs (rows) in the output.
    var rowCount: Int { innerCount == 0 ? 0 : outputCount / innerCount }

    /// Calls `body(row, aOffset, bOffset)` for each row in `rows`, where the offsets are the element
    /// positions of the row's first value in each operand. Rows of the output are contiguous, so the
    /// output offset is `row * innerCount`.
    ///
    /// Allocation-free: the odometer lives in a temporary stack buffer.
    @inline(__always)
    func forEachRow(in rows: Range<Int>, _ body: (_ row: Int, _ aOffset: Int, _ bOffset: Int) -> Void) {
        let outer = dims.count - 1
        if outer == 0 {
            for r in rows { body(r, 0, 0) }
            return
        }
        dims.withUnsafeBufferPointer { dims in
            aStrides.withUnsafeBufferPointer { aStrides in
                bStrides.withUnsafeBufferPointer { bStrides in
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: outer) { index in
                        // Decompose the first row into outer indices once; then step like an odometer.
                        var rest = rows.lowerBound
                        var aOffset = 0
                        var bOffset = 0
                        for d in stride(from: outer - 1, through: 0, by: -1) {
                            let i = rest % dims[d]
                            rest /= dims[d]
                            index[d] = i
                            aOffset += i * aStrides[d]
                            bOffset += i * bStrides[d]
                        }
                        for r in rows {
                            body(r, aOffset, bOffset)
                            var d = outer - 1
                            while d >= 0 {
                                index[d] += 1
                                aOffset += aStrides[d]
                                bOffset += bStrides[d]
                                if index[d] < dims[d] { break }
                                aOffset -= dims[d] * aStrides[d]
                                bOffset -= dims[d] * bStrides[d]
                                index[d] = 0
                                d -= 1
                            }
                        }
                    }
                }
            }
        }
    }
}

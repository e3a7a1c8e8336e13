extension ReductionLayout {
    /// Folds the input into the output with `reducer`: every output element starts at the identity
    /// and takes in the input elements that reduce onto it, in memory order.
    ///
    /// The input is read once, in order. Work is split over threads along the outermost kept
    /// dimension (each worker owns its outputs); a reduction to one value is split into partial
    /// folds that are merged at the end.
    func fold<R: Reducer>(
        _ reducer: R, _ input: UnsafePointer<R.Element>?, _ output: UnsafeMutableBufferPointer<R.Accumulator>,
        threads: Int
    ) {
        guard inputCount > 0, let x = input, let y = output.baseAddress else {
            output.initialize(repeating: reducer.emptyValue)
            return
        }
        output.initialize(repeating: reducer.identity)
        // Elements per thread below which splitting costs more than it saves.
        let minimumWork = 32768

        guard let split = splitDimension else {
            // Everything folds into y[0]: the merged input is one contiguous reduced run.
            let chunks = min(max(threads, 1), max(1, inputCount / minimumWork))
            if chunks == 1 {
                y[0] = ReductionLayout.foldRun(reducer, reducer.identity, x, inputCount)
                return
            }
            withUnsafeTemporaryAllocation(of: R.Accumulator.self, capacity: chunks) { partial in
                guard let p = partial.baseAddress else { return }
                parallelFor(chunks, threads: chunks) { range in
                    for c in range {
                        let lo = inputCount * c / chunks
                        let hi = inputCount * (c + 1) / chunks
                        (p + c).initialize(to: ReductionLayout.foldRun(reducer, reducer.identity, x + lo, hi - lo))
                    }
                }
                var total = p[0]
                for c in 1..<chunks { total = reducer.merge(total, p[c]) }
                y[0] = total
            }
            return
        }

        if R.mergesExactly, threads > 1, dims.count == 2, reduced[0], !reduced[1] {
            // [rows, n] folded to [n]: splitting the n outputs leaves every thread walking every row
            // (a per-row cost that does not shrink: MEAN over H and W with 72 to 960 channels was no
            // faster on two threads). Row ranges fold into their own partial outputs instead, merged
            // in order at the end, which integer sums and maxima allow exactly.
            let n = dims[1], rows = dims[0]
            let chunks = min(rows, threads * 4, inputCount / (minimumWork / 4))
            if chunks > 1 {
                ReductionLayout.foldRowRanges(reducer, x, y, rows: rows, n: n, chunks: chunks, threads: threads)
                return
            }
        }
        dims.withUnsafeBufferPointer { dims in
            reduced.withUnsafeBufferPointer { reduced in
                inputStrides.withUnsafeBufferPointer { inS in
                    outputStrides.withUnsafeBufferPointer { outS in
                        let last = dims.count - 1
                        // Visits dimension `d` over `range`, the input and output positions at its start.
                        func walk(_ d: Int, _ range: Range<Int>, _ xo: Int, _ yo: Int) {
                            if d == last {
                                if reduced[d] {
                                    y[yo] = ReductionLayout.foldRun(
                                        reducer, y[yo], x + xo + range.lowerBound, range.count)
                                } else {
                                    // Kept innermost run: one output per input element (inner strides are 1).
                                    ReductionLayout.foldRow(
                                        reducer, y + yo + range.lowerBound, x + xo + range.lowerBound, range.count)
                                }
                                return
                            }
                            for i in range {
                                walk(d + 1, 0..<dims[d + 1], xo + i * inS[d], yo + i * outS[d])
                            }
                        }
                        // Walks everything, restricting only the split dimension to `part`.
                        func walkPart(_ d: Int, _ part: Range<Int>, _ xo: Int, _ yo: Int) {
                            if d == split {
                                walk(d, part, xo, yo)
                                return
                            }
                            for i in 0..<dims[d] {
                                walkPart(d + 1, part, xo + i * inS[d], yo + i * outS[d])
                            }
                        }
                        // A kept innermost dimension is split in blocks of whole cache lines: threads
                        // that fold every input row into neighbouring outputs would otherwise write
                        // the same lines over and over (MEAN over H and W of a [1, H, W, C] tensor ran
                        // 7x slower on two threads than on one). The blocks start at a line boundary
                        // of the output's actual address, not at a multiple of 64 elements from its
                        // start (an array's elements start 32 bytes into its allocation, so that split
                        // left one line written by both threads for every input row).
                        let n = dims[split]
                        let unit = split == last ? 64 : 1
                        let head = split == last ? ReductionLayout.elementsToLineBoundary(y) : 0
                        let units = n > head ? max(1, (n - head + unit - 1) / unit) : 1
                        func start(_ u: Int) -> Int { u == 0 ? 0 : u == units ? n : min(n, head + u * unit) }
                        let perUnit = max(1, inputCount / max(n, 1)) * unit
                        parallelFor(units, threads: threads, minimumPerThread: max(1, minimumWork / perUnit)) {
                            part in
                            walkPart(0, start(part.lowerBound)..<start(part.upperBound), 0, 0)
                        }
                    }
                }
            }
        }
    }

    /// Folds `rows` rows of `n` elements into `y[0..<n]`: `chunks` row ranges, each into its own
    /// partial outputs (on up to `threads` threads), then merged into `y` in range order.
    static func foldRowRanges<R: Reducer>(
        _ reducer: R, _ x: UnsafePointer<R.Element>, _ y: UnsafeMutablePointer<R.Accumulator>, rows: Int, n: Int,
        chunks: Int, threads: Int
    ) {
        withUnsafeTemporaryAllocation(of: R.Accumulator.self, capacity: chunks * n) { partial in
            guard let p = partial.baseAddress else { return }
            parallelFor(chunks, threads: threads) { range in
                for c in range {
                    let acc = p + c * n
                    acc.initialize(repeating: reducer.identity, count: n)
                    for r in (rows * c / chunks)..<(rows * (c + 1) / chunks) {
                        foldRow(reducer, acc, x + r * n, n)
                    }
                }
            }
            for c in 0..<chunks {
                let acc = p + c * n
                for i in 0..<n { y[i] = reducer.merge(y[i], acc[i]) }
            }
        }
    }

    /// Elements of `T` from `pointer` to the next 64-byte line boundary (0 when `T`'s stride does not
    /// divide 64, where no split lines up with lines anyway).
    static func elementsToLineBoundary<T>(_ pointer: UnsafeMutablePointer<T>) -> Int {
        let stride = MemoryLayout<T>.stride
        guard stride > 0, 64 % stride == 0 else { return 0 }
        let bytes = (64 - Int(bitPattern: UInt(bitPattern: pointer)) % 64) % 64
        return bytes % stride == 0 ? bytes / stride : 0
    }

    /// Folds each of `count` contiguous elements into its own output: `y[i] = reducer(y[i], x[i])`.
    ///
    /// Out of line on purpose, so the loop vectorizer sees it alone (inlined into the recursive
    /// walk it stayed scalar).
    @inline(never)
    static func foldRow<R: Reducer>(
        _ reducer: R, _ y: UnsafeMutablePointer<R.Accumulator>, _ x: UnsafePointer<R.Element>, _ count: Int
    ) {
        for i in 0..<count { y[i] = reducer(y[i], x[i]) }
    }

    /// Folds `count` contiguous elements into `start`.
    @inline(__always)
    static func foldRun<R: Reducer>(_ reducer: R, _ start: R.Accumulator, _ x: UnsafePointer<R.Element>, _ count: Int)
        -> R.Accumulator
    {
        var acc = start
        for i in 0..<count { acc = reducer(acc, x[i]) }
        return acc
    }
}

import CKernels

/// LiteRT's optimized 8-bit ADD and MUL as one walk over runs, vectorised and parallel.
///
/// LiteRT hands its elementwise function (same shapes, or `BinaryBroadcastFiveFold` with an inner
/// dimension `y4 > 1`) or its scalar-broadcast function (`y4 == 1`) one run at a time, and each splits
/// its run into NEON blocks, which round one way, and a scalar tail, which rounds another. Here the
/// output is `groups × runsPerGroup` runs of `length` elements: group `g`'s runs share their first
/// operand, either the vector `a[g·length...]` or, in scalar mode, the one element `a[g]`. Block
/// lanes go to the C kernel (`omk_q8_binary`) or, on the portable path, to the Swift lane functions;
/// the tail of every run takes the scalar formulas. Work is split in whole runs, or in chunks of a
/// whole number of blocks counted from the run's start, so every byte is the same at any thread count.
struct QuantizedBinaryRuns {
    let groups: Int
    let runsPerGroup: Int
    let length: Int
    /// The first operand is one element per run (`AddScalarBroadcast` / `MulSimpleBroadcast`).
    let scalarFirst: Bool
    /// LiteRT's `y1`, `y2`: where the second operand restarts (it is reused across `y1`).
    private let y1: Int, y2: Int

    /// Same shapes: one run of `count`.
    init(count: Int) {
        (groups, runsPerGroup, length, scalarFirst, y1, y2) = (1, 1, count, false, 1, 1)
    }

    /// LiteRT's five-fold walk (its loops in `QuantizedBinaryParams.applyFiveFold`).
    init(_ f: FiveFoldBroadcast) {
        let (y0, y1, y2, y3, y4) = (f.y[0], f.y[1], f.y[2], f.y[3], f.y[4])
        (self.y1, self.y2) = (y1, y2)
        groups = y0 * y1 * y2
        scalarFirst = y4 == 1
        runsPerGroup = scalarFirst ? 1 : y3
        length = scalarFirst ? y3 : y4
    }

    var outputCount: Int { groups * runsPerGroup * length }

    /// Where group `g`'s second operand starts: `(i0·y2 + i2)·y3·y4` for `g = (i0·y1 + i1)·y2 + i2`.
    @inline(__always)
    private func secondOffset(_ g: Int) -> Int {
        (g / (y1 * y2) * y2 + g % y2) * runsPerGroup * length
    }

    /// The lane formula of the blocks and their width, as LiteRT picks them.
    struct Lanes {
        let formula: Int32
        let block: Int
        let multiply: Bool

        /// `AddElementwiseInt8` / `AddElementwise` / `MulElementwise`, or the scalar-broadcast
        /// functions `AddScalarBroadcast` (blocks of 8, shift after the multiply, both types) and
        /// `MulSimpleBroadcast` (int8: blocks of 16, saturating; uint8: blocks of 8, truncating).
        init(multiply: Bool, signed: Bool, scalarFirst: Bool) {
            self.multiply = multiply
            switch (multiply, scalarFirst) {
            case (false, false):
                (formula, block) = signed ? (Int32(OMK_Q8_ADD_COMBINED), 16) : (Int32(OMK_Q8_ADD_SHIFT_AFTER), 8)
            case (false, true):
                (formula, block) = (Int32(OMK_Q8_ADD_SHIFT_AFTER), 8)
            case (true, false):
                (formula, block) = (Int32(OMK_Q8_MUL_SATURATING), signed ? 16 : 8)
            case (true, true):
                (formula, block) = signed ? (Int32(OMK_Q8_MUL_SATURATING), 16) : (Int32(OMK_Q8_MUL_TRUNCATING), 8)
            }
        }
    }

    /// Elements per parallel chunk of a long run (a whole number of blocks).
    static let chunk = 4096
    /// Below this many elements per thread a second thread does not pay for its wake-up.
    static let minimumPerThread = 16384

    /// Runs ADD (`multiply` false) or MUL over `a` (the first operand, after LiteRT's swap) and `b`.
    /// `portable` forces the Swift lanes; otherwise the C kernel runs where the CPU has one. Tests
    /// lower `chunkElements` and `minimumElements` (per thread) to split small tensors.
    func apply<T: QuantizedElement>(
        _ p: QuantizedBinaryParams, multiply: Bool, _ a: UnsafePointer<T>, _ b: UnsafePointer<T>,
        _ out: UnsafeMutablePointer<T>, threads: Int, portable: Bool = false,
        chunkElements: Int = QuantizedBinaryRuns.chunk, minimumElements: Int = QuantizedBinaryRuns.minimumPerThread
    ) {
        let lanes = Lanes(multiply: multiply, signed: T.self == Int8.self, scalarFirst: scalarFirst)
        var c: omk_q8_binary_params?
        if !portable, CPUFeatures.kernels.q8_binary != nil, let q = p.simdAddParameters {
            c = omk_q8_binary_params(q: q, formula: lanes.formula, is_signed: T.self == Int8.self ? 1 : 0)
        }
        // Without it (aarch64 today), same-shape-formula ADD blocks still take `omk_q8_add`.
        let addKernel = !portable && c == nil && !multiply && !scalarFirst && CPUFeatures.add8
        let runs = groups * runsPerGroup
        guard runs > 0, length > 0 else { return }
        let chunk = max(1, chunkElements / lanes.block) * lanes.block
        let pieces = length > chunk ? (length + chunk - 1) / chunk : 1
        let unit = length / pieces
        let minimum = max(1, minimumElements / max(unit, 1))
        parallelFor(runs * pieces, threads: threads, minimumPerThread: minimum) { range in
            if pieces == 1 {
                var u = range.lowerBound
                while u < range.upperBound {
                    // A batch: consecutive runs whose operands advance uniformly.
                    let boundary = scalarFirst ? (u / y2 + 1) * y2 : (u / runsPerGroup + 1) * runsPerGroup
                    let end = min(range.upperBound, boundary)
                    segment(p, lanes, c, addKernel, a, b, out, runs: u..<end, elements: 0..<length)
                    u = end
                }
            } else {
                for u in range {
                    let q = u / pieces
                    let k = u % pieces
                    segment(
                        p, lanes, c, addKernel, a, b, out, runs: q..<(q + 1),
                        elements: (k * chunk)..<min(length, (k + 1) * chunk))
                }
            }
        }
    }

    /// Elements `elements` of the runs `runs` (which share their group, or in scalar mode advance
    /// their first operand by one each).
    @inline(__always)
    private func segment<T: QuantizedElement>(
        _ p: QuantizedBinaryParams, _ lanes: Lanes, _ c: omk_q8_binary_params?, _ addKernel: Bool,
        _ a: UnsafePointer<T>,
        _ b: UnsafePointer<T>, _ out: UnsafeMutablePointer<T>, runs: Range<Int>, elements: Range<Int>
    ) {
        let g = runs.lowerBound / runsPerGroup
        let first = scalarFirst ? a + g : a + g * length + elements.lowerBound
        let second = b + secondOffset(g) + (runs.lowerBound % runsPerGroup) * length + elements.lowerBound
        let target = out + runs.lowerBound * length + elements.lowerBound
        let blocked = length / lanes.block * lanes.block
        let vector = max(0, min(elements.upperBound, blocked) - elements.lowerBound)
        if vector > 0 {
            if var c {
                omk_q8_binary(&c, first, second, target, vector, runs.count, length, scalarFirst ? 1 : 0)
            } else {
                for r in 0..<runs.count {
                    if addKernel && p.addBlocksSIMD(first, second + r * length, target + r * length, vector) {
                        continue
                    }
                    blockLanes(
                        p, lanes, first + (scalarFirst ? r : 0), scalarFirst, second + r * length, target + r * length,
                        vector)
                }
            }
        }
        let tailStart = max(elements.lowerBound, blocked)
        guard tailStart < elements.upperBound else { return }
        let skip = tailStart - elements.lowerBound
        for r in 0..<runs.count {
            let s = second + r * length + skip
            let o = target + r * length + skip
            for i in 0..<(elements.upperBound - tailStart) {
                let x = Int32(scalarFirst ? first[r] : first[skip + i])
                let y = Int32(s[i])
                o[i] = T(truncatingIfNeeded: lanes.multiply ? p.multiply(x, y) : p.add(x, y, subtract: false))
            }
        }
    }

    /// The Swift block lanes (the portable path, and what the C kernel reproduces).
    @inline(__always)
    private func blockLanes<T: QuantizedElement>(
        _ p: QuantizedBinaryParams, _ lanes: Lanes, _ a: UnsafePointer<T>, _ scalar: Bool, _ b: UnsafePointer<T>,
        _ out: UnsafeMutablePointer<T>, _ n: Int
    ) {
        let lower = Int32(T.min)
        let upper = Int32(T.max)
        for i in 0..<n {
            let x = Int32(scalar ? a[0] : a[i])
            let y = Int32(b[i])
            let r: Int32
            switch lanes.formula {
            case Int32(OMK_Q8_ADD_COMBINED): r = p.addBlockInt8(x, y)
            case Int32(OMK_Q8_ADD_SHIFT_AFTER): r = p.addBlockShiftAfter(x, y, lower: lower, upper: upper)
            case Int32(OMK_Q8_MUL_SATURATING): r = p.multiplyBlock(x, y, lower: lower, upper: upper)
            default: r = p.multiplyBlock(x, y, lower: lower, upper: upper, saturating: false)
            }
            out[i] = T(truncatingIfNeeded: r)
        }
    }
}

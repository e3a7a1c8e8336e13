import CKernels

/// Widened (int16) weights of a quantized GEMM, packed for the AVX2 `vpmaddwd` microkernel.
///
/// Columns (output channels) form panels of 8; inside a panel, for every tap and every pair of
/// `k`, the 8 columns' `(w[k], w[k+1])` are interleaved, so one 256-bit load feeds `vpmaddwd` with a
/// broadcast pair of inputs. A tap's depth is padded to even with a zero weight.
final class QuantizedPackedWeights {
    static let nr = 8
    private(set) var taps = 0
    private(set) var depth = 0
    private(set) var columns = 0
    private let storage = ScratchBuffer<Int16>(0)

    /// Takes the packed weights from `arena` (see `ScratchBuffer.place(in:)`).
    func place(in arena: WeightArena) { storage.place(in: arena) }

    var panels: Int { (columns + Self.nr - 1) / Self.nr }
    /// Int16 values of one panel.
    var panelStride: Int { taps * ((depth + 1) / 2) * 2 * Self.nr }
    var data: UnsafePointer<Int16> { UnsafePointer(storage.pointer) }

    /// Packs `weight(column, tap, k)` for `k < depth`, from `[column][tap][k]` widened weights.
    func pack(taps: Int, depth: Int, columns: Int, from source: UnsafePointer<Int16>) {
        self.taps = taps
        self.depth = depth
        self.columns = columns
        let nr = Self.nr, pairs = (depth + 1) / 2
        storage.reserve(max(1, panels * panelStride), filling: 0)
        let dst = storage.pointer
        for p in 0..<panels {
            let panel = dst + p * panelStride
            for j in 0..<nr {
                let column = p * nr + j
                for t in 0..<taps {
                    for q in 0..<pairs {
                        let slot = panel + ((t * pairs + q) * nr + j) * 2
                        for h in 0..<2 {
                            let k = 2 * q + h
                            slot[h] = column < columns && k < depth ? source[(column * taps + t) * depth + k] : 0
                        }
                    }
                }
            }
        }
    }
}

/// Drives the int16 GEMM microkernel over `rows` output rows: int32 accumulators per 8-row tile,
/// handed to `finish` row by row (bias, requantization and store happen there).
struct QuantizedIndirectGemm {
    static let mr = 8
    var rows: Int
    var weights: QuantizedPackedWeights

    /// Fills `mr` row pointers per tap for rows `first..<first + count` (`pointers[tap * mr + r]`);
    /// rows past `count` must repeat a valid row.
    typealias RowPointers = (_ first: Int, _ count: Int, _ pointers: UnsafeMutablePointer<UnsafePointer<Int16>?>) -> Void
    /// Receives one finished row: its index and its int32 accumulators (one per column, writable in
    /// place). Called from worker threads, each with its own rows.
    typealias Finish = (_ row: Int, _ accumulators: UnsafeMutablePointer<Int32>) -> Void

    func run(threads: Int, rowPointers: RowPointers, finish: Finish) {
        let mr = Self.mr, nr = QuantizedPackedWeights.nr
        let panels = weights.panels, taps = weights.taps, depth = weights.depth
        guard rows > 0, panels > 0 else { return }
        let tiles = (rows + mr - 1) / mr
        let width = panels * nr
        let macs = max(1, mr * width * taps * depth)
        let packed = weights.data, stride = weights.panelStride
        let wide = CPUFeatures.kernels.q16_gemm_8x16 != nil
        parallelFor(tiles, threads: threads, minimumPerThread: max(1, 65_536 / macs)) { range in
            withUnsafeTemporaryAllocation(of: UnsafePointer<Int16>?.self, capacity: taps * mr) { pointerBuffer in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: mr * width) { accBuffer in
                    guard let pointers = pointerBuffer.baseAddress, let acc = accBuffer.baseAddress else { return }
                    for tile in range {
                        let first = tile * mr, count = min(mr, rows - first)
                        rowPointers(first, count, pointers)
                        var p = 0
                        if wide {
                            // Two panels at a time in 16-lane vectors (AVX-512), the same integers.
                            while p + 2 <= panels {
                                omk_q16_gemm_8x16(
                                    pointers, taps, depth, packed + p * stride, packed + (p + 1) * stride, acc + p * nr,
                                    width)
                                p += 2
                            }
                        }
                        while p < panels {
                            omk_q16_gemm_8x8(pointers, taps, depth, packed + p * stride, acc + p * nr, width)
                            p += 1
                        }
                        for r in 0..<count { finish(first + r, acc + r * width) }
                    }
                }
            }
        }
    }
}

/// Per-channel bias, multiplier, shift and rounding of an 8-bit output stage, as contiguous arrays
/// for `omk_requantize_i32` (the same arithmetic as `FixedPoint.requantize`).
final class RequantizationStage {
    private let bias = ScratchBuffer<Int32>(0)
    private let multiplier = ScratchBuffer<Int32>(0)
    private let shift = ScratchBuffer<Int32>(0)
    private let gemm = ScratchBuffer<UInt8>(0)
    /// When every channel rounds like the GEMM: the parameters of `omk_requantize_gemm_to_8_avx512`.
    private var allGemm = false
    private let left = ScratchBuffer<Int32>(0)
    private let addend = ScratchBuffer<Int64>(0)
    private let rightShift = ScratchBuffer<Int64>(0)
    /// `addend − multiplier · 2^31` for the fused GEMM, which multiplies accumulators offset by 2^31.
    private let gemmAddend = ScratchBuffer<Int64>(0)

    /// Whether some channel shifts left (a multiplier above 1); the fused GEMM skips the shift otherwise.
    private var anyLeft = false

    func set(biases: [Int64], multipliers: [FixedPoint.Multiplier], roundings: [FixedPoint.GemmRounding]) {
        // Whole groups of 64 channels: the AVX-512 loops and the fused GEMM read them unmasked.
        let count = (max(1, multipliers.count) + 63) / 64 * 64
        bias.reserve(count, filling: 0)
        multiplier.reserve(count, filling: 0)
        shift.reserve(count, filling: 0)
        gemm.reserve(count, filling: 0)
        left.reserve(count, filling: 0)
        addend.reserve(count, filling: 0)
        rightShift.reserve(count, filling: 0)
        gemmAddend.reserve(count, filling: 0)
        allGemm = true
        anyLeft = false
        for c in 0..<multipliers.count {
            bias.pointer[c] = c < biases.count ? Int32(truncatingIfNeeded: biases[c]) : 0
            multiplier.pointer[c] = multipliers[c].multiplier
            let s = Int32(clamping: multipliers[c].shift)
            shift.pointer[c] = s
            let isGemm = c < roundings.count && roundings[c] == .gemm
            gemm.pointer[c] = isGemm ? 1 : 0
            allGemm = allGemm && isGemm
            // Block b keeps its even channels' 64-bit parameters first, then its odd channels'.
            let r = Int64(max(0, -Int(s))), slot = c / 16 * 16 + c % 2 * 8 + c % 16 / 2
            left.pointer[c] = max(0, s) & 31
            anyLeft = anyLeft || left.pointer[c] != 0
            addend.pointer[slot] = r >= 32 ? 1 << 62 : (1 << 30) + (r > 0 ? 1 << (30 + r) : 0)
            rightShift.pointer[slot] = r >= 32 ? 63 : 31 + r
            gemmAddend.pointer[slot] = addend.pointer[slot] &- Int64(multipliers[c].multiplier) << 31
        }
    }

    /// The output-stage fields of `omk_q8_gemm_params` (its bias is this stage's bias), for a stage
    /// whose every channel rounds like LiteRT's GEMM, as CONV_2D and FULLY_CONNECTED do.
    func fill(_ p: inout omk_q8_gemm_params, zeroPoint: Int32, lo: Int32, hi: Int32) {
        precondition(allGemm, "the fused GEMM output stage rounds like LiteRT's GEMM only")
        p.bias = UnsafePointer(bias.pointer)
        p.multiplier = UnsafePointer(multiplier.pointer)
        p.left = anyLeft ? UnsafePointer(left.pointer) : nil
        p.addend = UnsafePointer(gemmAddend.pointer)
        p.shift = UnsafePointer(rightShift.pointer)
        p.zero_point = zeroPoint
        p.lo = lo
        p.hi = hi
    }

    /// Requantizes `count` accumulators and stores them into `base` (a tensor of `type`) from element
    /// `offset`; the accumulators may be overwritten. 8-bit outputs take the fused byte-storing C loop
    /// where the CPU has one (AVX-512).
    func store(
        _ acc: UnsafeMutablePointer<Int32>, count: Int, zeroPoint: Int32, lo: Int32, hi: Int32,
        to base: UnsafeMutableRawPointer, type: TensorType, offset: Int
    ) {
        if CPUFeatures.requantizeTo8, type == .int8 || type == .uint8 {
            let out = base.assumingMemoryBound(to: UInt8.self) + offset
            if allGemm {
                omk_requantize_gemm_to_8(
                    acc, count, bias.pointer, multiplier.pointer, left.pointer, addend.pointer, rightShift.pointer,
                    zeroPoint, lo, hi, out)
                return
            }
            omk_requantize_to_8(
                acc, count, bias.pointer, multiplier.pointer, shift.pointer, gemm.pointer, zeroPoint, lo, hi, out)
            return
        }
        apply(acc, count: count, zeroPoint: zeroPoint, lo: lo, hi: hi)
        QuantizedOperand.store(acc, count: count, to: base, type: type, offset: offset)
    }

    /// Requantizes `count` accumulators in place (the CPU's C kernel: AVX2, NEON or portable C).
    func apply(_ acc: UnsafeMutablePointer<Int32>, count: Int, zeroPoint: Int32, lo: Int32, hi: Int32) {
        omk_requantize(acc, count, bias.pointer, multiplier.pointer, shift.pointer, gemm.pointer, zeroPoint, lo, hi)
    }
}

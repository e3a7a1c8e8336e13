import CKernels

/// 8-bit weights of a quantized GEMM, packed for the AVX-512 VNNI `vpdpbusd` kernels
/// (`omk_q8_gemm_vnni`), with the per-column sums that turn their byte products back into LiteRT's
/// `Σ (x − zx)(w − zw)`.
///
/// `vpdpbusd` multiplies unsigned by signed bytes, so one operand is shifted by 128 (its top bit
/// flipped): for int8 models the weights become `w + 128` (unsigned) against the raw int8
/// activations, for uint8 models they become `w − 128` (signed) against the raw uint8 activations.
/// Either way, over the K products of a row (padding taps read bytes equal to zx):
///
///     Σ (x − zx)(w − zw) = dot + rowScale · Σx − zx · Σ (w − zw)
///
/// with `rowScale = −128` for int8 (where zw = 0) and `128 − zw` for uint8. The last term depends on
/// the column only and is folded into the bias; `rowScale · Σx` is computed once per row and shared
/// by every column group. All of it in wrapping int32 arithmetic, like LiteRT's sums, so the
/// accumulators are the same integers as the int16 path's.
///
/// Layout (see `omk_q8_gemm_params`): column groups of 64; per group, per 4 `k` (K rounded up to 4),
/// the group's columns' 4 bytes in `k` order, zero for `k >= K` and for columns past the last.
final class QuantizedPackedWeights8 {
    /// Columns per group: four blocks of 16, one zmm register each.
    static let groupWidth = 64
    /// Bytes per row: taps × input channels for CONV_2D, in (ky, kx, channel) order.
    private(set) var depth = 0
    private(set) var columns = 0
    /// Whether the packed bytes are unsigned (int8 models: `w + 128`) or signed (uint8: `w − 128`).
    private(set) var weightsUnsigned = false
    private let storage = ScratchBuffer<UInt8>(0)
    /// `Σ (w − zw)` per column over every k.
    private let sums = ScratchBuffer<Int32>(0)

    var groups: Int { (columns + Self.groupWidth - 1) / Self.groupWidth }
    var quads: Int { (depth + 3) / 4 }
    /// Bytes of one (full) column group.
    var groupStride: Int { quads * 4 * Self.groupWidth }
    var data: UnsafePointer<UInt8> { UnsafePointer(storage.pointer) }
    var columnSums: UnsafePointer<Int32> { UnsafePointer(sums.pointer) }

    /// Packs an int8 or uint8 filter laid out `[column][k]` (CONV_2D `[O][KH][KW][C]`, FULLY_CONNECTED
    /// `[O][I]`) with `depth` values per column, whose zero point is `zeroPoint`.
    func pack(depth: Int, columns: Int, from source: UnsafeRawPointer, signed: Bool, zeroPoint: Int32) {
        self.depth = depth
        self.columns = columns
        weightsUnsigned = signed
        let width = Self.groupWidth, stride = groupStride
        let bytes = max(1, groups * stride)
        storage.reserve(bytes, filling: 0)
        storage.pointer.update(repeating: 0, count: bytes)
        sums.reserve(max(1, columns), filling: 0)
        let src = source.assumingMemoryBound(to: UInt8.self), dst = storage.pointer
        let whole = depth / 4
        for column in 0..<columns {
            let group = column / width, inGroup = column % width
            // A group's 4-k slots hold its blocks of 16 columns (fewer in a narrower last group).
            let slotBytes = (min(width, columns - group * width) + 15) / 16 * 64
            let first = UnsafeMutableRawPointer(dst + group * stride + inGroup / 16 * 64 + inGroup % 16 * 4)
            let row = src + column * depth
            let values = UnsafeRawPointer(row)
            // Flipping the top bit adds 128 to an int8 and subtracts 128 from a uint8.
            for q in 0..<whole {
                let four = values.loadUnaligned(fromByteOffset: 4 * q, as: UInt32.self)
                first.storeBytes(of: four ^ 0x8080_8080, toByteOffset: q * slotBytes, as: UInt32.self)
            }
            for k in (4 * whole)..<depth {
                let byte = values.load(fromByteOffset: k, as: UInt8.self) ^ 0x80
                first.storeBytes(of: byte, toByteOffset: whole * slotBytes + (k & 3), as: UInt8.self)
            }
            var sum: Int32 = 0
            if signed {
                let bytes = UnsafeRawPointer(row).assumingMemoryBound(to: Int8.self)
                for i in 0..<depth { sum &+= Int32(bytes[i]) }
            } else {
                for i in 0..<depth { sum &+= Int32(row[i]) }
            }
            sums.pointer[column] = sum &- Int32(truncatingIfNeeded: depth) &* zeroPoint
        }
    }
}

/// Splits a fused 8-bit GEMM of `rows` rows and `groups` column groups among threads.
enum QuantizedGemm8 {
    /// Rows of one im2col block (`omk_q8_conv_vnni`'s scratch holds this many rows).
    static let im2colRows = 96

    /// Calls `body(rows, groups)` on parts that cover the rows × column groups once, in parallel on
    /// up to `threads` threads. Rows are split into bands (multiples of 24 rows, whole tiles of 6
    /// and 8) while every thread gets at least 24 of them; fewer rows (a single FULLY_CONNECTED
    /// row) split the column groups, so that each thread streams only its share of the weights.
    /// Column groups are coarse (64 columns: 160 columns split 64 + 96), so rows come first.
    static func forEachPart(
        rows: Int, groups: Int, macs: Int, threads: Int, _ body: (_ rows: Range<Int>, _ groups: Range<Int>) -> Void
    ) {
        guard rows > 0, groups > 0 else { return }
        // Below ~2^17 multiply-adds per thread, waking a worker costs more than it saves.
        let parallel = min(threads, max(1, macs >> 17))
        var rowParts = 1, groupParts = 1
        if parallel > 1 {
            if rows >= 24 * parallel || groups < parallel {
                rowParts = min(parallel, (rows + 23) / 24)
            } else {
                groupParts = parallel
            }
        }
        let parts = rowParts * groupParts
        if parts == 1 {
            body(0..<rows, 0..<groups)
            return
        }
        let bands = (rows + 23) / 24
        parallelFor(parts, threads: threads) { range in
            for part in range {
                let r = part / groupParts, g = part % groupParts
                let rowRange = min(rows, bands * r / rowParts * 24)..<min(rows, bands * (r + 1) / rowParts * 24)
                let groupRange = (groups * g / groupParts)..<(groups * (g + 1) / groupParts)
                if !rowRange.isEmpty, !groupRange.isEmpty { body(rowRange, groupRange) }
            }
        }
    }
}

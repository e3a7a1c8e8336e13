import CKernels

/// 8-bit weights of a quantized GEMM, packed for the fused 8-bit kernels (`omk_q8_gemm`: the layout
/// is VNNI's `vpdpbusd` operand, which the AVX2 and aarch64 kernels read too), with the per-column sums that turn their byte products back into LiteRT's
/// `Σ (x − zx)(w − zw)`.
///
/// `vpdpbusd` multiplies unsigned activation bytes by signed weight bytes. For int8 models the
/// kernel reads the int8 activations with their top bit flipped, as `x + 128` (unsigned), against
/// the int8 weights as they are (zw = 0):
///
///     Σ (x − zx) w = dot − (128 + zx) · Σ w
///
/// which depends on the column only and is folded into the bias. For uint8 models the activations
/// are read as they are and the weights packed as `w − 128` (signed, top bit flipped):
///
///     Σ (x − zx)(w − zw) = dot + (128 − zw) · Σ x − zx · Σ (w − zw)
///
/// whose last term is folded into the bias and whose row term `(128 − zw) · Σ x` the kernel adds
/// once per row. Padding taps read bytes equal to zx. All of it in wrapping int32 arithmetic, like
/// LiteRT's sums, so the accumulators are the same integers as the int16 path's.
///
/// Layout (see `omk_q8_gemm_params`): column groups of 64; per group, per 4 `k` (K rounded up to 4),
/// the group's columns' 4 bytes in `k` order, zero for `k >= K` and for columns past the last.
final class QuantizedPackedWeights8 {
    /// Columns per group: four blocks of 16, one zmm register each.
    static let groupWidth = 64
    /// Bytes per row: taps × input channels for CONV_2D, in (ky, kx, channel) order.
    private(set) var depth = 0
    private(set) var columns = 0
    /// Whether the filter is int8 (packed as it is, against flipped activations) or uint8 (packed
    /// as `w − 128`).
    private(set) var signed = false
    private let storage = ScratchBuffer<UInt8>(0)
    /// `Σ (w − zw)` per column over every k.
    private let sums = ScratchBuffer<Int32>(0)

    /// Takes the packed bytes and sums from `arena` (see `ScratchBuffer.place(in:)`).
    func place(in arena: WeightArena) {
        storage.place(in: arena)
        sums.place(in: arena)
    }

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
        self.signed = signed
        let stride = groupStride
        // Every byte the kernel reads is written by the packer (padding included), so the buffer is
        // not cleared first: at load time that pass was as slow as the packing itself.
        storage.reserveUninitialized(max(1, groups * stride))
        sums.reserve(max(1, columns), filling: 0)
        // Flipping the top bit of a uint8 subtracts 128 (an int8 stays as it is).
        omk_q8_pack_weights(
            source.assumingMemoryBound(to: UInt8.self), depth, columns, Self.groupWidth, stride,
            signed ? 0 : 0x80, signed ? 1 : 0, zeroPoint, storage.pointer, sums.pointer)
    }
}

/// How a fused 8-bit GEMM of `rows` rows and `groups` column groups is split among threads: into
/// bands of rows (multiples of 24 rows, whole tiles of 6 and 8) while every thread gets at least 24
/// of them, else (a single FULLY_CONNECTED row) into ranges of column groups, so that each thread
/// streams only its share of the weights. Column groups are coarse (64 columns: 160 columns split
/// 64 + 96), so rows come first. Below ~2^17 multiply-adds per thread, one part: waking a worker
/// costs more than it saves.
struct QuantizedGemm8Split {
    let rows: Int
    let groups: Int
    private(set) var rowParts = 1
    private(set) var groupParts = 1

    init(rows: Int, groups: Int, macs: Int, threads: Int) {
        self.rows = rows
        self.groups = groups
        let parallel = min(threads, max(1, macs >> 17))
        if parallel > 1 {
            if rows >= 24 * parallel || groups < parallel {
                rowParts = min(parallel, (rows + 23) / 24)
            } else {
                groupParts = parallel
            }
        }
    }

    var parts: Int { rowParts * groupParts }

    /// The most rows one part covers.
    var rowsPerPart: Int { min(rows, ((rows + 23) / 24 + rowParts - 1) / rowParts * 24) }

    /// Calls `body(part, rows, groups)` for every part, in parallel on up to `threads` threads.
    func run(threads: Int, _ body: (_ part: Int, _ rows: Range<Int>, _ groups: Range<Int>) -> Void) {
        guard rows > 0, groups > 0 else { return }
        if parts == 1 {
            body(0, 0..<rows, 0..<groups)
            return
        }
        let bands = (rows + 23) / 24, rowParts = self.rowParts, groupParts = self.groupParts
        let rows = self.rows, groups = self.groups
        parallelFor(parts, threads: threads) { range in
            for part in range {
                let r = part / groupParts, g = part % groupParts
                let rowRange = min(rows, bands * r / rowParts * 24)..<min(rows, bands * (r + 1) / rowParts * 24)
                let groupRange = (groups * g / groupParts)..<(groups * (g + 1) / groupParts)
                if !rowRange.isEmpty, !groupRange.isEmpty { body(part, rowRange, groupRange) }
            }
        }
    }
}

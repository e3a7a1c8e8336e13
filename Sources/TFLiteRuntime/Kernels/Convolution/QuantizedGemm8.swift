import CKernels

/// 8-bit weights of a quantized GEMM, packed for the AVX-512 VNNI `vpdpbusd` microkernel, with the
/// per-column sums that turn its byte products back into LiteRT's `Σ (x − zx)(w − zw)`.
///
/// `vpdpbusd` multiplies unsigned by signed bytes, so one operand is shifted by 128 (its top bit
/// flipped): for int8 models the weights become `w + 128` (unsigned) against the raw int8
/// activations, for uint8 models they become `w − 128` (signed) against the raw uint8 activations.
/// Either way, over the K = taps × depth products of a row (padding taps read bytes equal to zx):
///
///     Σ (x − zx)(w − zw) = dot + rowScale · Σx − zx · Σ (w − zw)
///
/// with `rowScale = −128` for int8 (where zw = 0) and `128 − zw` for uint8. The last term depends on
/// the column only and is folded into the bias; `rowScale · Σx` is computed once per row and shared
/// by every column panel. All of it in wrapping int32 arithmetic, like LiteRT's sums, so the
/// accumulators are the same integers as the int16 path's.
///
/// Layout: panels of 16 columns; per tap, per group of 4 `k` (depth rounded up to 4), the 16
/// columns' 4 bytes in `k` order, zero for `k >= depth` and for columns past the last.
final class QuantizedPackedWeights8 {
    static let nr = 16
    private(set) var taps = 0
    private(set) var depth = 0
    private(set) var columns = 0
    /// Whether the packed bytes are unsigned (int8 models: `w + 128`) or signed (uint8: `w − 128`).
    private(set) var weightsUnsigned = false
    private let storage = ScratchBuffer<UInt8>(0)
    /// `Σ (w − zw)` per column over every tap and k.
    private let sums = ScratchBuffer<Int32>(0)

    var panels: Int { (columns + Self.nr - 1) / Self.nr }
    var quads: Int { (depth + 3) / 4 }
    /// Bytes of one panel.
    var panelStride: Int { taps * quads * 4 * Self.nr }
    var data: UnsafePointer<UInt8> { UnsafePointer(storage.pointer) }
    var columnSums: UnsafePointer<Int32> { UnsafePointer(sums.pointer) }

    /// Packs an int8 or uint8 filter laid out `[column][tap][k]` (CONV_2D `[O][KH][KW][C]`, FULLY_CONNECTED
    /// `[O][I]`) whose zero point is `zeroPoint`.
    func pack(taps: Int, depth: Int, columns: Int, from source: UnsafeRawPointer, signed: Bool, zeroPoint: Int32) {
        self.taps = taps
        self.depth = depth
        self.columns = columns
        weightsUnsigned = signed
        let nr = Self.nr, quads = self.quads, stride = panelStride
        let bytes = max(1, panels * stride)
        storage.reserve(bytes, filling: 0)
        storage.pointer.update(repeating: 0, count: bytes)
        sums.reserve(max(1, columns), filling: 0)
        let src = source.assumingMemoryBound(to: UInt8.self), dst = storage.pointer
        let whole = depth / 4, length = taps * depth
        for column in 0..<columns {
            let panel = UnsafeMutableRawPointer(dst + (column / nr) * stride + (column % nr) * 4)
            let row = src + column * length
            for t in 0..<taps {
                let values = UnsafeRawPointer(row + t * depth), slots = panel + t * quads * 4 * nr
                // Flipping the top bit adds 128 to an int8 and subtracts 128 from a uint8.
                for q in 0..<whole {
                    let four = values.loadUnaligned(fromByteOffset: 4 * q, as: UInt32.self)
                    slots.storeBytes(of: four ^ 0x8080_8080, toByteOffset: q * 4 * nr, as: UInt32.self)
                }
                for k in (4 * whole)..<depth {
                    let byte = values.load(fromByteOffset: k, as: UInt8.self) ^ 0x80
                    slots.storeBytes(of: byte, toByteOffset: whole * 4 * nr + (k & 3), as: UInt8.self)
                }
            }
            var sum: Int32 = 0
            if signed {
                let bytes = UnsafeRawPointer(row).assumingMemoryBound(to: Int8.self)
                for i in 0..<length { sum &+= Int32(bytes[i]) }
            } else {
                for i in 0..<length { sum &+= Int32(row[i]) }
            }
            sums.pointer[column] = sum &- Int32(truncatingIfNeeded: length) &* zeroPoint
        }
    }
}

/// Drives the VNNI microkernel over `rows` output rows: int32 accumulators per tile of up to 8
/// rows, handed to `finish` row by row (bias, requantization and store happen there). The column
/// term `−zx · Σ (w − zw)` is not included: the caller folds it into its bias.
struct QuantizedIndirectGemm8 {
    static let mr = 8
    var rows: Int
    var weights: QuantizedPackedWeights8
    /// The multiplier of each row's activation sum (`−128` for int8, `128 − zw` for uint8).
    var rowScale: Int32

    /// Fills `mr` row pointers per tap for rows `first..<first + count` (`pointers[tap * mr + r]`);
    /// rows past `count` are not read.
    typealias RowPointers = (
        _ first: Int, _ count: Int, _ pointers: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    ) -> Void
    /// Receives one finished row: its index and its int32 accumulators (one per column, writable in
    /// place). Called from worker threads, each with its own rows.
    typealias Finish = (_ row: Int, _ accumulators: UnsafeMutablePointer<Int32>) -> Void

    func run(threads: Int, rowPointers: RowPointers, finish: Finish) {
        let mr = Self.mr, nr = QuantizedPackedWeights8.nr
        let panels = weights.panels, taps = weights.taps, depth = weights.depth
        guard rows > 0, panels > 0 else { return }
        let tiles = (rows + mr - 1) / mr
        let width = panels * nr
        let macs = max(1, mr * width * taps * depth)
        let packed = weights.data, stride = weights.panelStride, rowScale = self.rowScale
        let unsignedWeights: Int32 = weights.weightsUnsigned ? 1 : 0
        parallelFor(tiles, threads: threads, minimumPerThread: max(1, 65_536 / macs)) { range in
            withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: taps * mr) { pointerBuffer in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: mr * width + mr) { accBuffer in
                    guard let pointers = pointerBuffer.baseAddress, let acc = accBuffer.baseAddress else { return }
                    let offsets = acc + mr * width
                    for tile in range {
                        let first = tile * mr, count = min(mr, rows - first)
                        rowPointers(first, count, pointers)
                        // Activations are signed exactly when the weights are packed unsigned (int8 models).
                        omk_q8_row_offsets_vnni(pointers, count, taps, depth, unsignedWeights, rowScale, offsets)
                        for p in 0..<panels {
                            omk_q8_gemm_8x16_vnni(
                                pointers, count, taps, depth, packed + p * stride, unsignedWeights, offsets,
                                acc + p * nr, width)
                        }
                        for r in 0..<count { finish(first + r, acc + r * width) }
                    }
                }
            }
        }
    }
}

import CKernels
import Testing

@testable import TFLiteRuntime

/// The VNNI GEMM's weight packing: the 16x16 word blocks (AVX-512, when the dispatch allows it)
/// give the same bytes and column sums as packing one word at a time, for depths and column counts
/// around the block edges, and the packed layout is what the kernel reads.
@Suite("Quantized weight packing")
struct QuantizedWeightPackingTests {
    static let shapes: [(depth: Int, columns: Int)] = [
        (64, 16), (64, 64), (128, 64), (960, 320), (1280, 1000), (27, 32), (63, 17), (65, 80), (130, 47), (200, 64),
        (3, 5), (1, 1),
    ]

    private static func pack(
        depth: Int, columns: Int, source: [UInt8], signed: Bool, zeroPoint: Int32, words: Bool
    ) -> (bytes: [UInt8], sums: [Int32]) {
        let width = QuantizedPackedWeights8.groupWidth
        let stride = (depth + 3) / 4 * 4 * width
        let groups = (columns + width - 1) / width
        // Filled with a marker: bytes the packer never writes must stay as they were.
        var bytes = [UInt8](repeating: 0xA5, count: groups * stride)
        var sums = [Int32](repeating: 0, count: columns)
        let flip: UInt8 = signed ? 0 : 0x80
        source.withUnsafeBufferPointer { src in
            bytes.withUnsafeMutableBufferPointer { dst in
                sums.withUnsafeMutableBufferPointer { s in
                    let f = words ? omk_q8_pack_weights_words : omk_q8_pack_weights
                    f(src.baseAddress, depth, columns, width, stride, flip, signed ? 1 : 0, zeroPoint, dst.baseAddress,
                      s.baseAddress)
                }
            }
        }
        return (bytes, sums)
    }

    @Test("blocks and words pack the same bytes and sums", arguments: shapes)
    func blocksMatchWords(depth: Int, columns: Int) {
        var rng = SplitMix64(seed: UInt64(depth * 7919 + columns))
        let source = (0..<(depth * columns)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        for signed in [true, false] {
            let zeroPoint: Int32 = signed ? 0 : 131
            let fast = Self.pack(depth: depth, columns: columns, source: source, signed: signed, zeroPoint: zeroPoint, words: false)
            let slow = Self.pack(depth: depth, columns: columns, source: source, signed: signed, zeroPoint: zeroPoint, words: true)
            #expect(fast.bytes == slow.bytes, "depth \(depth) columns \(columns) signed \(signed)")
            #expect(fast.sums == slow.sums)
        }
    }

    @Test("the packed layout: column c's byte k sits in slot k/4 of its group")
    func layout() {
        let depth = 70, columns = 90, width = QuantizedPackedWeights8.groupWidth
        var rng = SplitMix64(seed: 42)
        let source = (0..<(depth * columns)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let packed = Self.pack(depth: depth, columns: columns, source: source, signed: false, zeroPoint: 3, words: false)
        let stride = (depth + 3) / 4 * 4 * width
        for c in 0..<columns {
            let group = c / width, inGroup = min(width, columns - group * width)
            let slotColumns = (inGroup + 15) / 16 * 16, local = c % width
            var sum: Int32 = 0
            for k in 0..<depth {
                let at = group * stride + (k / 4) * slotColumns * 4 + local * 4 + k % 4
                #expect(packed.bytes[at] == source[c * depth + k] ^ 0x80)
                sum &+= Int32(source[c * depth + k])
            }
            #expect(packed.sums[c] == sum &- Int32(depth) &* 3)
            for k in depth..<((depth + 3) / 4 * 4) {
                #expect(packed.bytes[group * stride + (k / 4) * slotColumns * 4 + local * 4 + k % 4] == 0)
            }
        }
        // The last group's padding columns (26 columns in slots of 32) are zeros in every slot.
        let lastGroup = (columns - 1) / width, inLast = columns - lastGroup * width
        let slotColumns = (inLast + 15) / 16 * 16
        for q in 0..<((depth + 3) / 4) {
            for local in inLast..<slotColumns {
                let at = lastGroup * stride + q * slotColumns * 4 + local * 4
                #expect(packed.bytes[at..<(at + 4)].allSatisfy { $0 == 0 })
            }
        }
    }
}

import CKernels
import Testing

@testable import TFLiteRuntime

/// The AVX2 quantization step of the hybrid kernels (`omk_f32_minmax_avx2`,
/// `omk_f32_quantize_i16_avx2`) against `FixedPoint.symmetricQuantize` / `asymmetricQuantize`, value
/// for value, on rows with ties (x·scale_inv exactly k + 0.5), zeros, infinities and lengths that
/// leave SIMD tails. Only the portable functions run where the CPU (or `OPENMLKIT_KERNELS`) has no AVX2.
@Suite struct HybridQuantizeSIMDTests {
    static func rows() -> [[Float]] {
        var state: UInt64 = 7
        func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: state >> 11) % 2_000_001) / 1_000_000 - 1
        }
        var rows: [[Float]] = []
        for n in [1, 7, 8, 15, 16, 17, 33, 100, 257] {
            rows.append((0..<n).map { _ in next() })
            rows.append((0..<n).map { _ in next() * 3 + 1 })
        }
        // max |x| = 127 makes scale_inv 1: every k + 0.5 is a tie, either sign.
        rows.append([127, -0.5, 0.5, 1.5, -1.5, 2.5, -126.5, 126.5, 0, -0, 3.5, -3.5, 4.5, 5.5, -6.5, 7.5, 8.5, -9.5])
        rows.append([Float](repeating: 0, count: 19))
        rows.append([1, 2, .infinity, -3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
        rows.append([-.infinity, 0.25, 0.5, -2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
        rows.append([Float](repeating: 0.75, count: 24))
        rows.append([Float](repeating: -2, count: 9))
        return rows
    }

    @Test(arguments: [true, false])
    func matchesThePortableQuantization(symmetric: Bool) {
        for row in Self.rows() {
            let n = row.count
            var q = [Int8](repeating: 0, count: n)
            var zero: Int32 = 0
            let scale: Float
            if symmetric {
                scale = FixedPoint.symmetricQuantize(row, count: n, into: &q)
            } else {
                let r = FixedPoint.asymmetricQuantize(row, count: n, into: &q)
                scale = r.scale
                zero = r.offset
            }
            let expected = q.map { Int16(Int32($0) - zero) }
            guard CPUFeatures.level >= 1 else { continue }
            var lo: Float = 0, hi: Float = 0
            #expect(omk_f32_minmax_avx2(row, n, &lo, &hi) == 0)
            let p = symmetric ? FixedPoint.symmetricParameters(lo: lo, hi: hi) : FixedPoint.asymmetricParameters(lo: lo, hi: hi)
            var got = [Int16](repeating: 99, count: n)
            if p.allZero {
                got = [Int16](repeating: 0, count: n)
            } else {
                omk_f32_quantize_i16_avx2(row, n, p.scaleInv, p.offset, symmetric ? -127 : -128, 127, &got)
            }
            #expect(got == expected, "row \(row)")
            #expect(p.scale.bitPattern == scale.bitPattern)
            #expect(p.offset == zero)
        }
    }

    @Test func aNaNIsLeftToThePortableLoop() {
        guard CPUFeatures.level >= 1 else { return }
        var lo: Float = 0, hi: Float = 0
        for at in [0, 3, 8, 12] {
            var row = [Float](repeating: 1, count: 13)
            row[at] = .nan
            #expect(omk_f32_minmax_avx2(row, row.count, &lo, &hi) == 1)
        }
    }
}

/// The inner loops of every float GEMM in the runtime (convolution, fully connected, batch matmul,
/// transposed convolution): one tile of `mr` output rows by `nr` output columns.
///
/// The left-hand side is given as row pointers per tap (`a[tap * mr + r]` is row `r`'s slice of
/// length `depth` for that tap), which covers plain matrices (one tap, `lda`-strided rows) and
/// convolutions without im2col (one tap per filter position, rows pointing into the input image or
/// at a zero row for padding). The right-hand side is a panel of `PackedWeights`. Accumulators stay
/// in SIMD registers; bias and the activation clamp are applied in the output stage.
///
/// The summation order is LiteRT's builtin float GEMM (see `omk_f32_gemm_8x16_avx512`): from zero,
/// each product rounded before it is added, in (tap, k) order, the bias last; one row alone (a
/// matrix-vector product) sums in four interleaved partial sums (`gemv`). Swift does not fuse
/// `a * b + c`, so the portable loops round exactly like the C kernels.
enum GemmMicrokernel {
    /// Rows per tile: the C kernel computes 8; the portable path does two blocks of 4.
    static let mr = 8
    /// Columns per tile (one packed panel): one AVX-512 register, two AVX2 registers, and two
    /// 8-column halves on the portable path.
    static let nr = 16
    /// Columns the portable loops handle at once.
    static let half = 8

    typealias Vector = SIMD8<Float>

    /// Computes rows `firstRow..<firstRow + 4` of one 8-column half of a tile (portable path: `b`,
    /// `bias` and `c` already offset to the half; weights are read with the panel's stride `nr`) and
    /// stores its first `columns` (<= 8) columns at `c` (row stride `ldc`).
    @inline(__always)
    static func tile4(
        a: UnsafePointer<UnsafePointer<Float>>, firstRow: Int, taps: Int, depth: Int, b: UnsafePointer<Float>,
        bias: UnsafePointer<Float>, lower: Float, upper: Float,
        c: UnsafeMutablePointer<Float>, ldc: Int, columns: Int
    ) {
        var c0 = Vector(), c1 = Vector(), c2 = Vector(), c3 = Vector()
        var w = b
        for t in 0..<taps {
            let rows = a + t * mr + firstRow
            let a0 = rows[0], a1 = rows[1], a2 = rows[2], a3 = rows[3]
            var k = 0
            while k < depth {
                let v = load(w)
                c0 += v * a0[k]
                c1 += v * a1[k]
                c2 += v * a2[k]
                c3 += v * a3[k]
                w += nr
                k += 1
            }
        }
        let b = load(bias)
        store(clamp(c0 + b, lower, upper), c, columns)
        store(clamp(c1 + b, lower, upper), c + ldc, columns)
        store(clamp(c2 + b, lower, upper), c + 2 * ldc, columns)
        store(clamp(c3 + b, lower, upper), c + 3 * ldc, columns)
    }

    /// Computes one row of a tile (row `row` of the tap pointers): the rows left over when the row
    /// count is not a multiple of `mr`.
    @inline(__always)
    static func tile1(
        a: UnsafePointer<UnsafePointer<Float>>, row: Int, taps: Int, depth: Int, b: UnsafePointer<Float>,
        bias: UnsafePointer<Float>, lower: Float, upper: Float,
        c: UnsafeMutablePointer<Float>, columns: Int
    ) {
        var acc = Vector()
        var w = b
        for t in 0..<taps {
            let a0 = a[t * mr + row]
            for k in 0..<depth {
                acc += load(w) * a0[k]
                w += nr
            }
        }
        store(clamp(acc + load(bias), lower, upper), c, columns)
    }

    /// A matrix-vector product (the whole product has one row, `a[tap * mr]`), in LiteRT's order
    /// for it: four partial sums over the k ≡ 0, 1, 2, 3 (mod 4) of the whole (tap, k) sequence,
    /// combined as (s0 + s2) + (s1 + s3), then the last `taps * depth % 4` products in order, then
    /// the bias (see `omk_f32_gemv_16_avx512`).
    @inline(__always)
    static func gemv(
        a: UnsafePointer<UnsafePointer<Float>>, taps: Int, depth: Int, b: UnsafePointer<Float>,
        bias: UnsafePointer<Float>, lower: Float, upper: Float, c: UnsafeMutablePointer<Float>, columns: Int
    ) {
        let total = taps * depth, whole = total - total % 4
        var partial = (Vector(), Vector(), Vector(), Vector())
        var w = b, g = 0
        for t in 0..<taps where g < whole {
            let x = a[t * mr]
            for k in 0..<min(depth, whole - g) {
                let product = load(w) * x[k]
                switch g & 3 {
                case 0: partial.0 += product
                case 1: partial.1 += product
                case 2: partial.2 += product
                default: partial.3 += product
                }
                w += nr
                g += 1
            }
        }
        var sum = (partial.0 + partial.2) + (partial.1 + partial.3)
        for g in whole..<total {
            sum += load(b + g * nr) * a[(g / depth) * mr][g % depth]
        }
        store(clamp(sum + load(bias), lower, upper), c, columns)
    }

    @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> Vector {
        UnsafeRawPointer(p).loadUnaligned(as: Vector.self)
    }

    /// Clamps to the activation range; NaN passes through, as in TFLite's `std::min(std::max(...))`.
    @inline(__always)
    static func clamp(_ v: Vector, _ lower: Float, _ upper: Float) -> Vector {
        // Written per lane because LLVM turns this form into minps + compare/select, while the
        // SIMD mask API (`replacing(with:where:)`) compiles to mask shuffles on SSE2.
        var r = v
        for i in 0..<Vector.scalarCount {
            let x = r[i]
            r[i] = x < lower ? lower : (x > upper ? upper : x)
        }
        return r
    }

    @inline(__always)
    static func store(_ v: Vector, _ c: UnsafeMutablePointer<Float>, _ columns: Int) {
        if columns >= Vector.scalarCount {
            UnsafeMutableRawPointer(c).storeBytes(of: v, as: Vector.self)
        } else {
            for j in 0..<columns { c[j] = v[j] }
        }
    }
}

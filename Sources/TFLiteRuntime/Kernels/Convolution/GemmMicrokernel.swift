/// The inner loops of every float GEMM in the runtime (convolution, fully connected, batch matmul,
/// transposed convolution): one tile of `mr` output rows by `nr` output columns.
///
/// The left-hand side is given as row pointers per tap (`a[tap * mr + r]` is row `r`'s slice of
/// length `depth` for that tap), which covers plain matrices (one tap, `lda`-strided rows) and
/// convolutions without im2col (one tap per filter position, rows pointing into the input image or
/// at a zero row for padding). The right-hand side is a panel of `PackedWeights`. Accumulators stay
/// in SIMD registers; bias and the activation clamp are applied in the output stage.
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
        let initial = load(bias)
        var c0 = initial, c1 = initial, c2 = initial, c3 = initial
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
        store(clamp(c0, lower, upper), c, columns)
        store(clamp(c1, lower, upper), c + ldc, columns)
        store(clamp(c2, lower, upper), c + 2 * ldc, columns)
        store(clamp(c3, lower, upper), c + 3 * ldc, columns)
    }

    /// Computes one row of a tile (row `row` of the tap pointers): used for the rows left over when
    /// the row count is not a multiple of `mr`, and for matrix-vector products.
    @inline(__always)
    static func tile1(
        a: UnsafePointer<UnsafePointer<Float>>, row: Int, taps: Int, depth: Int, b: UnsafePointer<Float>,
        bias: UnsafePointer<Float>, lower: Float, upper: Float,
        c: UnsafeMutablePointer<Float>, columns: Int
    ) {
        // Two accumulators (even and odd k) hide the add latency of a single dependency chain.
        var even = load(bias)
        var odd = Vector()
        var w = b
        for t in 0..<taps {
            let a0 = a[t * mr + row]
            var k = 0
            while k + 1 < depth {
                even += load(w) * a0[k]
                odd += load(w + nr) * a0[k + 1]
                w += 2 * nr
                k += 2
            }
            if k < depth {
                even += load(w) * a0[k]
                w += nr
            }
        }
        store(clamp(even + odd, lower, upper), c, columns)
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

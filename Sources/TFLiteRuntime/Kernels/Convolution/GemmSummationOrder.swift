/// The order in which LiteRT's builtin float GEMM (Eigen, built for SSE without FMA) sums each
/// output of `C[P, O] = A[P, K] · B[K, O]`, so that ours gives the same bits.
///
/// LiteRT hands CONV_2D, FULLY_CONNECTED, BATCH_MATMUL and TRANSPOSE_CONV to Eigen with the output
/// channels `O` as Eigen's rows and the pixels (or batch rows) `P` as its columns. Eigen then picks
/// a code path per block of the output, and each path rounds differently (every product is rounded
/// before it is added, on all of them):
///
/// - one pixel (`P == 1`) or one channel (`O == 1`): a matrix-vector product, four partial sums
///   over k mod 4, combined `(s0 + s2) + (s1 + s3)`, then the last `K mod 4` products (`.gemv`);
/// - a tiny product (`K + O + P < 20`): a dot product per output with two 4-float accumulators over
///   alternate groups of four, then the same reduction (`.dot`);
/// - channels in whole blocks of 8: one running sum from zero, k in order (`.sequential`);
/// - then a block of 4 channels: for pixels in whole groups of 4, even and odd k in two sums up to
///   the last multiple of 8, added, then the rest in order (`.evenOdd`);
/// - the last `O mod 4` channels: for pixels in whole groups of 4, four sums over k mod 4 combined
///   `(s0 + s1) + (s2 + s3)`, then the rest in order (`.fourWay`);
/// - pixels past the last whole group of 4: `.sequential`.
///
/// The bias is added to the finished sum. Worked out by comparing every output of the committed
/// fixtures and the MobileNet models with LiteRT 2.3, layer by layer (`mlkit run --dump-intermediates`).
/// The microkernels compute `.sequential` (and `.gemv` for one pixel); `IndirectGemm` recomputes the
/// few outputs that take another path with `GemmSummationOrder.dot`.
enum GemmSummationOrder: Equatable {
    case sequential, evenOdd, fourWay, gemv, dot

    /// The path Eigen takes for output (`pixel`, `channel`) of a product with `pixels` rows,
    /// `channels` columns and reduction length `depth`.
    static func of(pixel: Int, channel: Int, pixels: Int, channels: Int, depth: Int) -> GemmSummationOrder {
        if pixels == 1 || channels == 1 { return .gemv }
        if depth + channels + pixels < 20 { return .dot }
        let whole8 = channels / 8 * 8
        guard channel >= whole8, pixel < pixels / 4 * 4 else { return .sequential }
        return channel < whole8 + (channels - whole8) / 4 * 4 ? .evenOdd : .fourWay
    }

    /// The first channel whose outputs may not be `.sequential` (the microkernels' order), or nil
    /// when every output is.
    static func firstIrregularChannel(pixels: Int, channels: Int, depth: Int) -> Int? {
        if pixels == 1 || channels == 1 || depth + channels + pixels < 20 { return 0 }
        guard pixels >= 4 else { return nil }
        let whole8 = channels / 8 * 8
        return whole8 < channels ? whole8 : nil
    }

    /// One output's sum in this order, without bias: the reduction runs over `(tap, k)` with `x(t)`
    /// the tap's `depth` activations and `w(i)` the weight of global index `i = t * depth + k`.
    @inline(__always)
    func sum(taps: Int, depth: Int, x: (Int) -> UnsafePointer<Float>, w: (Int) -> Float) -> Float {
        let total = taps * depth
        @inline(__always) func product(_ i: Int) -> Float { x(i / depth)[i % depth] * w(i) }
        switch self {
        case .sequential:
            var s: Float = 0
            for i in 0..<total { s += product(i) }
            return s
        case .evenOdd:
            let paired = total / 8 * 8
            var even: Float = 0, odd: Float = 0
            var i = 0
            while i < paired {
                even += product(i)
                odd += product(i + 1)
                i += 2
            }
            var s = even + odd
            for i in paired..<total { s += product(i) }
            return s
        case .fourWay, .gemv:
            let whole = total / 4 * 4
            var p = (Float(0), Float(0), Float(0), Float(0))
            var i = 0
            while i < whole {
                p.0 += product(i)
                p.1 += product(i + 1)
                p.2 += product(i + 2)
                p.3 += product(i + 3)
                i += 4
            }
            var s = self == .gemv ? (p.0 + p.2) + (p.1 + p.3) : (p.0 + p.1) + (p.2 + p.3)
            for i in whole..<total { s += product(i) }
            return s
        case .dot:
            // Groups of four products, alternately into two 4-float accumulators (the first group
            // initialises the first), then (l0 + l2) + (l1 + l3) of their sum, then the remainder.
            let groups = total / 4
            guard groups > 0 else {
                var s: Float = 0
                for i in 0..<total { s += product(i) }
                return s
            }
            func group(_ g: Int) -> SIMD4<Float> {
                SIMD4(product(4 * g), product(4 * g + 1), product(4 * g + 2), product(4 * g + 3))
            }
            var a = group(0)
            if groups > 1 {
                var b = group(1)
                var g = 2
                while g + 1 < groups {
                    a += group(g)
                    b += group(g + 1)
                    g += 2
                }
                a += b
                if g < groups { a += group(g) }
            }
            var s = (a[0] + a[2]) + (a[1] + a[3])
            for i in (4 * groups)..<total { s += product(i) }
            return s
        }
    }
}

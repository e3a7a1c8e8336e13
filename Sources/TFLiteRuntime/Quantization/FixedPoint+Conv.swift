import Foundation

/// Helpers shared by the quantized convolution family (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED,
/// TRANSPOSE_CONV, BATCH_MATMUL) and quantized pooling.
extension FixedPoint {
    /// Per-output-channel multipliers the way LiteRT's `PopulateConvolutionQuantizationParams`
    /// computes them: `double(input_scale) * double(filter_scale[c]) / double(output_scale)`, then
    /// `QuantizeMultiplier`. A per-tensor filter uses its one scale for every channel.
    ///
    /// With `legacy`, the one per-tensor multiplier of `GetQuantizedConvolutionMultipler` instead:
    /// `double(float(input_scale * filter_scale)) / double(output_scale)` — the product is rounded to
    /// float first, which moves the multiplier by a few units and flips rare near-tie results. LiteRT
    /// uses it for uint8 CONV_2D / DEPTHWISE_CONV_2D / TRANSPOSE_CONV, per-tensor FULLY_CONNECTED (all
    /// types) and BATCH_MATMUL; the per-channel arrays (int8/int16 convolutions, per-channel FC) use the
    /// double product.
    static func channelMultipliers(
        inputScale: Float, filterScales: [Float], outputScale: Float, channels: Int, legacy: Bool = false
    ) -> [Multiplier] {
        if legacy {
            let m = legacyMultiplier(inputScale: inputScale, filterScale: filterScales[0], outputScale: outputScale)
            return [Multiplier](repeating: m, count: channels)
        }
        return (0..<channels).map { c in
            let fs = filterScales.count == 1 ? filterScales[0] : filterScales[c]
            let real = Double(inputScale) * Double(fs) / Double(outputScale)
            return safeQuantizeMultiplier(real)
        }
    }

    /// `quantizeMultiplier` that never traps on scales from a model: NaN or negative ratios give 0,
    /// an infinite one the largest multiplier.
    static func safeQuantizeMultiplier(_ real: Double) -> Multiplier {
        if real.isNaN || real <= 0 { return Multiplier(multiplier: 0, shift: 0) }
        if real.isInfinite { return Multiplier(multiplier: Int32.max, shift: 30) }
        return quantizeMultiplier(real)
    }

    /// LiteRT's `GetQuantizedConvolutionMultipler`: `double(float(sx * sw)) / double(sy)`.
    static func legacyMultiplier(inputScale: Float, filterScale: Float, outputScale: Float) -> Multiplier {
        safeQuantizeMultiplier(Double(inputScale * filterScale) / Double(outputScale))
    }

    /// How a LiteRT kernel rounds `acc × multiplier × 2^(shift − 31)` in its output stage.
    enum GemmRounding {
        /// Reference kernels, DEPTHWISE_CONV_2D, pooling: `MultiplyByQuantizedMultiplier`, gemmlowp's
        /// double rounding with both roundings' ties away from zero.
        case reference
        /// LiteRT's optimized CONV_2D / FULLY_CONNECTED, whose output stage runs in `cpu_backend_gemm`
        /// (ruy's x86 kernels and the NEON custom GEMV): saturating rounding doubling high multiply,
        /// then a rounding right shift whose ties go toward +∞ (NEON `vrshl` semantics) instead of away
        /// from zero. Measured against LiteRT on x86 (mobilenet_v2 uint8 differs in ~0.2% of values
        /// otherwise); ruy's documented single-rounding formula does not match LiteRT's output.
        case gemm
    }

    /// `x × m × 2^(shift − 31)` rounded as `rounding` says.
    @inline(__always)
    static func multiply(_ x: Int32, by m: Multiplier, rounding: GemmRounding) -> Int32 {
        switch rounding {
        case .reference:
            return multiply(x, by: m)
        case .gemm:
            let left = m.shift > 0 ? m.shift : 0
            let right = m.shift > 0 ? 0 : -m.shift
            let high = saturatingRoundingDoublingHighMul(x &<< Int32(left), m.multiplier)
            if right == 0 { return high }
            return Int32(truncatingIfNeeded: (Int64(high) + (Int64(1) << (right - 1))) >> Int64(right))
        }
    }

    /// `clamp(multiply(acc, m) + zeroPoint, lo, hi)`: the output stage of every 8-bit kernel.
    @inline(__always)
    static func requantize(
        _ acc: Int32, _ m: Multiplier, zeroPoint: Int32, lo: Int32, hi: Int32, rounding: GemmRounding = .reference
    ) -> Int32 {
        min(max(multiply(acc, by: m, rounding: rounding) &+ zeroPoint, lo), hi)
    }

    /// LiteRT's rounding integer average (pooling): `(sum ± count/2) / count`, truncating, so halves
    /// round away from zero.
    @inline(__always)
    static func roundingAverage(_ sum: Int32, count: Int32) -> Int32 {
        sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count
    }

    /// LiteRT's `SymmetricQuantizeFloats` (hybrid kernels): per row, scale = max|x| / 127 and
    /// `q = round(x * 127 / max|x|)` clamped to ±127. Returns the scale (1 for an all-zero row, as LiteRT).
    @discardableResult
    static func symmetricQuantize(_ x: UnsafePointer<Float>, count: Int, into q: UnsafeMutablePointer<Int8>) -> Float {
        var lo: Float = 0, hi: Float = 0
        if count > 0 {
            lo = x[0]
            hi = x[0]
            for i in 1..<count {
                lo = Swift.min(lo, x[i])
                hi = Swift.max(hi, x[i])
            }
        }
        let p = symmetricParameters(lo: lo, hi: hi)
        if p.allZero {
            q.update(repeating: 0, count: count)
            return 1
        }
        let scaleInv = p.scaleInv
        for i in 0..<count {
            let v = (x[i] * scaleInv).rounded(.toNearestOrAwayFromZero)
            q[i] = v.isNaN ? 0 : Int8(Swift.min(Swift.max(v, -127), 127))
        }
        return p.scale
    }

    /// The quantization parameters of a hybrid row. `allZero`: the row quantizes to zeros with
    /// scale 1 and offset 0 (nothing to compute per element).
    typealias HybridRow = (scale: Float, scaleInv: Float, offset: Int32, allZero: Bool)

    /// `symmetricQuantize`'s scale, inverse scale and offset (0) from the row's smallest and largest value.
    static func symmetricParameters(lo: Float, hi: Float) -> HybridRow {
        let range = Swift.max(abs(lo), abs(hi))
        if range == 0 { return (1, 0, 0, true) }
        return (range / 127, Float(127) / range, 0, false)
    }

    /// `asymmetricQuantize`'s scale, inverse scale and offset from the row's smallest and largest value.
    static func asymmetricParameters(lo: Float, hi: Float) -> HybridRow {
        let qmin: Float = -128, qmax: Float = 127
        let rmin = Swift.min(lo, 0), rmax = Swift.max(hi, 0)
        if rmin == rmax { return (1, 0, 0, true) }
        let scale = (rmax - rmin) / (qmax - qmin)
        let zeroMin = qmin - rmin / scale, zeroMax = qmax - rmax / scale
        let errMin = abs(qmin) + abs(rmin / scale), errMax = abs(qmax) + abs(rmax / scale)
        let zero = errMin < errMax ? zeroMin : zeroMax
        let offset: Int32
        if !zero.isFinite {
            offset = 0
        } else if zero <= qmin {
            offset = Int32(qmin)
        } else if zero >= qmax {
            offset = Int32(qmax)
        } else {
            offset = Int32(zero.rounded(.toNearestOrAwayFromZero))
        }
        return (scale, 1 / scale, offset, false)
    }

    /// LiteRT's `AsymmetricQuantizeFloats` (hybrid kernels with asymmetric inputs): int8 over the
    /// row's [min(0,lo), max(0,hi)]; returns (scale, offset) with offset the int8 zero point
    /// ((1, 0) for a constant-zero row).
    ///
    /// The x86 LiteRT wheel runs the NEON version of it (through NEON_2_SSE), which works in float,
    /// not double, and adds the offset after rounding: with the scale from double arithmetic, a
    /// third of a MobileNetV3 hybrid layer's outputs came out one ulp off.
    static func asymmetricQuantize(
        _ x: UnsafePointer<Float>, count: Int, into q: UnsafeMutablePointer<Int8>
    ) -> (scale: Float, offset: Int32) {
        var lo: Float = 0, hi: Float = 0
        if count > 0 {
            lo = x[0]
            hi = x[0]
            for i in 1..<count {
                lo = Swift.min(lo, x[i])
                hi = Swift.max(hi, x[i])
            }
        }
        let p = asymmetricParameters(lo: lo, hi: hi)
        if p.allZero {
            q.update(repeating: 0, count: count)
            return (1, 0)
        }
        let scale = p.scale, offset = p.offset, scaleInv = p.scaleInv
        let offsetFloat = Float(offset)
        for i in 0..<count {
            let v = (x[i] * scaleInv).rounded(.toNearestOrAwayFromZero) + offsetFloat
            q[i] = v.isNaN ? 0 : Int8(Swift.min(Swift.max(v, -128), 127))
        }
        return (scale, offset)
    }
}

/// Integer dot products for the quantized kernels (vectorized by the compiler).
enum QuantizedDot {
    @inline(__always)
    static func dot(_ a: UnsafePointer<Int16>, _ b: UnsafePointer<Int16>, _ n: Int) -> Int32 {
        var s: Int32 = 0
        for i in 0..<n { s &+= Int32(a[i]) &* Int32(b[i]) }
        return s
    }

    @inline(__always)
    static func dot64(_ a: UnsafePointer<Int16>, _ b: UnsafePointer<Int16>, _ n: Int) -> Int64 {
        var s: Int64 = 0
        for i in 0..<n { s &+= Int64(Int32(a[i]) &* Int32(b[i])) }
        return s
    }

    @inline(__always)
    static func dot(_ a: UnsafePointer<Int8>, _ b: UnsafePointer<Int8>, _ n: Int) -> Int32 {
        var s: Int32 = 0
        for i in 0..<n { s &+= Int32(a[i]) &* Int32(b[i]) }
        return s
    }
}

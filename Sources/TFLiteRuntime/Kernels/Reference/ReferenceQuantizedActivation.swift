import Foundation

/// Plain scalar versions of LiteRT's quantized activations, one input value at a time: the
/// oracle for tests, and what `UnaryKernel` tabulates once per node (every 8-bit input byte, or
/// every int16 value) so its inner loop is a table lookup.
enum ReferenceQuantizedActivation {
    /// A tensor's per-tensor quantization, as the scalar functions need it.
    struct Params {
        var inputScale: Float
        var inputZeroPoint: Int32
        var outputScale: Float
        var outputZeroPoint: Int32
        var qmin: Int32
        var qmax: Int32
    }

    /// LiteRT's `LUTPopulateInt8` for one value: transform the dequantized input in float,
    /// requantize with `round` (ties away from zero), then truncate after adding the zero point.
    static func floatTransform(_ v: Int32, _ p: Params, _ transform: (Float) -> Float) -> Int32 {
        let dequantized = p.inputScale * Float(v - p.inputZeroPoint)
        let inverseScale: Float = 1 / p.outputScale
        let rescaled = (transform(dequantized) * inverseScale).rounded(.toNearestOrAwayFromZero)
        return min(p.qmax, max(p.qmin, truncateToInt32(rescaled + Float(p.outputZeroPoint))))
    }

    /// C++ `static_cast<int32_t>` of a float, made total (NaN and out-of-range give INT_MIN, as x86).
    @inline(__always)
    static func truncateToInt32(_ f: Float) -> Int32 {
        f.isNaN || f >= 2_147_483_648 || f < -2_147_483_648 ? Int32.min : Int32(f)
    }

    static func logistic(_ x: Float) -> Float { 1 / (1 + Foundation.exp(-x)) }
    static func tanh(_ x: Float) -> Float { Foundation.tanh(x) }
    static func elu(_ x: Float) -> Float { x < 0 ? Foundation.expm1(x) : x }
    static func gelu(_ x: Float) -> Float { 0.5 * x * Foundation.erfc(x * Float(-0.70710678118654752440)) }
    static func geluApproximate(_ x: Float) -> Float {
        let k = Float(1.12837916709551257390 * 0.70710678118654752440)
        return 0.5 * x * (1 + Foundation.tanh(k * (x + 0.044715 * x * x * x)))
    }

    /// RELU, RELU6, RELU_N1_TO_1 (`QuantizedReluX`): requantize, then clamp to the activation's
    /// range computed with `roundf` in the output scale. `upper` nil means no upper bound.
    static func reluX(_ v: Int32, _ p: Params, multiplier m: FixedPoint.Multiplier, lower: Float, upper: Float?) -> Int32 {
        let lo = max(p.qmin, p.outputZeroPoint &+ truncateToInt32((lower / p.outputScale).rounded(.toNearestOrAwayFromZero)))
        let hi =
            upper.map { min(p.qmax, p.outputZeroPoint &+ truncateToInt32(($0 / p.outputScale).rounded(.toNearestOrAwayFromZero))) }
            ?? p.qmax
        let r = p.outputZeroPoint &+ FixedPoint.multiply(v - p.inputZeroPoint, by: m)
        return min(hi, max(lo, r))
    }

    /// LEAKY_RELU: the identity multiplier for x ≥ 0, alpha's (sign handled apart) below.
    static func leakyRelu(
        _ v: Int32, _ p: Params, identity: FixedPoint.Multiplier, alpha: FixedPoint.Multiplier
    ) -> Int32 {
        let x = v - p.inputZeroPoint
        var r = p.outputZeroPoint
        if x >= 0 {
            r &+= FixedPoint.multiply(x, by: identity)
        } else {
            let negative = alpha.multiplier < 0
            let safe = FixedPoint.Multiplier(multiplier: negative ? 0 &- alpha.multiplier : alpha.multiplier, shift: alpha.shift)
            let scaled = FixedPoint.multiply(x, by: safe)
            r &+= negative ? 0 &- scaled : scaled
        }
        return min(p.qmax, max(p.qmin, r))
    }

    /// HARD_SWISH's multipliers (`HardSwishPrepare`).
    struct HardSwishParams {
        var outputMultiplier: Int16
        var outputExponent: Int
        var reluishMultiplier: Int16
        var reluishExponent: Int
        init(_ p: Params) {
            let hires: Float = (1.0 / 128.0) * p.inputScale
            let reluishScale: Float = 3.0 / 32768.0
            let o = FixedPoint.quantizeMultiplier(Double(hires / p.outputScale))
            let r = FixedPoint.quantizeMultiplier(Double(hires / reluishScale))
            outputMultiplier = HardSwishParams.downScale(o.multiplier)
            outputExponent = o.shift
            reluishMultiplier = HardSwishParams.downScale(r.multiplier)
            reluishExponent = r.shift
        }
        static func downScale(_ m: Int32) -> Int16 {
            if m >= Int32.max - (1 << 15) { return Int16.max }
            return Int16(truncatingIfNeeded: (m + (1 << 15)) >> 16)
        }
    }

    static func srdhm16(_ a: Int16, _ b: Int16) -> Int16 {
        if a == b && a == Int16.min { return Int16.max }
        let ab = Int32(a) * Int32(b)
        let nudge: Int32 = ab >= 0 ? (1 << 14) : (1 - (1 << 14))
        return Int16(truncatingIfNeeded: (ab + nudge) / (1 << 15))
    }

    static func rdbpot16(_ x: Int16, _ exponent: Int) -> Int16 {
        if exponent <= 0 { return x }
        let mask = Int16(truncatingIfNeeded: (1 << exponent) - 1)
        let remainder = x & mask
        let threshold = (mask >> 1) + (x < 0 ? 1 : 0)
        return (x >> Int16(exponent)) &+ (remainder > threshold ? 1 : 0)
    }

    static func saturatingLeftShift16(_ v: Int16, _ amount: Int) -> Int16 {
        Int16(clamping: Int64(v) * (Int64(1) << amount))
    }

    /// HARD_SWISH on 8-bit values: LiteRT's int16 fixed-point algorithm (`reference_ops::HardSwish`).
    static func hardSwish(_ v: Int32, _ p: Params, _ h: HardSwishParams) -> Int32 {
        let input = Int16(truncatingIfNeeded: v - p.inputZeroPoint)
        let hires = Int16(truncatingIfNeeded: Int32(input) * (1 << 7))
        let preshiftOutput = srdhm16(hires, h.outputMultiplier)
        var reluish = hires
        if h.reluishExponent > 0 { reluish = saturatingLeftShift16(reluish, h.reluishExponent - 1) }
        reluish = srdhm16(reluish, h.reluishMultiplier)
        if h.reluishExponent > 0 { reluish = saturatingLeftShift16(reluish, 1) }
        if h.reluishExponent < 0 { reluish = rdbpot16(reluish, -h.reluishExponent) }
        reluish = Int16(truncatingIfNeeded: (Int32(reluish) + (1 << 15)) >> 1)
        // LiteRT's own SaturatingDoublingHighMul (truncating, no rounding nudge).
        let product: Int16 =
            reluish == preshiftOutput && reluish == Int16.min
            ? Int16.max : Int16(truncatingIfNeeded: (Int32(reluish) * Int32(preshiftOutput)) / (1 << 15))
        var out = rdbpot16(product, -h.outputExponent)
        out = out &+ Int16(truncatingIfNeeded: p.outputZeroPoint)
        return min(p.qmax, max(p.qmin, Int32(out)))
    }

    /// ABS (`AbsEvalQuantized`): |x − zp_in|, rescaled only when the scales differ.
    static func abs(_ v: Int32, _ p: Params, multiplier m: FixedPoint.Multiplier?) -> Int32 {
        let value = Swift.abs(v - p.inputZeroPoint)
        let r = m.map { FixedPoint.multiply(value, by: $0) } ?? value
        return min(p.qmax, max(p.qmin, r &+ p.outputZeroPoint))
    }

    /// SQRT (`SqrtEvalQuantized`): float sqrt, then a *truncating* requantization. Values below
    /// the input zero point are an error in LiteRT (the kernel checks them before the table).
    static func sqrt(_ v: Int32, _ p: Params) -> Int32 {
        let dequantized = p.inputScale * Float(v - p.inputZeroPoint)
        let q = truncateToInt32(Foundation.sqrt(dequantized) / p.outputScale) &+ p.outputZeroPoint
        return min(p.qmax, max(p.qmin, q))
    }

    /// RSQRT on int8 (`RsqrtEvalQuantizedInt8`): 1/√(x − zp) from LiteRT's fixed-point inverse square
    /// root, scaled by `1 / (√s_in · s_out)` through a 2^20 intermediate; 0 maps to the maximum.
    static func rsqrt(_ v: Int32, _ p: Params, multiplier m: FixedPoint.Multiplier) -> Int32 {
        let value = v - p.inputZeroPoint
        if value == 0 { return p.qmax }
        let inv = FixedPoint.inverseSqrtMultiplier(value)
        let data = FixedPoint.multiply(Int32(1), by: FixedPoint.Multiplier(multiplier: inv.multiplier, shift: inv.shift + 20))
        let out = FixedPoint.multiply(data, by: FixedPoint.Multiplier(multiplier: m.multiplier, shift: m.shift - 20))
            &+ p.outputZeroPoint
        return min(p.qmax, max(p.qmin, out))
    }
}

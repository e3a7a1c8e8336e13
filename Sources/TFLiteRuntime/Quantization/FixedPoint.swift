import Foundation

/// Fixed-point arithmetic with TensorFlow Lite's exact rounding, for integer kernels.
///
/// Quantized kernels must produce LiteRT's results bit for bit, so real-valued scale ratios are
/// turned into a 32-bit multiplier and a power-of-two shift the same way LiteRT does
/// (`QuantizeMultiplier`), and products are rounded the same way (gemmlowp's
/// saturating rounding doubling high multiply, then a rounding right shift).
enum FixedPoint {
    /// A real multiplier `m` as `multiplier × 2^(shift − 31)`, with `multiplier` in [2^30, 2^31).
    struct Multiplier: Equatable {
        var multiplier: Int32
        var shift: Int
    }

    /// Splits a positive real multiplier into a Q31 multiplier and a shift (LiteRT's `QuantizeMultiplier`).
    static func quantizeMultiplier(_ real: Double) -> Multiplier {
        if real == 0 || real.isNaN { return Multiplier(multiplier: 0, shift: 0) }
        // Never trap on model data: an infinite ratio (a zero or infinite scale) saturates.
        if real.isInfinite { return Multiplier(multiplier: real > 0 ? Int32.max : Int32.min + 1, shift: 30) }
        let parts = frexp(real)
        var shift = parts.1
        var fixed = Int64((parts.0 * Double(Int64(1) << 31)).rounded(.toNearestOrAwayFromZero))
        if fixed == Int64(1) << 31 {
            fixed /= 2
            shift += 1
        }
        if shift < -31 {
            shift = 0
            fixed = 0
        }
        if shift > 30 {
            shift = 30
            fixed = (Int64(1) << 31) - 1
        }
        return Multiplier(multiplier: Int32(fixed), shift: shift)
    }

    /// gemmlowp's `SaturatingRoundingDoublingHighMul`: round(a × b / 2^31), saturating the one overflow case.
    @inline(__always)
    static func saturatingRoundingDoublingHighMul(_ a: Int32, _ b: Int32) -> Int32 {
        if a == b && a == Int32.min { return Int32.max }
        let product = Int64(a) * Int64(b)
        let nudge: Int64 = product >= 0 ? (1 << 30) : (1 - (1 << 30))
        // Division (not a shift) so that it truncates toward zero, as in C++.
        return Int32(truncatingIfNeeded: (product + nudge) / (Int64(1) << 31))
    }

    /// gemmlowp's `RoundingDivideByPOT`: x / 2^exponent rounded to nearest, ties away from zero.
    @inline(__always)
    static func roundingDivideByPOT(_ x: Int32, _ exponent: Int) -> Int32 {
        if exponent == 0 { return x }
        let mask = Int32(truncatingIfNeeded: (Int64(1) << exponent) - 1)
        let remainder = x & mask
        let threshold = (mask >> 1) + (x < 0 ? 1 : 0)
        return (x >> Int32(exponent)) + (remainder > threshold ? 1 : 0)
    }

    /// `x × multiplier × 2^(shift − 31)` with LiteRT's double rounding (`MultiplyByQuantizedMultiplier`).
    @inline(__always)
    static func multiply(_ x: Int32, by m: Multiplier) -> Int32 {
        let leftShift = m.shift > 0 ? m.shift : 0
        let rightShift = m.shift > 0 ? 0 : -m.shift
        return roundingDivideByPOT(
            saturatingRoundingDoublingHighMul(x &* Int32(truncatingIfNeeded: Int64(1) << leftShift), m.multiplier),
            rightShift)
    }

    /// For multipliers below one (shift ≤ 0): `MultiplyByQuantizedMultiplierSmallerThanOneExp`.
    @inline(__always)
    static func multiplySmallerThanOne(_ x: Int32, by m: Multiplier) -> Int32 {
        roundingDivideByPOT(saturatingRoundingDoublingHighMul(x, m.multiplier), -m.shift)
    }

    /// For multipliers of one or more (shift ≥ 0): `MultiplyByQuantizedMultiplierGreaterThanOne`.
    @inline(__always)
    static func multiplyGreaterThanOne(_ x: Int32, by m: Multiplier) -> Int32 {
        saturatingRoundingDoublingHighMul(x &* Int32(truncatingIfNeeded: Int64(1) << m.shift), m.multiplier)
    }

    /// The 64-bit-input variant LiteRT uses for int16 activations with int64 accumulators: the
    /// multiplier is first reduced to 16 bits (rounded), then one rounding shift.
    @inline(__always)
    static func multiply(_ x: Int64, by m: Multiplier) -> Int32 {
        let reduced: Int64 = m.multiplier < 0x7FFF_0000 ? (Int64(m.multiplier) + (1 << 15)) >> 16 : 0x7FFF
        let totalShift = Int64(15 - m.shift)
        let round = Int64(1) << (totalShift - 1)
        return Int32(clamping: (x &* reduced &+ round) >> totalShift)
    }

    /// The activation range of a quantized output: the type's range intersected with the fused
    /// activation's, in quantized units (LiteRT's `CalculateActivationRangeQuantized`).
    static func activationRange(
        _ activation: FusedActivation, scale: Float, zeroPoint: Int, qmin: Int32, qmax: Int32
    ) -> (min: Int32, max: Int32) {
        func quantize(_ f: Float) -> Int32 {
            let q = Int64(zeroPoint) + Int64((f / scale).rounded(.toNearestOrAwayFromZero))
            return Int32(clamping: q)
        }
        switch activation {
        case .relu: return (max(qmin, quantize(0)), qmax)
        case .relu6: return (max(qmin, quantize(0)), min(qmax, quantize(6)))
        case .reluN1To1: return (max(qmin, quantize(-1)), min(qmax, quantize(1)))
        default: return (qmin, qmax)
        }
    }
}

extension TensorType {
    /// The representable range of an integer quantized type.
    var quantizedRange: (min: Int32, max: Int32)? {
        switch self {
        case .uint8: return (0, 255)
        case .int8: return (-128, 127)
        case .int16: return (-32768, 32767)
        case .int32: return (Int32.min, Int32.max)
        default: return nil
        }
    }
}

/// NEON arithmetic as LiteRT's x86 builds compute it.
///
/// LiteRT's `neon_check.h` defines `USE_NEON` on x86 with SSE4.1 and maps the intrinsics through
/// NEON_2_SSE, so its optimized kernels take their vector loops on x86 too. Those loops round
/// differently from the scalar tails (`vqrdmulh` and `vrshl` round ties toward +infinity, gemmlowp
/// rounds them away from zero; `vcvtnq` rounds float ties to even), so a bit-exact kernel has to
/// use these helpers for the elements LiteRT handles in full vector blocks, and the scalar
/// helpers for the rest.
extension FixedPoint {
    /// `vqrdmulhq_s32`: `(2ab + 2^31) >> 32`, saturating the one overflow case.
    @inline(__always)
    static func neonRoundingDoublingHighMul(_ a: Int32, _ b: Int32) -> Int32 {
        if a == Int32.min && b == Int32.min { return Int32.max }
        return Int32(truncatingIfNeeded: (Int64(a) * Int64(b) + (1 << 30)) >> 31)
    }

    /// `vshlq_s32` by a signed amount: left when positive (wrapping), arithmetic right (truncating) when negative.
    @inline(__always)
    static func neonShift(_ x: Int32, _ amount: Int) -> Int32 {
        amount >= 0 ? x &<< Int32(amount) : x >> Int32(-amount)
    }

    /// `vrshlq_s32` by `-amount`: a rounding right shift, ties toward +infinity.
    @inline(__always)
    static func neonRoundingShiftRight(_ x: Int32, _ amount: Int) -> Int32 {
        if amount <= 0 { return x }
        return Int32(truncatingIfNeeded: (Int64(x) + (Int64(1) << (amount - 1))) >> Int64(amount))
    }

    /// LiteRT's NEON `MultiplyByQuantizedMultiplier4Rows` (double-rounding build) for one lane.
    @inline(__always)
    static func neonMultiply(_ x: Int32, by m: Multiplier) -> Int32 {
        let left = max(m.shift, 0), right = max(-m.shift, 0)
        return neonRoundingShiftRight(neonRoundingDoublingHighMul(x &<< Int32(left), m.multiplier), right)
    }

    /// `vcvtnq_s32_f32` as NEON_2_SSE implements it (`cvtps2dq`): round half to even; NaN and
    /// out-of-range values give `Int32.min`.
    @inline(__always)
    static func neonRoundToInt32(_ f: Float) -> Int32 {
        let r = f.rounded(.toNearestOrEven)
        return r.isNaN || r >= 2_147_483_648 || r < -2_147_483_648 ? Int32.min : Int32(r)
    }
}

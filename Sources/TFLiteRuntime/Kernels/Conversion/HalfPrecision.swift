/// Bit-level conversions between float32 and the 16-bit float formats, written out so they behave
/// the same on every platform (Swift's `Float16` is missing on Intel Macs).
///
/// Rounding is IEEE round-to-nearest-even, and a NaN becomes the canonical quiet NaN with its sign,
/// as in the FP16 library and Eigen that LiteRT uses.
enum HalfPrecision {
    /// The float32 value of IEEE binary16 `bits` (exact).
    @inline(__always)
    static func float(fromHalf bits: UInt16) -> Float {
        let sign = UInt32(bits & 0x8000) << 16
        let exponent = UInt32(bits >> 10) & 0x1F
        let mantissa = UInt32(bits & 0x3FF)
        switch exponent {
        case 0:
            // Zero or subnormal: mantissa × 2⁻²⁴, exact in float32.
            let magnitude = Float(mantissa) * Float(sign: .plus, exponent: -24, significand: 1)
            return sign != 0 ? -magnitude : magnitude
        case 31:
            return Float(bitPattern: sign | 0x7F80_0000 | (mantissa << 13))
        default:
            return Float(bitPattern: sign | ((exponent + 112) << 23) | (mantissa << 13))
        }
    }

    /// `value` rounded to IEEE binary16 bits.
    @inline(__always)
    static func half(from value: Float) -> UInt16 {
        let bits = value.bitPattern
        let sign = UInt16(truncatingIfNeeded: (bits >> 16) & 0x8000)
        let exponent = Int((bits >> 23) & 0xFF)
        let mantissa = bits & 0x7F_FFFF
        if exponent == 0xFF { return sign | (mantissa != 0 ? 0x7E00 : 0x7C00) }
        if exponent == 0 { return sign }  // float32 subnormals are far below half's range
        let significand = mantissa | 0x80_0000  // 24 bits with the implicit one
        let halfExponent = exponent - 112  // rebias from 127 to 15
        if halfExponent >= 31 { return sign | 0x7C00 }
        if halfExponent >= 1 {
            // Normal: keep 11 of 24 significand bits; a carry out of the mantissa bumps the exponent
            // (up to infinity), which the addition below does by itself.
            let rounded = roundShift(significand, by: 13)
            return sign | UInt16(truncatingIfNeeded: (UInt32(halfExponent) << 10) + rounded - 0x400)
        }
        // Subnormal (or zero after rounding): value / 2⁻²⁴ as an integer.
        let shift = 14 - halfExponent
        if shift >= 26 { return sign }
        return sign | UInt16(truncatingIfNeeded: roundShift(significand, by: UInt32(shift)))
    }

    /// `value >> shift` rounded to nearest, ties to even.
    @inline(__always)
    private static func roundShift(_ value: UInt32, by shift: UInt32) -> UInt32 {
        let kept = value >> shift
        let rest = value & ((1 << shift) - 1)
        let halfway = UInt32(1) << (shift - 1)
        return rest > halfway || (rest == halfway && kept & 1 == 1) ? kept + 1 : kept
    }

    /// The float32 value of bfloat16 `bits` (exact).
    @inline(__always)
    static func float(fromBFloat16 bits: UInt16) -> Float { Float(bitPattern: UInt32(bits) << 16) }

    /// `value` rounded to bfloat16 bits.
    @inline(__always)
    static func bfloat16(from value: Float) -> UInt16 {
        let bits = value.bitPattern
        if value.isNaN { return UInt16(truncatingIfNeeded: bits >> 16) & 0x8000 | 0x7FC0 }
        let bias = 0x7FFF + ((bits >> 16) & 1)
        return UInt16(truncatingIfNeeded: (bits &+ bias) >> 16)
    }
}

extension FixedPoint {
    /// gemmlowp's `RoundingDivideByPOT` as LiteRT's x86 build evaluates it for any exponent.
    ///
    /// LiteRT reaches exponents outside 0...31 in a few integer kernels (quantized DIV with a small
    /// dividend over a large divisor; quantized comparisons with a scale above one, whose positive
    /// multiplier shift becomes a negative exponent). C++ leaves those shifts undefined; x86 masks
    /// the 64-bit mask's shift count to 6 bits and the 32-bit arithmetic shift's to 5, and LiteRT's
    /// outputs show exactly that. For exponents 0...31 this is the plain rounding shift.
    static func roundingDivideByPOTAsX86(_ x: Int32, _ exponent: Int) -> Int32 {
        let mask = Int32(truncatingIfNeeded: (Int64(1) << Int64(exponent & 63)) &- 1)
        let remainder = x & mask
        let threshold = (mask >> 1) &+ (x < 0 ? 1 : 0)
        return (x >> Int32(exponent & 31)) &+ (remainder > threshold ? 1 : 0)
    }
}

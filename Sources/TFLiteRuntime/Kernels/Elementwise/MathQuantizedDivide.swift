/// Quantized DIV (uint8, int8, int16) with LiteRT's integer arithmetic (`DivElementwise`).
///
/// Each quotient is formed without floats: the divisor's reciprocal as a Q0.31 number by gemmlowp's
/// Newton–Raphson `one_over_one_plus_x_for_x_in_0_1`, the dividend scaled up to its headroom, then one
/// rescale by `s1 / (s2 · s_out)` with the shift corrected for both normalisations. A divisor equal
/// to its zero point (a real zero) is an error, as in LiteRT.
struct MathQuantizedDivide {
    let offsetA: Int32
    let offsetB: Int32
    let outputOffset: Int32
    let multiplier: FixedPoint.Multiplier
    let range: (min: Int32, max: Int32)

    init(_ node: Node, a: RuntimeTensor, b: RuntimeTensor, out: RuntimeTensor, activation: FusedActivation) throws {
        guard let q = out.type.quantizedRange else { throw node.error("output type \(out.type.name) is not quantized") }
        for t in [a, b, out] {
            guard t.quantization != nil, t.scale > 0, t.scale.isFinite else {
                throw node.error("quantized DIV needs positive scales on both inputs and the output")
            }
        }
        offsetA = Int32(-a.zeroPoint)
        offsetB = Int32(-b.zeroPoint)
        outputOffset = Int32(out.zeroPoint)
        // LiteRT divides the float scales in float and only then widens to double; the rounding
        // decides ties such as 0.05 / (0.05 · 0.04) = 25 exactly.
        multiplier = FixedPoint.quantizeMultiplier(Double(a.scale / (b.scale * out.scale)))
        range = FixedPoint.activationRange(
            activation, scale: out.scale, zeroPoint: out.zeroPoint, qmin: q.min, qmax: q.max)
    }

    /// The quantized quotient of two stored values (`y + offsetB` is not zero).
    @inline(__always)
    func divide(_ x: Int32, _ y: Int32) -> Int32 {
        var numerator = x &+ offsetA
        var denominator = y &+ offsetB
        if denominator < 0 {
            // The reciprocal must be positive to serve as a multiplier.
            numerator = 0 &- numerator
            denominator = 0 &- denominator
        }
        let (reciprocal, reciprocalShift) = MathQuantizedDivide.reciprocal(denominator)
        let headroom = MathQuantizedDivide.leadingSignBits(numerator)
        let unscaled = FixedPoint.saturatingRoundingDoublingHighMul(
            numerator &* Int32(truncatingIfNeeded: Int64(1) << headroom), reciprocal)
        let totalShift = multiplier.shift - reciprocalShift - headroom
        let product = FixedPoint.saturatingRoundingDoublingHighMul(unscaled, multiplier.multiplier)
        let scaled = FixedPoint.roundingDivideByPOTAsX86(product, -totalShift)
        return min(range.max, max(range.min, outputOffset &+ scaled))
    }

    /// LiteRT's `GetReciprocal(x, 31, &shift)` for `x` > 0: 1/x as a Q0.31 raw and the number of bits
    /// `x` has above one.
    static func reciprocal(_ x: Int32) -> (raw: Int32, shift: Int) {
        let headroomPlusOne = UInt32(bitPattern: x).leadingZeroBitCount
        let shift = 31 - headroomPlusOne
        let shiftedMinusOne = Int32(bitPattern: (UInt32(bitPattern: x) << UInt32(headroomPlusOne)) &- (1 << 31))
        return (oneOverOnePlusX(shiftedMinusOne), shift)
    }

    /// gemmlowp's `CountLeadingSignBits` for int32.
    static func leadingSignBits(_ x: Int32) -> Int {
        if x >= 0 { return UInt32(x).leadingZeroBitCount - 1 }
        if x == Int32.min { return 0 }
        return (2 &* UInt32(-x) &- 1).leadingZeroBitCount
    }

    /// gemmlowp's `one_over_one_plus_x_for_x_in_0_1` on int32 raws: `a` in Q0.31, result in Q0.31.
    static func oneOverOnePlusX(_ a: Int32) -> Int32 {
        typealias F = FixedPoint
        let sum = Int64(a) + Int64(Int32.max)
        let halfDenominator = Int32(truncatingIfNeeded: (sum + (sum >= 0 ? 1 : -1)) / 2)
        let c48over17: Int32 = 1_515_870_810  // Q2.29
        let cNeg32over17: Int32 = -1_010_580_540
        let oneQ2: Int32 = 1 << 29
        var x = c48over17 &+ F.saturatingRoundingDoublingHighMul(halfDenominator, cNeg32over17)
        for _ in 0..<3 {
            let hx = F.saturatingRoundingDoublingHighMul(halfDenominator, x)
            let oneMinus = oneQ2 &- hx
            x = x &+ F.saturatingRoundingMultiplyByPOT(F.saturatingRoundingDoublingHighMul(x, oneMinus), 2)
        }
        return F.saturatingRoundingMultiplyByPOT(x, 1)
    }
}

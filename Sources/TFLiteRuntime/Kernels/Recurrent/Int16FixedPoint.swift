/// gemmlowp's 16-bit fixed-point logistic and tanh, which LiteRT's integer LSTM applies to its
/// int16 gates (`PortableApplySigmoid`, `PortableApplyTanh`).
///
/// A value is a raw `Int16` with a number of integer bits; the arithmetic below reproduces
/// gemmlowp's int16 semantics exactly (wrapping raw add/sub/negate, saturating rounding doubling
/// high multiply, 32-bit constants rescaled to 16 bits with a rounding shift).
enum Int16FixedPoint {
    // MARK: Raw operations

    @inline(__always) static func wrap(_ x: Int32) -> Int32 { Int32(Int16(truncatingIfNeeded: x)) }

    /// Saturating rounding doubling high multiply of two int16 raws.
    @inline(__always) static func mul(_ a: Int32, _ b: Int32) -> Int32 {
        if a == b && a == Int32(Int16.min) { return Int32(Int16.max) }
        let ab = a &* b  // int16 raws: the product fits
        let nudge: Int32 = ab >= 0 ? (1 << 14) : (1 - (1 << 14))
        return wrap((ab + nudge) / (1 << 15))
    }

    @inline(__always) static func roundingDivideByPOT(_ x: Int32, _ exponent: Int) -> Int32 {
        if exponent == 0 { return x }
        let mask: Int32 = (1 << Int32(exponent)) - 1
        let remainder = x & mask
        let threshold = (mask >> 1) + (x < 0 ? 1 : 0)
        return (x >> Int32(exponent)) + (remainder > threshold ? 1 : 0)
    }

    /// `SaturatingRoundingMultiplyByPOT<exponent>` on an int16 raw.
    @inline(__always) static func multiplyByPOT(_ x: Int32, _ exponent: Int) -> Int32 {
        if exponent == 0 { return x }
        if exponent < 0 { return roundingDivideByPOT(x, -exponent) }
        let threshold: Int32 = (1 << Int32(15 - exponent)) - 1
        if x > threshold { return Int32(Int16.max) }
        if x < -threshold { return Int32(Int16.min) }
        return wrap(x << Int32(exponent))
    }

    @inline(__always) static func saturatingAdd(_ a: Int32, _ b: Int32) -> Int32 {
        min(max(a + b, Int32(Int16.min)), Int32(Int16.max))
    }

    @inline(__always) static func roundingHalfSum(_ a: Int32, _ b: Int32) -> Int32 {
        let sum = a + b
        let sign: Int32 = sum >= 0 ? 1 : -1
        return wrap((sum + sign) / 2)
    }

    /// A gemmlowp 32-bit constant initializer rescaled to int16.
    @inline(__always) static func constant(_ value: Int32) -> Int32 {
        wrap(FixedPoint.roundingDivideByPOT(value, 16))
    }

    /// Raw of `1.0` with `integerBits` integer bits (the maximum raw when 1.0 is not representable).
    @inline(__always) static func one(_ integerBits: Int) -> Int32 {
        integerBits == 0 ? Int32(Int16.max) : Int32(1) << Int32(15 - integerBits)
    }

    // MARK: Functions

    /// exp(x) for x in [-1/4, 0), 0 integer bits.
    static func expOnIntervalNegativeQuarterToZero(_ a: Int32) -> Int32 {
        let constantTerm = constant(1_895_147_668)
        let oneThird = constant(715_827_883)
        let x = wrap(a + (1 << 12))  // a + 1/8
        let x2 = mul(x, x)
        let x3 = mul(x2, x)
        let x4 = mul(x2, x2)
        let x4Over4 = multiplyByPOT(x4, -2)
        let poly = multiplyByPOT(wrap(mul(wrap(x4Over4 + x3), oneThird) + x2), -1)
        return saturatingAdd(constantTerm, mul(constantTerm, wrap(x + poly)))
    }

    /// exp(a) for a ≤ 0 with `integerBits` integer bits; result has 0 integer bits.
    static func expOnNegativeValues(_ a: Int32, integerBits: Int) -> Int32 {
        let fractionalBits = 15 - integerBits
        let oneQuarter: Int32 = 1 << Int32(fractionalBits - 2)
        let mask = oneQuarter - 1
        let aModQuarterMinusQuarter = wrap((a & mask) - oneQuarter)
        var result = expOnIntervalNegativeQuarterToZero(multiplyByPOT(aModQuarterMinusQuarter, integerBits))
        let remainder = wrap(aModQuarterMinusQuarter - a)
        // gemmlowp's barrel shifter, written out: an array of its steps here was allocated on every
        // call, and the LSTM's gates call this for every value (a third of keras_lstm_mnist's time).
        @inline(__always) func step(_ exponent: Int, _ multiplier: Int32) {
            guard integerBits > exponent else { return }
            if remainder & (Int32(1) << Int32(fractionalBits + exponent)) != 0 {
                result = mul(result, constant(multiplier))
            }
        }
        step(-2, 1_672_461_947)
        step(-1, 1_302_514_674)
        step(0, 790_015_084)
        step(1, 290_630_308)
        step(2, 39_332_535)
        step(3, 720_401)
        step(4, 242)
        if integerBits > 5 {
            let clampB = 36 - integerBits
            let clamp = constant(-(Int32(1) << Int32(clampB)))
            if a < clamp { result = 0 }
        }
        if a == 0 { result = one(0) }
        return result
    }

    /// Newton–Raphson reciprocal shared by logistic and tanh: returns x ≈ 1 / half_denominator, 2 integer bits.
    private static func newtonReciprocal(_ halfDenominator: Int32) -> Int32 {
        let c48over17 = constant(1_515_870_810)
        let cNeg32over17 = constant(-1_010_580_540)
        var x = wrap(c48over17 + mul(halfDenominator, cNeg32over17))
        let oneF2 = one(2)
        for _ in 0..<3 {
            let hx = mul(halfDenominator, x)
            let oneMinus = wrap(oneF2 - hx)
            x = wrap(x + multiplyByPOT(mul(x, oneMinus), 2))
        }
        return x
    }

    /// 1 / (1 + a) for a in [0, 1], 0 integer bits.
    static func oneOverOnePlusX(_ a: Int32) -> Int32 {
        let x = newtonReciprocal(roundingHalfSum(a, one(0)))
        // ExactMulByPot<-1> keeps the raw (now 1 integer bit), Rescale<0> shifts left by 1.
        return multiplyByPOT(x, 1)
    }

    /// (1 - a) / (1 + a) for a in [0, 1], 0 integer bits.
    static func oneMinusXOverOnePlusX(_ a: Int32) -> Int32 {
        let x = newtonReciprocal(roundingHalfSum(a, one(0)))
        return multiplyByPOT(wrap(x - one(2)), 2)
    }

    /// gemmlowp `logistic` of a raw with `integerBits` integer bits; result in Q0.15.
    static func logistic(_ raw: Int16, integerBits: Int) -> Int16 {
        let a = Int32(raw)
        if a == 0 { return Int16(1 << 14) }
        let absInput = a > 0 ? a : wrap(-a)
        let positive = oneOverOnePlusX(expOnNegativeValues(wrap(-absInput), integerBits: integerBits))
        let result = a > 0 ? positive : wrap(one(0) - positive)
        return Int16(truncatingIfNeeded: result)
    }

    /// gemmlowp `tanh` of a raw with `integerBits` integer bits; result in Q0.15.
    static func tanh(_ raw: Int16, integerBits: Int) -> Int16 {
        let a = Int32(raw)
        if a == 0 { return 0 }
        let n = a < 0 ? a : wrap(-a)
        // neg_tanh_on_negative_values: ExactMulByPot<1> adds an integer bit, same raw.
        let t = oneMinusXOverOnePlusX(expOnNegativeValues(n, integerBits: integerBits + 1))
        return Int16(truncatingIfNeeded: a < 0 ? wrap(-t) : t)
    }
}


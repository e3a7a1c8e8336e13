import Foundation

/// The integer element types of quantized tensors, as kernels handle them generically.
protocol QuantizedElement: FixedWidthInteger {
    static var tensorType: TensorType { get }
}
extension UInt8: QuantizedElement { static var tensorType: TensorType { .uint8 } }
extension Int8: QuantizedElement { static var tensorType: TensorType { .int8 } }
extension Int16: QuantizedElement { static var tensorType: TensorType { .int16 } }

extension FixedPoint {
    /// LiteRT's `LUTPopulateInt8`: a 256-entry table of `transform` applied to each dequantized
    /// input byte, requantized into the output (float math, `round` half away from zero).
    /// Indexed by the input's raw byte (`UInt8(truncatingIfNeeded:)` of the value).
    static func lookupTable8<T: QuantizedElement>(
        _: T.Type, inputScale: Float, inputZeroPoint: Int32, outputScale: Float, outputZeroPoint: Int32,
        _ transform: (Float) -> Float
    ) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: 256)
        let inverseScale: Float = 1 / outputScale
        let lo = Int32(T.min), hi = Int32(T.max)
        for v in lo...hi {
            let dequantized = inputScale * Float(v - inputZeroPoint)
            let rescaled = (transform(dequantized) * inverseScale).rounded(.toNearestOrAwayFromZero)
            let sum = rescaled + Float(outputZeroPoint)
            // C++ static_cast<int32_t> of a float: truncation; out-of-range saturates here.
            let q: Int32 = sum.isNaN ? 0 : (sum >= 2_147_483_648 ? Int32.max : (sum <= -2_147_483_648 ? Int32.min : Int32(sum)))
            table[Int(UInt8(truncatingIfNeeded: v))] = UInt8(truncatingIfNeeded: min(hi, max(lo, q)))
        }
        return table
    }

    /// A 256-entry table from an exact integer function of the input value (for 8-bit unary ops
    /// whose LiteRT kernels compute per element: the table gives the same bytes).
    static func integerTable8<T: QuantizedElement>(_: T.Type, _ f: (Int32) -> Int32) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: 256)
        let lo = Int32(T.min), hi = Int32(T.max)
        for v in lo...hi {
            table[Int(UInt8(truncatingIfNeeded: v))] = UInt8(truncatingIfNeeded: min(hi, max(lo, f(v))))
        }
        return table
    }
}

/// LiteRT's int16 LOGISTIC and TANH (`reference_integer_ops::Logistic` / `Tanh`, the path its
/// optimized resolver takes whenever the input scale is not a power of two): the input is rescaled
/// to 1/(3·4096) units and `sigmoid_table_uint16` (sigmoid(i/24) in 0.16 format, LiteRT's constant
/// table, reproduced below as data) is interpolated linearly.
enum QuantizedInt16Sigmoid {
    /// LiteRT's `sigmoid_table_uint16` (tflite/kernels/internal/common.h).
    static let table: [UInt32] = [
        32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149,
        40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369,
        47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169,
        53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
        57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370,
        60565, 60753, 60935, 61110, 61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302,
        62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186, 63279, 63368, 63454, 63536,
        63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
        64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786,
        64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079,
        65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
        65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
        65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
        65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474,
        65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498,
        65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
        65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522,
        65523, 65523, 65524, 65524, 65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528,
        65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531,
        65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
        65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
        65534, 65534, 65534, 65535,
    ]

    /// The input multiplier and left shift of `SigmoidPrepare`/`TanhPrepare` for a non-power-of-two
    /// scale; nil when LiteRT would take its power-of-two fixed-point path instead.
    static func inputRescale(scale: Float, tanh: Bool) -> (multiplier: Int32, shift: Int32)? {
        let log2 = Foundation.log(scale) * (1 / Foundation.log(Float(2)))
        let rounded = log2.rounded(.toNearestOrAwayFromZero)
        let isPOT = Swift.abs(log2 - rounded) < 1e-3
        let potShift = 12 + Int(rounded)
        if isPOT && (potShift == 0 || (tanh && potShift == 1)) { return nil }
        var multiplier = Double(scale) * 4096.0 * 3.0
        var shift: Int32 = 0
        while multiplier <= 32767.0 / 2.0 && shift <= 30 {
            shift += 1
            multiplier *= 2.0
        }
        // C++'s cast of an out-of-range double is undefined; saturate instead of trapping.
        return (multiplier.isNaN ? 0 : Int32(min(multiplier, Double(Int32.max))), shift)
    }

    static func logistic(_ x: Int32, multiplier: Int32, shift: Int32) -> Int32 {
        let round: Int32 = shift > 0 ? 1 << (shift - 1) : 0
        let input = (x &* multiplier &+ round) >> shift
        let magnitude = UInt32(input.magnitude)
        let uh = magnitude >> 9
        var result: UInt32
        if uh >= 255 {
            result = 0x7FFF << 10
        } else {
            let ua = table[Int(uh)], ub = table[Int(uh) + 1]
            result = (ua << 9) &+ (magnitude & 0x1ff) &* (ub &- ua)
        }
        result = input >= 0 ? result &+ (1 << 9) : (1 << 25) &- result &+ (1 << 9) &- 1
        return Int32(Int16(truncatingIfNeeded: result >> 10))
    }

    static func tanh(_ x: Int32, multiplier: Int32, shift: Int32) -> Int32 {
        let round: Int32 = shift > 0 ? 1 << (shift - 1) : 0
        let input = (x &* multiplier &+ round) >> shift
        let magnitude = UInt32(input.magnitude)
        let uh = magnitude >> 8
        var result: Int32
        if uh >= 255 {
            result = 0xFFFF << 8
        } else {
            let ua = Int32(table[Int(uh)]), ub = Int32(table[Int(uh) + 1])
            result = (ua << 8) &+ Int32(magnitude & 0xFF) &* (ub &- ua)
        }
        result = input >= 0 ? result - (1 << 23) + (1 << 7) : -result + (1 << 23) + (1 << 7) - 1
        return Int32(Int16(truncatingIfNeeded: result >> 8))
    }
}

extension FixedPoint {
    /// gemmlowp's `SaturatingRoundingMultiplyByPOT<exponent>` on int32 raw values.
    @inline(__always)
    static func saturatingRoundingMultiplyByPOT(_ x: Int32, _ exponent: Int) -> Int32 {
        if exponent == 0 { return x }
        if exponent < 0 { return roundingDivideByPOT(x, -exponent) }
        let threshold = Int32((1 << (31 - exponent)) - 1)
        if x > threshold { return Int32.max }
        if x < -threshold { return Int32.min }
        return x << Int32(exponent)
    }

    /// LiteRT's `GetInvSqrtQuantizedMultiplierExp` with `reverse_shift` −1: 1/√input as a Q31
    /// multiplier and a left shift, by five Newton steps in gemmlowp fixed point (Q3 numbers).
    static func inverseSqrtMultiplier(_ value: Int32) -> Multiplier {
        var input = value
        if input <= 1 { return Multiplier(multiplier: Int32.max, shift: 0) }
        var shift = 11
        while input >= (1 << 29) {
            input /= 4
            shift += 1
        }
        let maxLeftShiftBits = UInt32(input).leadingZeroBitCount - 1
        let leftShiftBitPairs = maxLeftShiftBits / 2 - 1
        shift -= leftShiftBitPairs
        input <<= Int32(2 * leftShiftBitPairs)
        // Q3 fixed point: raw r means r / 2^28. Products of Qa and Qb are Q(a+b) (SRDHM of the raws).
        let fixedInput = input >> 1
        let halfInput = saturatingRoundingMultiplyByPOT(fixedInput, -1)
        let halfThree: Int32 = (1 << 28) + (1 << 27)
        var x: Int32 = 1 << 28
        for _ in 0..<5 {
            let x2 = saturatingRoundingDoublingHighMul(x, x)  // Q6
            let x3 = saturatingRoundingMultiplyByPOT(saturatingRoundingDoublingHighMul(x2, x), 6)  // Q9 → Q3
            let a = saturatingRoundingDoublingHighMul(halfThree, x)  // Q6
            let b = saturatingRoundingDoublingHighMul(halfInput, x3)  // Q6
            x = saturatingRoundingMultiplyByPOT(a &- b, 3)  // Q6 → Q3
        }
        x = saturatingRoundingDoublingHighMul(x, 1_518_500_250)  // × √2/2 (Q0): stays Q3
        var m = x
        if shift < 0 {
            m <<= Int32(-shift)
            shift = 0
        }
        return Multiplier(multiplier: m, shift: -shift)
    }
}

extension FixedPoint {
    /// LiteRT's `LUTPopulateInt16<FloatT>`: 513 samples of `transform` over the input's int16 range,
    /// each biased by half the interpolation error at its midpoint, for `lookup16`. `F` is the
    /// floating type LiteRT computes in (double for SOFTMAX's tables, float for GELU's).
    static func lookupTable16<F: BinaryFloatingPoint>(
        inputScale: F, inputZeroPoint: Int32, outputScale: F, outputZeroPoint: Int32, _ transform: (F) -> F
    ) -> [Int16] {
        let inputMin = inputScale * F(-32768 - inputZeroPoint)
        let inputMax = inputScale * F(32767 - inputZeroPoint)
        let outputMin = outputScale * F(-32768 - outputZeroPoint)
        let outputMax = outputScale * F(32767 - outputZeroPoint)
        let steps = 512
        let step = (inputMax - inputMin) / F(steps)
        let halfStep = step / 2
        let inverse = F(65536) / (outputMax - outputMin)
        func round(_ v: F) -> F { v.rounded(.toNearestOrAwayFromZero) }
        func clampToInt16(_ v: F) -> Int16 {
            let c = Swift.min(Swift.max(v, F(-32768)), F(32767))
            return c.isNaN ? 0 : Int16(c)
        }
        var table = [Int16](repeating: 0, count: steps + 1)
        for i in 0..<steps {
            let value = transform(inputMin + F(i) * step)
            let midpoint = transform(inputMin + F(i) * step + halfStep)
            let next = transform(inputMin + F(i + 1) * step)
            let sample = round(value * inverse)
            let interpolated = round((next * inverse + round(value * inverse)) / 2)
            let error = interpolated - round(midpoint * inverse)
            table[i] = clampToInt16(sample - round(error / 2))
        }
        table[steps] = clampToInt16(round(transform(inputMax) * inverse))
        return table
    }

    /// LiteRT's int16 `LUTLookup`: table entry `256 + (v >> 7)` plus the interpolated slope.
    @inline(__always)
    static func lookup16(_ value: Int16, _ table: UnsafePointer<Int16>) -> Int16 {
        let index = Int(256 + (Int32(value) >> 7))
        let offset = Int32(value & 0x7f)
        let base = table[index]
        let slope = Int32(table[index + 1] &- base)
        let delta = (slope * offset + 64) >> 7
        return Int16(truncatingIfNeeded: Int32(base) + delta)
    }
}

/// gemmlowp's fixed-point `logistic` and `tanh` on int16 raw values (Q3 input, Q0 output), which
/// LiteRT's optimized int16 LOGISTIC/TANH use when the input scale is a power of two (2^-12, or
/// 2^-13 for TANH). Written from gemmlowp's definitions: products are saturating rounding doubling
/// high multiplies, int16 sums wrap, constants are gemmlowp's int32 constants rounded to 16 bits.
enum GemmlowpInt16 {
    @inline(__always) static func mul(_ a: Int16, _ b: Int16) -> Int16 { ReferenceQuantizedActivation.srdhm16(a, b) }

    static func multiplyByPOT(_ x: Int16, _ exponent: Int) -> Int16 {
        if exponent == 0 { return x }
        if exponent < 0 { return ReferenceQuantizedActivation.rdbpot16(x, -exponent) }
        let threshold = Int16((1 << (15 - exponent)) - 1)
        if x > threshold { return Int16.max }
        if x < -threshold { return Int16.min }
        return x << Int16(exponent)
    }

    static func roundingHalfSum(_ a: Int16, _ b: Int16) -> Int16 {
        let sum = Int32(a) + Int32(b)
        return Int16(truncatingIfNeeded: (sum + (sum >= 0 ? 1 : -1)) / 2)
    }

    static func constant(_ raw32: Int32) -> Int16 {
        Int16(truncatingIfNeeded: FixedPoint.roundingDivideByPOT(raw32, 16))
    }

    /// exp(a) for a in [-1/4, 0), Q0.
    static func expOnQuarterInterval(_ a: Int16) -> Int16 {
        let constantTerm = constant(1_895_147_668), oneThird = constant(715_827_883)
        let x = a &+ (1 << 12)
        let x2 = mul(x, x), x3 = mul(x2, x), x4 = mul(x2, x2)
        let x4Over4 = multiplyByPOT(x4, -2)
        let inner = multiplyByPOT(mul(x4Over4 &+ x3, oneThird) &+ x2, -1)
        let p = mul(constantTerm, x &+ inner)
        return Int16(clamping: Int32(constantTerm) + Int32(p))
    }

    /// exp(a) for a ≤ 0 with `integerBits` integer bits, Q0.
    static func expOnNegativeValues(_ a: Int16, integerBits: Int) -> Int16 {
        let fractionalBits = 15 - integerBits
        let oneQuarter = Int16(1 << (fractionalBits - 2))
        let aModQuarterMinusQuarter = (a & (oneQuarter - 1)) &- oneQuarter
        var result = expOnQuarterInterval(multiplyByPOT(aModQuarterMinusQuarter, integerBits))
        let remainder = aModQuarterMinusQuarter &- a
        let barrel: [(Int, Int32)] = [
            (-2, 1_672_461_947), (-1, 1_302_514_674), (0, 790_015_084), (1, 290_630_308), (2, 39_332_535),
            (3, 720_401), (4, 242),
        ]
        for (exponent, multiplier) in barrel where integerBits > exponent {
            let bit = Int16(truncatingIfNeeded: 1 << (fractionalBits + exponent))
            if remainder & bit != 0 { result = mul(result, constant(multiplier)) }
        }
        return a == 0 ? Int16.max : result
    }

    /// Newton–Raphson 1/(1 + x) (or (1 − x)/(1 + x)) for x in (0, 1), Q0.
    private static func reciprocalStep(_ a: Int16, oneMinus: Bool) -> Int16 {
        let halfDenominator = roundingHalfSum(a, Int16.max)
        var x = constant(1_515_870_810) &+ mul(halfDenominator, constant(-1_010_580_540))
        for _ in 0..<3 {
            let oneMinusHalfDenominatorTimesX = Int16(1 << 13) &- mul(halfDenominator, x)
            x = x &+ multiplyByPOT(mul(x, oneMinusHalfDenominatorTimesX), 2)
        }
        return oneMinus ? multiplyByPOT(x &- (1 << 13), 2) : multiplyByPOT(x, 1)
    }

    static func logistic(_ a: Int16) -> Int16 {
        if a == 0 { return constant(1 << 30) }
        let magnitude = a > 0 ? a : 0 &- a
        let positive = reciprocalStep(expOnNegativeValues(0 &- magnitude, integerBits: 3), oneMinus: false)
        return a > 0 ? positive : Int16.max &- positive
    }

    static func tanh(_ a: Int16) -> Int16 {
        if a == 0 { return 0 }
        let n = a < 0 ? a : 0 &- a
        let t = reciprocalStep(expOnNegativeValues(n, integerBits: 4), oneMinus: true)
        return a < 0 ? 0 &- t : t
    }
}

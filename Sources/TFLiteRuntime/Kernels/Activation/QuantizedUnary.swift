import Foundation

/// The quantized (uint8, int8, int16) forms of the unary operators.
///
/// Every one of them is a function of the input's integer value alone, so `prepare` evaluates
/// LiteRT's exact scalar semantics (`ReferenceQuantizedActivation`) once per possible input value
/// and `eval` is a table lookup: 256 entries for 8-bit, 65536 for int16. LiteRT's own uint8/int8
/// LOGISTIC, TANH, ELU and GELU are tables of the float function too (`LUTPopulate`); RELU*,
/// LEAKY_RELU, HARD_SWISH, ABS, NEG and SQRT compute per element with integer arithmetic, which
/// the table reproduces value for value.
struct QuantizedUnaryTable {
    /// Indexed by the input's raw byte (8-bit) or by `value + 32768` (int16).
    var table8: [UInt8] = []
    var table16: [Int16] = []
    /// Inputs below this value are an error (SQRT of a negative number, as LiteRT reports).
    var minimumValid: Int32 = Int32.min

    init() {}

    init(_ node: Node, op: UnaryOperator, alpha: Float, approximate: Bool, input x: RuntimeTensor, output y: RuntimeTensor)
        throws
    {
        guard let range = x.type.quantizedRange else { throw node.error("input type \(x.type.name) is not quantized") }
        guard x.quantization != nil, y.quantization != nil, x.scale > 0, y.scale > 0 else {
            throw node.error("quantized input and output need positive scales")
        }
        if x.type == .int16, x.zeroPoint != 0 || y.zeroPoint != 0 {
            throw node.error("int16 input and output need zero points of 0")
        }
        let p = ReferenceQuantizedActivation.Params(
            inputScale: x.scale, inputZeroPoint: Int32(x.zeroPoint), outputScale: y.scale,
            outputZeroPoint: Int32(y.zeroPoint), qmin: range.min, qmax: range.max)
        typealias R = ReferenceQuantizedActivation
        let is8 = x.type != .int16
        let f: (Int32) -> Int32
        switch op {
        case .logistic where !is8, .tanh where !is8:
            guard y.scale == 1.0 / 32768 else { throw node.error("int16 \(op) output scale must be 2^-15") }
            guard let (m, shift) = QuantizedInt16Sigmoid.inputRescale(scale: x.scale, tanh: op == .tanh) else {
                // Power-of-two input scale: LiteRT's optimized gemmlowp fixed-point path.
                let log2 = (Foundation.log(x.scale) * (1 / Foundation.log(Float(2)))).rounded(.toNearestOrAwayFromZero)
                let preShift = 12 + Int(log2)  // 0, or 1 for TANH at 2^-13
                f = op == .tanh
                    ? { Int32(GemmlowpInt16.tanh(GemmlowpInt16.multiplyByPOT(Int16(truncatingIfNeeded: $0), preShift))) }
                    : { Int32(GemmlowpInt16.logistic(Int16(truncatingIfNeeded: $0))) }
                break
            }
            f = op == .tanh
                ? { QuantizedInt16Sigmoid.tanh($0, multiplier: m, shift: shift) }
                : { QuantizedInt16Sigmoid.logistic($0, multiplier: m, shift: shift) }
        case .gelu where !is8:
            // LiteRT's int16 GELU: an interpolated 513-entry table (`LUTPopulate<int16_t>`, float).
            let lut = FixedPoint.lookupTable16(
                inputScale: x.scale, inputZeroPoint: 0, outputScale: y.scale, outputZeroPoint: 0,
                approximate ? R.geluApproximate : R.gelu)
            f = { v in
                lut.withUnsafeBufferPointer { t in
                    guard let base = t.baseAddress else { return 0 }
                    return Int32(FixedPoint.lookup16(Int16(truncatingIfNeeded: v), base))
                }
            }
        case .logistic, .tanh, .elu, .gelu:
            guard is8 else { throw node.error("int16 \(op) is not supported") }
            if op == .elu && x.type != .int8 { throw node.error("ELU supports int8 only (as LiteRT)") }
            let t: (Float) -> Float
            switch op {
            case .logistic: t = R.logistic
            case .tanh: t = R.tanh
            case .elu: t = R.elu
            default: t = approximate ? R.geluApproximate : R.gelu
            }
            f = { R.floatTransform($0, p, t) }
        case .relu0To1 where !is8:
            throw node.error("int16 \(op) is not supported (as LiteRT)")
        case .relu, .relu6, .reluN1To1, .relu0To1:
            let m = FixedPoint.quantizeMultiplier(Double(x.scale / y.scale))
            let (lower, upper): (Float, Float?) =
                op == .relu ? (0, nil) : op == .relu6 ? (0, 6) : op == .relu0To1 ? (0, 1) : (-1, 1)
            f = { R.reluX($0, p, multiplier: m, lower: lower, upper: upper) }
        case .leakyRelu:
            let identity = FixedPoint.quantizeMultiplier(Double(x.scale / y.scale))
            let alphaM = FixedPoint.quantizeMultiplier(Double(x.scale * alpha / y.scale))
            f = { R.leakyRelu($0, p, identity: identity, alpha: alphaM) }
        case .hardSwish:
            guard is8 else { throw node.error("int16 HARD_SWISH is not supported") }
            let h = R.HardSwishParams(p)
            guard h.outputExponent <= 0 else { throw node.error("HARD_SWISH output scale is too small for the input's") }
            f = { R.hardSwish($0, p, h) }
        case .absolute:
            guard x.type != .uint8 else { throw node.error("uint8 ABS is not supported (as LiteRT)") }
            let m = x.scale != y.scale ? FixedPoint.quantizeMultiplier(Double(x.scale / y.scale)) : nil
            f = { R.abs($0, p, multiplier: m) }
        case .negate:
            guard x.type != .uint8 else { throw node.error("uint8 NEG is not supported (as LiteRT)") }
            // LiteRT negates the stored integers (ignoring scales); the most negative value wraps to itself.
            f = x.type == .int8
                ? { Int32(Int8(truncatingIfNeeded: 0 &- $0)) } : { Int32(Int16(truncatingIfNeeded: 0 &- $0)) }
        case .exp, .log:
            // LiteRT's tables of the float function (`LUTPopulate`); LOG maps non-positive inputs to
            // the output's lowest value.
            guard x.type != .uint8 else { throw node.error("uint8 \(op) is not supported (as LiteRT)") }
            let lowest = Float(range.min - Int32(y.zeroPoint)) * y.scale
            let t: (Float) -> Float =
                op == .exp ? { Foundation.exp($0) } : { $0 <= 0 ? lowest : Foundation.log($0) }
            if is8 {
                f = { R.floatTransform($0, p, t) }
            } else {
                let lut = FixedPoint.lookupTable16(
                    inputScale: x.scale, inputZeroPoint: 0, outputScale: y.scale, outputZeroPoint: 0, t)
                f = { v in
                    lut.withUnsafeBufferPointer { table in
                        guard let base = table.baseAddress else { return 0 }
                        return Int32(FixedPoint.lookup16(Int16(truncatingIfNeeded: v), base))
                    }
                }
            }
        case .sqrt:
            guard x.type != .uint8 else { throw node.error("uint8 SQRT is not supported (as LiteRT)") }
            minimumValid = p.inputZeroPoint
            f = { R.sqrt($0, p) }
        case .rsqrt where x.type == .int16:
            // LiteRT's int16 RSQRT: an interpolated table of 1/sqrt (float), non-positive inputs
            // mapping to the largest output; negative inputs are an error.
            minimumValid = p.inputZeroPoint
            let outScale = y.scale
            let lut = FixedPoint.lookupTable16(
                inputScale: x.scale, inputZeroPoint: 0, outputScale: y.scale, outputZeroPoint: 0
            ) { (v: Float) -> Float in v <= 0 ? Float(Int16.max) * outScale : 1 / v.squareRoot() }
            f = { v in
                lut.withUnsafeBufferPointer { t in
                    guard let base = t.baseAddress else { return 0 }
                    return Int32(FixedPoint.lookup16(Int16(truncatingIfNeeded: v), base))
                }
            }
        case .rsqrt:
            guard x.type == .int8 else { throw node.error("quantized RSQRT supports int8 and int16 only (as LiteRT)") }
            minimumValid = p.inputZeroPoint
            let m = FixedPoint.quantizeMultiplier(1.0 / Double(x.scale.squareRoot() * y.scale))
            f = { R.rsqrt($0, p, multiplier: m) }
        }
        switch x.type {
        case .uint8: table8 = FixedPoint.integerTable8(UInt8.self, f)
        case .int8: table8 = FixedPoint.integerTable8(Int8.self, f)
        default:
            table16 = [Int16](repeating: 0, count: 65536)
            for v in Int32(Int16.min)...Int32(Int16.max) {
                table16[Int(v + 32768)] = Int16(truncatingIfNeeded: min(range.max, max(range.min, f(v))))
            }
        }
    }

    func apply(_ node: Node, _ x: RuntimeTensor, _ y: RuntimeTensor) throws {
        if x.type == .int16 {
            let input = try node.elementwiseBuffer(x, Int16.self, role: "input")
            let output = try node.elementwiseBuffer(y, Int16.self, role: "output")
            guard input.count == output.count, table16.count == 65536 else { throw node.error("eval before prepare") }
            if minimumValid != Int32.min, input.contains(where: { Int32($0) < minimumValid }) {
                throw node.error("input has values below zero")
            }
            table16.withUnsafeBufferPointer { t in
                for i in 0..<input.count { output[i] = t[Int(input[i]) &+ 32768] }
            }
        } else {
            let input = try node.elementwiseBuffer(x, UInt8.self, role: "input")
            let output = try node.elementwiseBuffer(y, UInt8.self, role: "output")
            guard input.count == output.count, table8.count == 256 else { throw node.error("eval before prepare") }
            if minimumValid != Int32.min {
                let signed = x.type == .int8
                if input.contains(where: { (signed ? Int32(Int8(bitPattern: $0)) : Int32($0)) < minimumValid }) {
                    throw node.error("input has values below zero")
                }
            }
            table8.withUnsafeBufferPointer { t in
                for i in 0..<input.count { output[i] = t[Int(input[i])] }
            }
        }
    }
}

/// Plain scalar versions of LiteRT's quantized binary operators, written from its formulas
/// independently of the kernels' parameter structs: the test oracle for `BinaryElementwiseKernel`'s
/// quantized paths.
enum ReferenceQuantizedElementwise {
    struct Quantization {
        var scale: Float
        var zeroPoint: Int32
    }

    /// `MultiplyByQuantizedMultiplier` spelled out with 64-bit integers.
    static func multiplyByQuantizedMultiplier(_ x: Int32, _ real: Double) -> Int32 {
        let m = FixedPoint.quantizeMultiplier(real)
        let left = max(m.shift, 0), right = max(-m.shift, 0)
        let shifted = Int64(Int32(truncatingIfNeeded: Int64(x) << left))
        let product = shifted * Int64(m.multiplier)
        var high: Int64
        if shifted == Int64(Int32.min) && m.multiplier == Int32.min {
            high = Int64(Int32.max)
        } else {
            let nudge: Int64 = product >= 0 ? 1 << 30 : 1 - (1 << 30)
            high = (product + nudge) / (1 << 31)
        }
        if right == 0 { return Int32(truncatingIfNeeded: high) }
        // Round half away from zero.
        let divisor = Int64(1) << right
        let q = high >= 0 ? (high + divisor / 2) / divisor : -((-high + divisor / 2) / divisor)
        return Int32(truncatingIfNeeded: q)
    }

    /// LiteRT's scalar quantized ADD (or SUB) of raw values `a`, `b` (the general path, left shift
    /// 20 for 8-bit and 15 for int16), clamped to `[lo, hi]`.
    static func add(
        _ a: Int32, _ b: Int32, _ qa: Quantization, _ qb: Quantization, _ qo: Quantization, lo: Int32, hi: Int32,
        leftShift: Int32, subtract: Bool = false
    ) -> Int32 {
        let twiceMax = Double(2 * max(qa.scale, qb.scale))
        let sa = multiplyByQuantizedMultiplier((a - qa.zeroPoint) << leftShift, Double(qa.scale) / twiceMax)
        let sb = multiplyByQuantizedMultiplier((b - qb.zeroPoint) << leftShift, Double(qb.scale) / twiceMax)
        let real = twiceMax / Double(Float(1 << leftShift) * qo.scale)
        let r = multiplyByQuantizedMultiplier(subtract ? sa - sb : sa + sb, real) + qo.zeroPoint
        return min(hi, max(lo, r))
    }

    /// LiteRT's scalar quantized MUL of raw values.
    static func multiply(
        _ a: Int32, _ b: Int32, _ qa: Quantization, _ qb: Quantization, _ qo: Quantization, lo: Int32, hi: Int32
    ) -> Int32 {
        let r =
            multiplyByQuantizedMultiplier((a - qa.zeroPoint) * (b - qb.zeroPoint), Double(qa.scale * qb.scale / qo.scale))
            + qo.zeroPoint
        return min(hi, max(lo, r))
    }
}

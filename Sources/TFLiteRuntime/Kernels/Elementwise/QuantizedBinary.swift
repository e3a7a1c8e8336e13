/// The integer parameters of a quantized ADD/SUB/MUL, computed once in `prepare` exactly as
/// LiteRT's `add.cc`/`sub.cc`/`mul.cc` do.
struct QuantizedBinaryParams {
    var input1Offset: Int32 = 0
    var input2Offset: Int32 = 0
    var outputOffset: Int32 = 0
    var leftShift: Int32 = 0
    var input1 = FixedPoint.Multiplier(multiplier: 0, shift: 0)
    var input2 = FixedPoint.Multiplier(multiplier: 0, shift: 0)
    var output = FixedPoint.Multiplier(multiplier: 0, shift: 0)
    var activationMin: Int32 = 0
    var activationMax: Int32 = 0

    /// ADD and SUB: both inputs rescaled to twice the larger input scale after a left shift of 20
    /// (8-bit) or 15 (int16 general-scale path).
    static func addSub(
        a: RuntimeTensor, b: RuntimeTensor, out: RuntimeTensor, activation: FusedActivation
    ) -> QuantizedBinaryParams {
        var p = QuantizedBinaryParams()
        p.input1Offset = -Int32(a.zeroPoint)
        p.input2Offset = -Int32(b.zeroPoint)
        p.outputOffset = Int32(out.zeroPoint)
        p.leftShift = out.type == .int16 ? 15 : 20
        // As in LiteRT: the doubled maximum is computed in float, the ratios in double.
        let twiceMax = Double(2 * max(a.scale, b.scale))
        p.input1 = FixedPoint.quantizeMultiplier(Double(a.scale) / twiceMax)
        p.input2 = FixedPoint.quantizeMultiplier(Double(b.scale) / twiceMax)
        p.output = FixedPoint.quantizeMultiplier(twiceMax / Double(Float(1 << p.leftShift) * out.scale))
        let range = out.type.quantizedRange ?? (0, 0)
        (p.activationMin, p.activationMax) = FixedPoint.activationRange(
            activation, scale: out.scale, zeroPoint: out.zeroPoint, qmin: range.min, qmax: range.max)
        return p
    }

    /// MUL: one multiplier `s1 × s2 / s_out` (computed in float as LiteRT does, then widened).
    static func multiply(
        a: RuntimeTensor, b: RuntimeTensor, out: RuntimeTensor, activation: FusedActivation
    ) -> QuantizedBinaryParams {
        var p = QuantizedBinaryParams()
        p.input1Offset = -Int32(a.zeroPoint)
        p.input2Offset = -Int32(b.zeroPoint)
        p.outputOffset = Int32(out.zeroPoint)
        p.output = FixedPoint.quantizeMultiplier(Double(a.scale * b.scale / out.scale))
        let range = out.type.quantizedRange ?? (0, 0)
        (p.activationMin, p.activationMax) = FixedPoint.activationRange(
            activation, scale: out.scale, zeroPoint: out.zeroPoint, qmin: range.min, qmax: range.max)
        return p
    }

    /// One quantized ADD (or SUB when `subtract`) of raw values.
    @inline(__always)
    func add(_ x: Int32, _ y: Int32, subtract: Bool) -> Int32 {
        let s1 = FixedPoint.multiply((x + input1Offset) &<< leftShift, by: input1)
        let s2 = FixedPoint.multiply((y + input2Offset) &<< leftShift, by: input2)
        let raw = FixedPoint.multiply(subtract ? s1 &- s2 : s1 &+ s2, by: output) &+ outputOffset
        return min(activationMax, max(activationMin, raw))
    }

    /// One quantized MUL of raw values.
    @inline(__always)
    func multiply(_ x: Int32, _ y: Int32) -> Int32 {
        let raw = FixedPoint.multiply((x + input1Offset) &* (y + input2Offset), by: output) &+ outputOffset
        return min(activationMax, max(activationMin, raw))
    }
}

struct QuantizedAddFunctor<T: QuantizedElement>: BinaryFunctor {
    let p: QuantizedBinaryParams
    let subtract: Bool
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T {
        T(truncatingIfNeeded: p.add(Int32(a), Int32(b), subtract: subtract))
    }
}

struct QuantizedMultiplyFunctor<T: QuantizedElement>: BinaryFunctor {
    let p: QuantizedBinaryParams
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T {
        T(truncatingIfNeeded: p.multiply(Int32(a), Int32(b)))
    }
}

/// MAXIMUM/MINIMUM on raw quantized values (LiteRT compares the stored integers; the model
/// gives inputs and output one scale).
struct QuantizedMaxMinFunctor<T: QuantizedElement>: BinaryFunctor {
    let maximum: Bool
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T { maximum ? Swift.max(a, b) : Swift.min(a, b) }
}

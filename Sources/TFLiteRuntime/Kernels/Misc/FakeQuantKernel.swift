/// FAKE_QUANT: float32 → float32, each value quantized to `numBits` over [min, max] and back.
///
/// Options (`FakeQuantOptions`): min, max, num_bits; narrow_range is refused, as in LiteRT. Neither
/// num_bits nor the range is validated (LiteRT runs them all; degenerate ones give NaN). The range
/// is first nudged so that 0 is exactly representable (TensorFlow's FakeQuantWithMinMaxArgs), all in
/// float32 with LiteRT's operation order.
final class FakeQuantKernel: OpKernel {
    private var nudgedMin: Float = 0
    private var nudgedMax: Float = 0
    private var scale: Float = 1

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
        let p = try FakeQuantParameters(node)
        guard !p.narrowRange else {
            throw node.error("narrow_range is not supported at run time (it is meant for weights only)")
        }
        // LiteRT checks neither num_bits nor the range: it computes `(1 << num_bits) - 1` in a C int
        // (x86 masks the shift to 5 bits; 1 << 31 - 1 wraps to INT_MAX) and carries on, NaN and all.
        let quantMin: Float = 0
        let quantMax = Float((Int32(1) &<< Int32(truncatingIfNeeded: p.numBits)) &- 1)
        scale = (p.max - p.min) / (quantMax - quantMin)
        let zeroPointFromMin = quantMin - p.min / scale
        let zeroPoint: Float
        if zeroPointFromMin < quantMin {
            zeroPoint = quantMin
        } else if zeroPointFromMin > quantMax {
            zeroPoint = quantMax
        } else {
            zeroPoint = FakeQuantKernel.uint16Cast(zeroPointFromMin.rounded())
        }
        nudgedMin = (quantMin - zeroPoint) * scale
        nudgedMax = (quantMax - zeroPoint) * scale
    }

    /// C's `static_cast<uint16_t>(float)` as x86 compiles it: a 32-bit truncating conversion
    /// (0x80000000 for NaN or out of range), then the low 16 bits.
    static func uint16Cast(_ value: Float) -> Float {
        let wide: Int32 = value.isNaN || value >= 2_147_483_648 || value < -2_147_483_648 ? .min : Int32(value)
        return Float(UInt16(truncatingIfNeeded: wide))
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        try node.expect(x, type: .float32, role: "input")
        try node.setOutput(0, type: .float32, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.elementwiseBuffer(try node.input(0), Float.self, role: "input")
        let y = try node.elementwiseBuffer(try node.output(0), Float.self, role: "output")
        guard x.count == y.count else { throw node.error("output is not sized like the input") }
        let inverse = 1 / scale
        let low = nudgedMin, high = nudgedMax, step = scale
        for i in 0..<x.count {
            let v = x[i]
            // std::max(low, v) then std::min(high, ·): a NaN input ends up as `low`.
            let raised = low < v ? v : low
            let clamped = raised < high ? raised : high
            let shifted = clamped - low
            y[i] = (shifted * inverse).rounded() * step + low
        }
    }
}

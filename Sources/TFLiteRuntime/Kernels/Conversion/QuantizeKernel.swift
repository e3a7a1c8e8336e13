import CKernels
import Foundation

/// QUANTIZE: float32 → uint8/int8/int16 per tensor or per channel, and requantization between
/// uint8, int8, int16 and int32 scales, with LiteRT's arithmetic.
///
/// - float → uint8/int8/int16 follows LiteRT's optimized `AffineQuantize` as its x86 build runs it (NEON
///   through NEON_2_SSE, see `FixedPoint.neonRoundToInt32`): blocks of 8 elements compute
///   `x × Float(1 / Double(scale))` rounded half to even; the remaining tail `round(x / Double(scale))`
///   (a double division, ties away from zero); then the zero point, clamped.
/// - integer → integer: `MultiplyByQuantizedMultiplier(q − zp_in, s_in / s_out) + zp_out`, clamped
///   (`Requantize`; its ±128 XOR fast path gives the same bytes). For 8-bit types LiteRT's NEON
///   loop handles blocks of 16 with `MultiplyByQuantizedMultiplier4Rows` (ties toward +infinity)
///   and the tail with the scalar multiply, so there are two 256-entry tables built in `prepare`.
///   Other pairs (int16 → int32, int32 → int8/int16, uint8 → int16, ...) use the scalar multiply.
/// - per-channel float → uint8/int8/int16: `round(x / scale[c]) + zp[c]` in float.
final class QuantizeKernel: OpKernel {
    private var table = [UInt8]()
    /// The table for elements in LiteRT's 16-element NEON blocks.
    private var blockTable = [UInt8]()
    private var multiplier = FixedPoint.Multiplier(multiplier: 0, shift: 0)
    private var perChannel = false

    init(_ node: Node) throws { try node.expect(inputs: 1, outputs: 1) }

    func prepare(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        try node.expect(x, type: .float32, .uint8, .int8, .int16, .int32, role: "input")
        try node.expect(y, type: .uint8, .int8, .int16, .int32, role: "output")
        guard let q = y.quantization, q.scales.count >= 1, q.zeroPoints.count >= 1 else {
            throw node.error("output needs a scale and zero point")
        }
        perChannel = q.scales.count > 1
        if perChannel {
            // LiteRT's `PerChannelQuantize`: float input only, one scale and zero point per slice.
            guard x.type == .float32, y.type != .int32 else {
                throw node.error("per-channel output needs a float input")
            }
            guard q.quantizedDimension >= 0, q.quantizedDimension < x.rank,
                x.shape[q.quantizedDimension] == q.scales.count, q.zeroPoints.count == q.scales.count
            else {
                throw node.error("per-channel scales do not match dimension \(q.quantizedDimension) of \(x.shape)")
            }
            guard q.scales.allSatisfy({ $0 > 0 && $0.isFinite }) else { throw node.error("scales must be positive") }
            try node.setOutput(0, type: y.type, shape: x.shape)
            return
        }
        guard y.scale > 0, y.scale.isFinite else { throw node.error("output scale \(y.scale) is not positive") }
        if let r = y.type.quantizedRange, y.zeroPoint < r.min || y.zeroPoint > r.max {
            throw node.error("output zero point \(y.zeroPoint) is outside \(y.type.name)")
        }
        if x.type == .float32 {
            guard y.type != .int32 else { throw node.error("quantizing FLOAT32 to INT32 is not supported") }
        } else {
            guard x.quantization != nil, x.scale > 0 else { throw node.error("input needs a positive scale") }
            multiplier = FixedPoint.quantizeMultiplier(Double(x.scale) / Double(y.scale))
            let m = multiplier, zin = Int32(x.zeroPoint), zout = Int32(y.zeroPoint)
            table = []
            switch (x.type, y.type) {
            case (.uint8, .uint8):
                table = QuantizeKernel.crossTable(UInt8.self, UInt8.self, m, zin, zout, neon: false)
                blockTable = QuantizeKernel.crossTable(UInt8.self, UInt8.self, m, zin, zout, neon: true)
            case (.uint8, .int8):
                table = QuantizeKernel.crossTable(UInt8.self, Int8.self, m, zin, zout, neon: false)
                blockTable = QuantizeKernel.crossTable(UInt8.self, Int8.self, m, zin, zout, neon: true)
            case (.int8, .int8):
                table = QuantizeKernel.crossTable(Int8.self, Int8.self, m, zin, zout, neon: false)
                blockTable = QuantizeKernel.crossTable(Int8.self, Int8.self, m, zin, zout, neon: true)
            case (.int8, .uint8):
                table = QuantizeKernel.crossTable(Int8.self, UInt8.self, m, zin, zout, neon: false)
                blockTable = QuantizeKernel.crossTable(Int8.self, UInt8.self, m, zin, zout, neon: true)
            case (.int32, .int32), (.int32, .uint8):
                throw node.error("requantizing \(x.type.name) to \(y.type.name) is not supported")
            default:
                // The other pairs run LiteRT's scalar `Requantize` in `eval`.
                break
            }
        }
        try node.setOutput(0, type: y.type, shape: x.shape)
    }

    /// A table from input bytes of `In` to output bytes of `Out`.
    private static func crossTable<In: QuantizedElement, Out: QuantizedElement>(
        _: In.Type, _: Out.Type, _ m: FixedPoint.Multiplier, _ zin: Int32, _ zout: Int32, neon: Bool
    ) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: 256)
        for v in Int32(In.min)...Int32(In.max) {
            let r = (neon ? FixedPoint.neonMultiply(v - zin, by: m) : FixedPoint.multiply(v - zin, by: m)) &+ zout
            table[Int(UInt8(truncatingIfNeeded: v))] = UInt8(
                truncatingIfNeeded: min(Int32(Out.max), max(Int32(Out.min), r)))
        }
        return table
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        let count = x.elementCount
        guard y.elementCount == count else { throw node.error("output is not sized like the input") }
        if perChannel {
            switch y.type {
            case .uint8: return try quantizePerChannel(node, x, y, UInt8.self)
            case .int8: return try quantizePerChannel(node, x, y, Int8.self)
            default: return try quantizePerChannel(node, x, y, Int16.self)
            }
        }
        switch (x.type, y.type) {
        case (.float32, .uint8): try quantizeFloat(node, x, y, UInt8.self)
        case (.float32, .int8): try quantizeFloat(node, x, y, Int8.self)
        case (.float32, .int16): try quantizeFloat(node, x, y, Int16.self)
        case (.uint8, _) where !table.isEmpty, (.int8, _) where !table.isEmpty:
            let input = try node.elementwiseBuffer(x, UInt8.self, role: "input")
            let out = try node.elementwiseBuffer(y, UInt8.self, role: "output")
            guard table.count == 256, blockTable.count == 256 else { throw node.error("eval before prepare") }
            let blocked = count / 16 * 16
            blockTable.withUnsafeBufferPointer { t in
                for i in 0..<blocked { out[i] = t[Int(input[i])] }
            }
            table.withUnsafeBufferPointer { t in
                for i in blocked..<count { out[i] = t[Int(input[i])] }
            }
        case (.uint8, _): try requantize(node, x, y, UInt8.self)
        case (.int8, _): try requantize(node, x, y, Int8.self)
        case (.int16, _): try requantize(node, x, y, Int16.self)
        case (.int32, _): try requantize(node, x, y, Int32.self)
        default: throw node.error("quantizing \(x.type.name) to \(y.type.name) is not supported")
        }
    }

    private func requantize<In: FixedWidthInteger>(_ node: Node, _ x: RuntimeTensor, _ y: RuntimeTensor, _: In.Type)
        throws
    {
        switch y.type {
        case .uint8: try requantize(node, x, y, In.self, UInt8.self)
        case .int8: try requantize(node, x, y, In.self, Int8.self)
        case .int16: try requantize(node, x, y, In.self, Int16.self)
        case .int32: try requantize(node, x, y, In.self, Int32.self)
        default: throw node.error("quantizing \(x.type.name) to \(y.type.name) is not supported")
        }
    }

    /// `round(x / scale[c]) + zp[c]` in float (LiteRT's reference `PerChannelQuantize`), clamped.
    private func quantizePerChannel<T: QuantizedElement>(
        _ node: Node, _ x: RuntimeTensor, _ y: RuntimeTensor, _: T.Type
    ) throws {
        guard let q = y.quantization else { throw node.error("eval before prepare") }
        let input = try node.elementwiseBuffer(x, Float.self, role: "input")
        let output = try node.elementwiseBuffer(y, T.self, role: "output")
        let axis = q.quantizedDimension
        let channels = x.shape[axis]
        let inner = x.shape[(axis + 1)...].reduce(1, *)
        let lo = Int32(T.min), hi = Int32(T.max)
        for i in 0..<input.count {
            let c = (i / inner) % channels
            let v = (input[i] / q.scales[c]).rounded(.toNearestOrAwayFromZero)
            let r: Int32 = v.isNaN || v >= 2_147_483_648 || v < -2_147_483_648 ? Int32.min : Int32(v)
            output[i] = T(truncatingIfNeeded: min(hi, max(lo, r &+ Int32(truncatingIfNeeded: q.zeroPoints[c]))))
        }
    }

    private func requantize<In: FixedWidthInteger, Out: FixedWidthInteger>(
        _ node: Node, _ x: RuntimeTensor, _ y: RuntimeTensor, _: In.Type, _: Out.Type
    ) throws {
        let input = try node.elementwiseBuffer(x, In.self, role: "input")
        let output = try node.elementwiseBuffer(y, Out.self, role: "output")
        let m = multiplier, zin = Int32(x.zeroPoint), zout = Int32(y.zeroPoint)
        let lo = Int32(Out.min), hi = Int32(Out.max)
        for i in 0..<input.count {
            let r = FixedPoint.multiply(Int32(truncatingIfNeeded: input[i]) &- zin, by: m) &+ zout
            output[i] = Out(truncatingIfNeeded: min(hi, max(lo, r)))
        }
    }

    private func quantizeFloat<T: QuantizedElement>(_ node: Node, _ x: RuntimeTensor, _ y: RuntimeTensor, _: T.Type)
        throws
    {
        let input = try node.elementwiseBuffer(x, Float.self, role: "input")
        let output = try node.elementwiseBuffer(y, T.self, role: "output")
        let zp = Int32(y.zeroPoint), scale = y.scale
        let lo = Int32(T.min), hi = Int32(T.max)
        let s = Double(scale)
        let reciprocal = Float(1.0 / s)
        let blocked = input.count / 8 * 8
        if T.bitWidth == 8, CPUFeatures.kernels.q8_quantize_f32 != nil, let x = input.baseAddress,
            let y = output.baseAddress
        {
            // The same blocks in C (`cvtps2dq` is the conversion below, vectorized).
            omk_q8_quantize_f32(x, blocked, reciprocal, zp, lo, hi, UnsafeMutableRawPointer(y).assumingMemoryBound(to: UInt8.self))
        } else {
            for i in 0..<blocked {
                let q = FixedPoint.neonRoundToInt32(input[i] * reciprocal) &+ zp
                output[i] = T(truncatingIfNeeded: min(hi, max(lo, q)))
            }
        }
        for i in blocked..<input.count {
            output[i] = T(truncatingIfNeeded: QuantizeKernel.clampRound(Double(input[i]) / s, zp, lo, hi))
        }
    }

    /// `static_cast<int32_t>(round(v)) + zp`, clamped to [lo, hi]; values beyond int32 (undefined
    /// in C++, saturating on x86's conversion of NaN/huge to INT_MIN) are clamped here.
    @inline(__always)
    static func clampRound(_ v: Double, _ zp: Int32, _ lo: Int32, _ hi: Int32) -> Int32 {
        let r = v.rounded(.toNearestOrAwayFromZero)
        let q: Int32 = r.isNaN || r >= 2_147_483_648 || r < -2_147_483_648 ? Int32.min : Int32(r)
        return min(hi, max(lo, q &+ zp))
    }
}

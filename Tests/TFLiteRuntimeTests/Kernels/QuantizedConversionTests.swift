import Foundation
import Testing

@testable import TFLiteRuntime

/// QUANTIZE: float to 8/16-bit with LiteRT's block/tail rounding, and requantization.
@Suite struct QuantizedConversionTests {
    static func quantize(_ h: ElementwiseTestKit.Harness, _ input: RuntimeTensor, _ type: TensorType, scale: Float, zero: Int)
        throws -> [Int32]
    {
        let out = QuantizedTestKit.output(type, scale: scale, zeroPoint: zero)
        try h.run(.quantize, [input], outputs: [out])
        return QuantizedTestKit.values(out)
    }

    @Test func floatTiesRoundByPosition() throws {
        // 8 ties in LiteRT's NEON block (half to even), then the same ties in the scalar tail (away from zero).
        let ties: [Float] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 4.5]
        let h = ElementwiseTestKit.Harness()
        let got = try Self.quantize(h, try h.floats(ties + ties, [16 + 0]), .int8, scale: 1, zero: 0)
        #expect(Array(got[0..<8]) == [0, 2, 2, 0, -2, -2, 4, 4])
        let h2 = ElementwiseTestKit.Harness()
        let tail = try Self.quantize(h2, try h2.floats(ties + [0.5, 1.5, 2.5], [11]), .int8, scale: 1, zero: 0)
        #expect(Array(tail[8..<11]) == [1, 2, 3])
    }

    @Test func floatMatchesScalarFormula() throws {
        var random = ElementwiseTestKit.Random(seed: 31)
        let x = random.floats(29, -40...40) + [.infinity, -.infinity, 1e30]
        for (type, zero) in [(TensorType.int8, -7), (.uint8, 128), (.int16, 0)] {
            let h = ElementwiseTestKit.Harness()
            let got = try Self.quantize(h, try h.floats(x, [x.count]), type, scale: 0.3, zero: zero)
            let range = type.quantizedRange!
            let blocked = type == .int16 ? 0 : x.count / 8 * 8
            for i in 0..<x.count {
                let r: Int32
                if i < blocked {
                    r = FixedPoint.neonRoundToInt32(x[i] * Float(1.0 / Double(Float(0.3)))) &+ Int32(zero)
                } else if type == .int16 {
                    r = QuantizeKernel.clampRound(Double(x[i] / Float(0.3)), Int32(zero), range.min, range.max)
                } else {
                    r = QuantizeKernel.clampRound(Double(x[i]) / Double(Float(0.3)), Int32(zero), range.min, range.max)
                }
                #expect(got[i] == min(range.max, max(range.min, r)), "\(type.name) \(i): \(x[i])")
            }
        }
    }

    @Test func requantizeBetweenTypes() throws {
        // Same scale, zero points 0 and 128: the uint8 ↔ int8 shift by 128.
        let h = ElementwiseTestKit.Harness()
        let all = Array(Int32(0)...255)
        let got = try Self.quantize(h, try QuantizedTestKit.make(h, all, [256], .uint8, 0.1, 128), .int8, scale: 0.1, zero: 0)
        #expect(got == all.map { $0 - 128 })
        // Different scales: scalar formula in the tail, NEON rounding in blocks of 16.
        let h2 = ElementwiseTestKit.Harness()
        let values = Array(Int32(-128)...(-100))
        let m = FixedPoint.quantizeMultiplier(Double(Float(0.1)) / Double(Float(0.3)))
        let got2 = try Self.quantize(h2, try QuantizedTestKit.make(h2, values, [values.count], .int8, 0.1, 3), .int8, scale: 0.3, zero: -2)
        for (i, v) in values.enumerated() {
            let r = (i < 16 ? FixedPoint.neonMultiply(v - 3, by: m) : FixedPoint.multiply(v - 3, by: m)) - 2
            #expect(got2[i] == min(127, max(-128, r)))
        }
    }
}

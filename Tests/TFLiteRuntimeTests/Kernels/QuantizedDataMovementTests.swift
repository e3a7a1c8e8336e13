import Foundation
import Testing

@testable import TFLiteRuntime

/// Quantized RESIZE_BILINEAR: LiteRT's integer (int8/int16) and float-weight (uint8) formulas.
@Suite struct QuantizedDataMovementTests {
    static func resize(_ x: [Int32], _ shape: [Int], _ type: TensorType, size: [Int32], align: Bool = false, half: Bool = false)
        throws -> RuntimeTensor
    {
        let h = ElementwiseTestKit.Harness()
        let out = QuantizedTestKit.output(type, scale: 0.1, zeroPoint: 0)
        try h.run(
            .resizeBilinear,
            [try QuantizedTestKit.make(h, x, shape, type, 0.1, 0), try h.tensor(size, shape: [2], type: .int32, constant: true)],
            outputs: [out], options: [.bool(2, align), .bool(3, half)])
        return out
    }

    @Test func handCheckedInteger() throws {
        // 1x1x2x1 → 1x1x4x1 (scale 1/2): positions 0, 0.5, 1, 1.5 → 10, 15, 20, 20 (int8, rounded half away).
        let out = try Self.resize([10, 20], [1, 1, 2, 1], .int8, size: [1, 4])
        #expect(out.shape == [1, 1, 4, 1])
        #expect(QuantizedTestKit.values(out) == [10, 15, 20, 20])
        let neg = try Self.resize([-10, -21], [1, 1, 2, 1], .int8, size: [1, 4])
        #expect(QuantizedTestKit.values(neg) == [-10, -16, -21, -21])
    }

    @Test func handCheckedUInt8() throws {
        // uint8 truncates v + 0.5: (10 + 21) / 2 = 15.5 → 16.
        let out = try Self.resize([10, 21], [1, 1, 2, 1], .uint8, size: [1, 4])
        #expect(QuantizedTestKit.values(out) == [10, 16, 21, 21])
        let aligned = try Self.resize([0, 255], [1, 1, 2, 1], .uint8, size: [1, 3], align: true)
        #expect(QuantizedTestKit.values(aligned) == [0, 128, 255])
    }

    @Test func integerMatchesReferenceFormula() throws {
        var random = ElementwiseTestKit.Random(seed: 41)
        let (inH, inW, c, outH, outW) = (3, 4, 2, 5, 7)
        let x = QuantizedTestKit.random(&random, inH * inW * c, .int16)
        let out = QuantizedTestKit.values(try Self.resize(x, [1, inH, inW, c], .int16, size: [Int32(outH), Int32(outW)], half: true))
        let hs = ((1 << 10) * inH + outH / 2) / outH, ws = ((1 << 10) * inW + outW / 2) / outW
        for oy in 0..<outH {
            for ox in 0..<outW {
                let sy = oy * hs + hs / 2 - 512, sx = ox * ws + ws / 2 - 512
                let y0 = max(sy / 1024, 0), y1 = min((sy + 1023) / 1024, inH - 1)
                let x0 = max(sx / 1024, 0), x1 = min((sx + 1023) / 1024, inW - 1)
                let dy = Int64(sy - 1024 * y0), dx = Int64(sx - 1024 * x0)
                for ch in 0..<c {
                    func v(_ y: Int, _ x_: Int) -> Int64 { Int64(x[(y * inW + x_) * c + ch]) }
                    let s = v(y0, x0) * (1024 - dy) * (1024 - dx) + v(y1, x0) * dy * (1024 - dx) + v(y0, x1) * (1024 - dy) * dx
                        + v(y1, x1) * dy * dx
                    let want = Int32((s + (s > 0 ? 1 << 19 : -(1 << 19))) / (1 << 20))
                    #expect(out[(oy * outW + ox) * c + ch] == want)
                }
            }
        }
    }

    @Test func tileRepeatsEveryAxis() throws {
        let h = ElementwiseTestKit.Harness()
        let out = QuantizedTestKit.output(.int8, scale: 0.1, zeroPoint: 0)
        try h.run(
            .tile,
            [try QuantizedTestKit.make(h, [1, 2, 3, 4], [2, 2], .int8, 0.1, 0),
             try h.tensor([Int32(2), 3], shape: [2], type: .int32, constant: true)], outputs: [out])
        #expect(out.shape == [4, 6])
        #expect(QuantizedTestKit.values(out) == [1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4])
        let h2 = ElementwiseTestKit.Harness()
        let y = try h2.run1(.tile, [try h2.floats([1.5, -2], [2, 1]), try h2.tensor([Int64(1), 2], shape: [2], type: .int64, constant: true)])
        #expect(y.shape == [2, 2] && y.elementwiseTestValues(Float.self) == [1.5, 1.5, -2, -2])
        #expect(throws: (any Error).self) {
            let h3 = ElementwiseTestKit.Harness()
            try h3.run1(.tile, [try h3.floats([1], [1]), try h3.tensor([Int32(-1)], shape: [1], type: .int32, constant: true)])
        }
    }
}

import Foundation
import Testing

@testable import TFLiteRuntime

/// Quantized activations: every possible 8-bit input against the scalar reference, int16 samples,
/// softmax rows, and hand-checked values.
@Suite struct QuantizedActivationTests {
    typealias R = ReferenceQuantizedActivation

    static func run(
        _ code: BuiltinOperator, _ values: [Int32], _ type: TensorType, inScale: Float, inZero: Int, outScale: Float,
        outZero: Int, options: [ElementwiseTestKit.Option] = []
    ) throws -> [Int32] {
        let h = ElementwiseTestKit.Harness()
        let out = QuantizedTestKit.output(type, scale: outScale, zeroPoint: outZero)
        try h.run(
            code, [try QuantizedTestKit.make(h, values, [values.count], type, inScale, inZero)], outputs: [out],
            options: options)
        return QuantizedTestKit.values(out)
    }

    @Test func everyByteMatchesReference() throws {
        for type in [TensorType.int8, .uint8] {
            let range = type.quantizedRange!
            let all = Array(range.min...range.max)
            let inZero: Int32 = type == .int8 ? -5 : 120
            let p = R.Params(
                inputScale: 0.05, inputZeroPoint: inZero, outputScale: 0.04, outputZeroPoint: type == .int8 ? 3 : 130,
                qmin: range.min, qmax: range.max)
            let sig = R.Params(
                inputScale: 0.05, inputZeroPoint: inZero, outputScale: 1.0 / 256, outputZeroPoint: type == .int8 ? -128 : 0,
                qmin: range.min, qmax: range.max)
            let identity = FixedPoint.quantizeMultiplier(Double(p.inputScale / p.outputScale))
            var cases: [(BuiltinOperator, R.Params, [ElementwiseTestKit.Option], (Int32) -> Int32)] = [
                (.logistic, sig, [], { R.floatTransform($0, sig, R.logistic) }),
                (.tanh, p, [], { R.floatTransform($0, p, R.tanh) }),
                (.gelu, p, [], { R.floatTransform($0, p, R.gelu) }),
                (.relu, p, [], { R.reluX($0, p, multiplier: identity, lower: 0, upper: nil) }),
                (.relu6, p, [], { R.reluX($0, p, multiplier: identity, lower: 0, upper: 6) }),
                (.reluN1To1, p, [], { R.reluX($0, p, multiplier: identity, lower: -1, upper: 1) }),
                (
                    .leakyRelu, p, [.float(0, 0.2)],
                    {
                        R.leakyRelu(
                            $0, p, identity: identity,
                            alpha: FixedPoint.quantizeMultiplier(Double(p.inputScale * 0.2 / p.outputScale)))
                    }
                ),
                (.hardSwish, p, [], { R.hardSwish($0, p, R.HardSwishParams(p)) }),
            ]
            if type == .int8 {
                cases.append((.elu, p, [], { R.floatTransform($0, p, R.elu) }))
                cases.append((.abs, p, [], { R.abs($0, p, multiplier: identity) }))
                cases.append((.neg, p, [], { Int32(Int8(truncatingIfNeeded: -$0)) }))
            }
            for (code, q, options, f) in cases {
                let got = try Self.run(
                    code, all, type, inScale: q.inputScale, inZero: Int(q.inputZeroPoint), outScale: q.outputScale,
                    outZero: Int(q.outputZeroPoint), options: options)
                let want = all.map { min(range.max, max(range.min, f($0))) }
                #expect(got == want, "\(code.name) \(type.name)")
            }
        }
    }

    @Test func int16SamplesMatchReference() throws {
        let values: [Int32] = [-32768, -20000, -1, 0, 1, 77, 12345, 32767]
        let p = R.Params(
            inputScale: 0.001, inputZeroPoint: 0, outputScale: 0.0008, outputZeroPoint: 0, qmin: -32768, qmax: 32767)
        let m = FixedPoint.quantizeMultiplier(Double(p.inputScale / p.outputScale))
        let got = try Self.run(.relu6, values, .int16, inScale: 0.001, inZero: 0, outScale: 0.0008, outZero: 0)
        #expect(got == values.map { R.reluX($0, p, multiplier: m, lower: 0, upper: 6) })
    }

    @Test func int16LogisticAndTanh() throws {
        let values: [Int32] = [-32768, -9000, -1, 0, 1, 5000, 32767]
        let scale: Float = 0.0003
        let (m, shift) = try #require(QuantizedInt16Sigmoid.inputRescale(scale: scale, tanh: false))
        let s = try Self.run(.logistic, values, .int16, inScale: scale, inZero: 0, outScale: 1.0 / 32768, outZero: 0)
        #expect(s == values.map { QuantizedInt16Sigmoid.logistic($0, multiplier: m, shift: shift) })
        // sigmoid(0) = 0.5 = 16384 / 2^15; tanh(0) = 0; saturation at the ends.
        #expect(s[3] == 16384)
        let t = try Self.run(.tanh, values, .int16, inScale: scale, inZero: 0, outScale: 1.0 / 32768, outZero: 0)
        #expect(t[3] == 0 && t[0] < -32000 && t[6] > 32000)
        // A power-of-two input scale takes LiteRT's gemmlowp fixed-point path.
        let pot: [Int32] = [-32768, -4096, -1, 0, 1, 4096, 32767]
        let ps = try Self.run(.logistic, pot, .int16, inScale: 1.0 / 4096, inZero: 0, outScale: 1.0 / 32768, outZero: 0)
        #expect(ps == pot.map { Int32(GemmlowpInt16.logistic(Int16($0))) })
        // sigmoid(0) = 0.5; sigmoid(±1) = 0.7311 / 0.2689 (within a few LSB); saturation at ±8.
        #expect(ps[3] == 16384 && abs(ps[5] - 23955) <= 4 && abs(ps[1] - 8813) <= 4 && ps[6] > 32700 && ps[0] < 20, "\(ps)")
        let pt = try Self.run(.tanh, pot, .int16, inScale: 1.0 / 4096, inZero: 0, outScale: 1.0 / 32768, outZero: 0)
        // tanh(1) = 0.76159 = 24956 / 2^15 (gemmlowp's int16 result is 8 LSB above).
        #expect(pt[3] == 0 && abs(pt[5] - 24956) <= 10 && pt[1] == -pt[5], "\(pt)")
    }

    @Test func handCheckedValues() throws {
        // sigmoid(0) = 0.5 = 128/256; sigmoid of a large input saturates at 255.
        let s = try Self.run(.logistic, [0, 255], .uint8, inScale: 1, inZero: 0, outScale: 1.0 / 256, outZero: 0)
        #expect(s == [128, 255])
        // RELU with equal scales: negative values go to the zero point, others unchanged.
        let r = try Self.run(.relu, [-100, -1, 0, 5, 127], .int8, inScale: 0.1, inZero: 0, outScale: 0.1, outZero: 0)
        #expect(r == [0, 0, 0, 5, 127])
        // RELU6 at scale 0.1: 6.0 is 60 units.
        let r6 = try Self.run(.relu6, [-3, 30, 60, 90], .int8, inScale: 0.1, inZero: 0, outScale: 0.1, outZero: 0)
        #expect(r6 == [0, 30, 60, 60])
        // SQRT of a value below the zero point is an error, as in LiteRT.
        #expect(throws: (any Error).self) {
            try Self.run(.sqrt, [-4], .int8, inScale: 0.1, inZero: 0, outScale: 0.1, outZero: 0)
        }
    }

    @Test func rsqrtMatchesReferenceAndHandValues() throws {
        let p = R.Params(inputScale: 0.25, inputZeroPoint: -128, outputScale: 0.01, outputZeroPoint: -128, qmin: -128, qmax: 127)
        let m = FixedPoint.quantizeMultiplier(1.0 / Double(Float(0.25).squareRoot() * Float(0.01)))
        let all = Array(Int32(-128)...127)
        let got = try Self.run(.rsqrt, all, .int8, inScale: 0.25, inZero: -128, outScale: 0.01, outZero: -128)
        #expect(got == all.map { R.rsqrt($0, p, multiplier: m) })
        // x = 1.0 (4 units above the zero point): 1/sqrt(1) = 1.0 = 100 units above -128.
        #expect(got[4] == -28)
        // x = 33.0 (132 units): 1/sqrt(33) = 0.174 = 17 units.
        #expect(got[132] == -111)
        // Below the zero point is an error, as in LiteRT.
        #expect(throws: (any Error).self) {
            try Self.run(.rsqrt, [-5], .int8, inScale: 0.25, inZero: 0, outScale: 0.01, outZero: 0)
        }
    }

    @Test func int16SoftmaxAndGelu() throws {
        // Two equal logits: about half each (2^14), summing to about 2^15.
        let h = ElementwiseTestKit.Harness()
        let out = QuantizedTestKit.output(.int16, scale: 1.0 / 32768, zeroPoint: 0)
        try h.run(
            .softmax, [try QuantizedTestKit.make(h, [100, 100, -30000, 5000], [2, 2], .int16, 0.001, 0)], outputs: [out],
            options: [.float(0, 1)])
        let s = QuantizedTestKit.values(out)
        #expect(abs(s[0] - 16384) <= 2 && s[0] == s[1])
        // The exp table stops at -10 (exp(-10) ≈ 4.5e-5): the larger logit takes nearly everything.
        #expect(s[2] <= 3 && s[3] >= 32700, "\(s)")
        // GELU(0) = 0 and GELU(4.0) ≈ 4.0, up to the table's interpolation.
        let g = try Self.run(.gelu, [0, 20000], .int16, inScale: 0.0002, inZero: 0, outScale: 0.0002, outZero: 0)
        #expect(abs(g[0]) <= 2 && abs(g[1] - 20000) <= 4, "\(g)")
    }

    @Test func logSoftmaxMatchesReference() throws {
        var random = ElementwiseTestKit.Random(seed: 9)
        for type in [TensorType.int8, .uint8] {
            let x = QuantizedTestKit.random(&random, 2 * 17, type)
            let zero = type == .uint8 ? 255 : 127
            let h = ElementwiseTestKit.Harness()
            let out = QuantizedTestKit.output(type, scale: 16.0 / 256, zeroPoint: zero)
            try h.run(.logSoftmax, [try QuantizedTestKit.make(h, x, [2, 17], type, 0.2, 0)], outputs: [out])
            let got = QuantizedTestKit.values(out)
            let table = R.softmaxTable(inputScale: 0.2, beta: 1)
            let range = type.quantizedRange!
            for r in 0..<2 {
                let want = R.logSoftmax(
                    Array(x[r * 17..<(r + 1) * 17]), table: table, inputScale: 0.2, outputScale: 16.0 / 256,
                    outputZeroPoint: Int32(zero), qmin: range.min, qmax: range.max)
                #expect(Array(got[r * 17..<(r + 1) * 17]) == want)
            }
        }
        // Float: two equal logits give log(1/2) each.
        let h = ElementwiseTestKit.Harness()
        let y = try h.run1(.logSoftmax, [try h.floats([3, 3], [1, 2])])
        let v = y.elementwiseTestValues(Float.self)
        #expect(abs(v[0] - Float(log(0.5))) < 1e-6 && v[0] == v[1])
    }

    @Test func preluHandChecked() throws {
        // Scales 0.5, zero points 0, alpha per last axis: -4 (-2.0) × alpha 1 (0.5) = -1.0 = -2 units;
        // -4 × alpha 3 (1.5) = -3.0 = -6 units; positive values stay.
        let h = ElementwiseTestKit.Harness()
        let out = QuantizedTestKit.output(.int8, scale: 0.5, zeroPoint: 0)
        try h.run(
            .prelu,
            [try QuantizedTestKit.make(h, [-4, 6, 6, -4], [2, 2], .int8, 0.5, 0),
             try QuantizedTestKit.make(h, [1, 3], [2], .int8, 0.5, 0)], outputs: [out])
        #expect(QuantizedTestKit.values(out) == [-2, 6, 6, -6])
    }

    @Test func softmaxMatchesReference() throws {
        var random = ElementwiseTestKit.Random(seed: 5)
        for type in [TensorType.int8, .uint8] {
            let rows = 3, depth = 21
            let x = QuantizedTestKit.random(&random, rows * depth, type)
            let outZero = type == .int8 ? -128 : 0
            for beta: Float in [1, 0.7] {
                let h = ElementwiseTestKit.Harness()
                let out = QuantizedTestKit.output(type, scale: 1.0 / 256, zeroPoint: outZero)
                try h.run(
                    .softmax, [try QuantizedTestKit.make(h, x, [rows, depth], type, 0.1, 3)], outputs: [out],
                    options: [.float(0, beta)])
                let got = QuantizedTestKit.values(out)
                for r in 0..<rows {
                    let want = R.softmax(
                        Array(x[r * depth..<(r + 1) * depth]), inputScale: 0.1, beta: beta, outputScale: 1.0 / 256,
                        outputZeroPoint: Int32(outZero), unsigned: type == .uint8)
                    #expect(Array(got[r * depth..<(r + 1) * depth]) == want, "\(type.name) row \(r)")
                }
            }
        }
        // Two equal logits: 0.5 each = 128/256 (uint8).
        let h = ElementwiseTestKit.Harness()
        let out = QuantizedTestKit.output(.uint8, scale: 1.0 / 256, zeroPoint: 0)
        try h.run(.softmax, [try QuantizedTestKit.make(h, [9, 9], [1, 2], .uint8, 0.1, 0)], outputs: [out], options: [.float(0, 1)])
        #expect(QuantizedTestKit.values(out) == [128, 128])
    }
}

import Foundation
import Testing

@testable import TFLiteRuntime

/// Quantized MEAN, SUM and REDUCE_MAX against plain scalar formulas of LiteRT's paths.
@Suite struct QuantizedReductionTests {
    static func reduce(
        _ code: BuiltinOperator, _ x: [Int32], _ shape: [Int], _ type: TensorType, axes: [Int32], keep: Bool,
        inScale: Float, inZero: Int, outScale: Float, outZero: Int, threads: Int = 1
    ) throws -> RuntimeTensor {
        let h = ElementwiseTestKit.Harness()
        let out = QuantizedTestKit.output(type, scale: outScale, zeroPoint: outZero)
        try h.run(
            code,
            [try QuantizedTestKit.make(h, x, shape, type, inScale, inZero),
             try h.tensor(axes, shape: [axes.count], type: .int32, constant: true)],
            outputs: [out], options: [.bool(0, keep)], threads: threads)
        return out
    }

    /// The general MEAN (`reference_ops::QuantizedMeanOrSum`), written out for one sum.
    static func generalMean(_ sum: Int32, n: Int, inScale: Float, inZero: Int32, outScale: Float, outZero: Int32, type: TensorType)
        -> Int32
    {
        var m = FixedPoint.quantizeMultiplier(Double(inScale) / Double(outScale))
        let s = min(Int(log2(Double(n)).rounded(.down)), 32, 31 + m.shift)
        m = FixedPoint.Multiplier(multiplier: Int32((Int64(m.multiplier) << Int64(s)) / Int64(n)), shift: m.shift - s)
        let r = FixedPoint.multiply(sum - inZero * Int32(n), by: m) + outZero
        let range = type.quantizedRange!
        return min(range.max, max(range.min, r))
    }

    @Test func generalMeanMatchesReference() throws {
        var random = ElementwiseTestKit.Random(seed: 21)
        for type in [TensorType.int8, .uint8, .int16] {
            let shape = [2, 5, 7]
            let x = QuantizedTestKit.random(&random, 70, type)
            let zero = type == .int16 ? 0 : (type == .int8 ? -4 : 131)
            let out = try Self.reduce(.mean, x, shape, type, axes: [-1], keep: false, inScale: 0.03, inZero: zero, outScale: 0.02, outZero: zero / 2)
            #expect(out.shape == [2, 5])
            let got = QuantizedTestKit.values(out)
            for i in 0..<10 {
                let sum = x[i * 7..<(i + 1) * 7].reduce(0, +)
                #expect(got[i] == Self.generalMean(sum, n: 7, inScale: 0.03, inZero: Int32(zero), outScale: 0.02, outZero: Int32(zero / 2), type: type))
            }
        }
    }

    /// MEAN over H and W of a 4-D tensor (LiteRT's fast path): channels 0..<16 are one NEON block.
    @Test func meanOverHWFastPath() throws {
        var random = ElementwiseTestKit.Random(seed: 22)
        let (hgt, wid, depth) = (3, 4, 19)
        let x = QuantizedTestKit.random(&random, hgt * wid * depth, .int8)
        let out = try Self.reduce(.mean, x, [1, hgt, wid, depth], .int8, axes: [1, 2], keep: true, inScale: 0.05, inZero: 2, outScale: 0.03, outZero: -1)
        #expect(out.shape == [1, 1, 1, depth])
        let got = QuantizedTestKit.values(out)
        var temp: Float = 2 * Float(0.05) / Float(0.03)
        temp = temp > 0 ? temp + 0.5 : temp - 0.5
        let bias = -1 - Int32(temp)
        let m = FixedPoint.quantizeMultiplier(Double(Float(0.05) / (Float(hgt * wid) * Float(0.03))))
        for c in 0..<depth {
            var sum: Int32 = 0
            for p in 0..<(hgt * wid) { sum += x[p * depth + c] }
            let scaled = c < 16 ? FixedPoint.neonMultiply(sum, by: m) : FixedPoint.multiply(sum, by: m)
            #expect(got[c] == min(127, max(-128, scaled + bias)), "channel \(c)")
        }
    }

    /// MEAN, SUM and REDUCE_MAX over leading rows split the rows over threads and merge integer
    /// partial sums and maxima: the same bytes as one thread.
    @Test func rowSplitOverThreadsIsExact() throws {
        var random = ElementwiseTestKit.Random(seed: 23)
        let cases: [([Int], TensorType)] = [
            ([1, 40, 40, 72], .uint8), ([1, 10, 10, 960], .int8), ([1, 33, 7, 120], .int16), ([3, 9000], .uint8),
        ]
        for (shape, type) in cases {
            let x = QuantizedTestKit.random(&random, shape.reduce(1, *), type)
            let axes = (0..<(shape.count - 1)).map(Int32.init)
            for code in [BuiltinOperator.mean, .sum, .reduceMax] {
                var results: [[Int32]] = []
                for threads in [1, 2, 3] {
                    let out = try Self.reduce(
                        code, x, shape, type, axes: axes, keep: true, inScale: 0.05, inZero: type == .int16 ? 0 : 3,
                        outScale: code == .sum ? 2 : 0.04, outZero: type == .int16 ? 0 : -2, threads: threads)
                    results.append(QuantizedTestKit.values(out))
                }
                #expect(results[1] == results[0], "\(code.name) \(shape) \(type.name) at 2 threads")
                #expect(results[2] == results[0], "\(code.name) \(shape) \(type.name) at 3 threads")
            }
        }
    }

    @Test func sumAndMaxMatchReference() throws {
        var random = ElementwiseTestKit.Random(seed: 23)
        let x = QuantizedTestKit.random(&random, 24, .uint8)
        let sum = QuantizedTestKit.values(
            try Self.reduce(.sum, x, [4, 6], .uint8, axes: [0], keep: false, inScale: 0.01, inZero: 100, outScale: 0.05, outZero: 7))
        let scale: Float = Float(0.01) / Float(0.05)
        let bias = Float(-100) * scale * 4
        for j in 0..<6 {
            let s = (0..<4).reduce(Int32(0)) { $0 + x[$1 * 6 + j] }
            let want = Int32((Float(s) * scale + bias).rounded(.toNearestOrAwayFromZero)) + 7
            #expect(sum[j] == min(255, max(0, want)))
        }
        let maxima = QuantizedTestKit.values(
            try Self.reduce(.reduceMax, x, [4, 6], .uint8, axes: [1], keep: true, inScale: 0.01, inZero: 100, outScale: 0.01, outZero: 100))
        for i in 0..<4 { #expect(maxima[i] == x[i * 6..<(i + 1) * 6].max()) }
    }

    @Test func handCheckedMean() throws {
        // Equal scales and zero points: the mean of 1, 2, 3, 6 is 3.
        let out = try Self.reduce(.mean, [1, 2, 3, 6], [4], .int8, axes: [0], keep: false, inScale: 0.5, inZero: 0, outScale: 0.5, outZero: 0)
        #expect(QuantizedTestKit.values(out) == [3])
    }
}

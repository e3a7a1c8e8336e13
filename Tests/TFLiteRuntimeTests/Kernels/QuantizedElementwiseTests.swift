import Foundation
import Testing

@testable import TFLiteRuntime

/// Quantized tensors for kernel tests: raw integer values with one scale and zero point.
enum QuantizedTestKit {
    static func tensor<T: FixedWidthInteger>(
        _ h: ElementwiseTestKit.Harness, _ values: [T], _ shape: [Int], _ type: TensorType, scale: Float, zeroPoint: Int
    ) throws -> RuntimeTensor {
        let plain = try h.tensor(values, shape: shape, type: type)
        let t = RuntimeTensor(
            index: plain.index, name: plain.name, type: type, shape: shape,
            quantization: QuantizationInfo(scales: [scale], zeroPoints: [Int64(zeroPoint)], quantizedDimension: 0, min: [], max: []),
            isVariable: false)
        try t.allocateOwned()
        values.withUnsafeBytes { src in
            if let base = src.baseAddress, !values.isEmpty {
                t.raw.baseAddress?.copyMemory(from: base, byteCount: src.count)
            }
        }
        return t
    }

    static func output(_ type: TensorType, scale: Float, zeroPoint: Int) -> RuntimeTensor {
        RuntimeTensor(
            index: 10_000, name: "qout", type: type, shape: [],
            quantization: QuantizationInfo(scales: [scale], zeroPoints: [Int64(zeroPoint)], quantizedDimension: 0, min: [], max: []),
            isVariable: false)
    }

    static func values(_ t: RuntimeTensor) -> [Int32] {
        switch t.type {
        case .uint8: return t.buffer(UInt8.self).map(Int32.init)
        case .int8: return t.buffer(Int8.self).map(Int32.init)
        case .int16: return t.buffer(Int16.self).map(Int32.init)
        default: return []
        }
    }

    static func random(_ r: inout ElementwiseTestKit.Random, _ count: Int, _ type: TensorType) -> [Int32] {
        let range = type.quantizedRange ?? (0, 0)
        return (0..<count).map { _ in Int32(r.int(Int(range.min)...Int(range.max))) }
    }

    static func make(_ h: ElementwiseTestKit.Harness, _ v: [Int32], _ shape: [Int], _ type: TensorType, _ s: Float, _ zp: Int)
        throws -> RuntimeTensor
    {
        switch type {
        case .uint8: return try tensor(h, v.map { UInt8(truncatingIfNeeded: $0) }, shape, type, scale: s, zeroPoint: zp)
        case .int8: return try tensor(h, v.map { Int8(truncatingIfNeeded: $0) }, shape, type, scale: s, zeroPoint: zp)
        default: return try tensor(h, v.map { Int16(truncatingIfNeeded: $0) }, shape, type, scale: s, zeroPoint: zp)
        }
    }
}

/// Quantized ADD/SUB/MUL/MAXIMUM/MINIMUM against the scalar reference (exact), plus hand-checked values.
@Suite struct QuantizedElementwiseTests {
    typealias Q = ReferenceQuantizedElementwise.Quantization

    static let params: [(TensorType, Q, Q, Q)] = [
        (.int8, Q(scale: 0.05, zeroPoint: -3), Q(scale: 0.11, zeroPoint: 7), Q(scale: 0.09, zeroPoint: 1)),
        (.uint8, Q(scale: 0.02, zeroPoint: 128), Q(scale: 0.07, zeroPoint: 100), Q(scale: 0.08, zeroPoint: 120)),
        (.int16, Q(scale: 0.001, zeroPoint: 0), Q(scale: 0.0007, zeroPoint: 0), Q(scale: 0.002, zeroPoint: 0)),
    ]

    /// Broadcast and int16 paths are LiteRT's scalar formulas: exact against the reference.
    @Test func addSubMulMatchReference() throws {
        var random = ElementwiseTestKit.Random(seed: 11)
        for (type, qa, qb, qo) in Self.params {
            let range = type.quantizedRange!
            let shift: Int32 = type == .int16 ? 15 : 20
            // [4, 9] with [9]: broadcast (scalar path); [37] with [37] for int16: elementwise.
            for (shapeA, shapeB) in [([4, 9], [9]), ([37], [37])] where type == .int16 || shapeA != shapeB {
                let a = QuantizedTestKit.random(&random, shapeA.reduce(1, *), type)
                let b = QuantizedTestKit.random(&random, shapeB.reduce(1, *), type)
                for code in [BuiltinOperator.add, .sub, .mul] {
                    let h = ElementwiseTestKit.Harness()
                    let out = QuantizedTestKit.output(type, scale: qo.scale, zeroPoint: Int(qo.zeroPoint))
                    try h.run(
                        code,
                        [try QuantizedTestKit.make(h, a, shapeA, type, qa.scale, Int(qa.zeroPoint)),
                         try QuantizedTestKit.make(h, b, shapeB, type, qb.scale, Int(qb.zeroPoint))],
                        outputs: [out])
                    let got = QuantizedTestKit.values(out)
                    for i in 0..<got.count {
                        let x = a[i], y = b[i % b.count]
                        let want =
                            code == .mul
                            ? ReferenceQuantizedElementwise.multiply(x, y, qa, qb, qo, lo: range.min, hi: range.max)
                            : ReferenceQuantizedElementwise.add(
                                x, y, qa, qb, qo, lo: range.min, hi: range.max, leftShift: shift, subtract: code == .sub)
                        #expect(got[i] == want, "\(code.name) \(type.name) at \(i): \(x), \(y)")
                    }
                }
            }
        }
    }

    /// Same-shape 8-bit ADD/MUL follow LiteRT's vector blocks (ties rounded toward +inf) and scalar
    /// tail: the tail is exact against the reference, the blocks within one unit of it.
    @Test func elementwiseBlocksAndTail() throws {
        var random = ElementwiseTestKit.Random(seed: 12)
        for (type, qa, qb, qo) in Self.params where type != .int16 {
            let range = type.quantizedRange!
            let n = 45
            let a = QuantizedTestKit.random(&random, n, type), b = QuantizedTestKit.random(&random, n, type)
            for code in [BuiltinOperator.add, .mul] {
                let h = ElementwiseTestKit.Harness()
                let out = QuantizedTestKit.output(type, scale: qo.scale, zeroPoint: Int(qo.zeroPoint))
                try h.run(
                    code,
                    [try QuantizedTestKit.make(h, a, [n], type, qa.scale, Int(qa.zeroPoint)),
                     try QuantizedTestKit.make(h, b, [n], type, qb.scale, Int(qb.zeroPoint))], outputs: [out])
                let got = QuantizedTestKit.values(out)
                let block = type == .int8 ? 16 : 8
                for i in 0..<n {
                    let want =
                        code == .mul
                        ? ReferenceQuantizedElementwise.multiply(a[i], b[i], qa, qb, qo, lo: range.min, hi: range.max)
                        : ReferenceQuantizedElementwise.add(a[i], b[i], qa, qb, qo, lo: range.min, hi: range.max, leftShift: 20)
                    if i >= n / block * block {
                        #expect(got[i] == want, "\(code.name) \(type.name) tail \(i)")
                    } else {
                        #expect(abs(got[i] - want) <= 1, "\(code.name) \(type.name) block \(i)")
                    }
                }
            }
        }
    }

    @Test func squaredDifferenceHandChecked() throws {
        // Scales 0.5, zero points 0: (3.0 - 1.0)^2 = 4.0 = 8 units; (-2.0 - 1.5)^2 = 12.25 → 24.5 → 25 units.
        let h = ElementwiseTestKit.Harness()
        let out = QuantizedTestKit.output(.int8, scale: 0.5, zeroPoint: 0)
        try h.run(
            .squaredDifference,
            [try QuantizedTestKit.make(h, [6, -4], [2], .int8, 0.5, 0), try QuantizedTestKit.make(h, [2, 3], [2], .int8, 0.5, 0)],
            outputs: [out])
        #expect(QuantizedTestKit.values(out) == [8, 25])
    }

    @Test func handCheckedValues() throws {
        // int8, every scale 0.5 and zero point 0: raw values add (1.5 + 2.0 = 3.5 is 7 units).
        let h = ElementwiseTestKit.Harness()
        let out = QuantizedTestKit.output(.int8, scale: 0.5, zeroPoint: 0)
        try h.run(
            .add,
            [try QuantizedTestKit.make(h, [3, -4, 100, 127], [4], .int8, 0.5, 0),
             try QuantizedTestKit.make(h, [4, -4, 100, 127], [4], .int8, 0.5, 0)], outputs: [out])
        #expect(QuantizedTestKit.values(out) == [7, -8, 127, 127])
        // MUL: (2 × 0.5) × (6 × 0.5) = 3.0 = 6 units of 0.5.
        let h2 = ElementwiseTestKit.Harness()
        let out2 = QuantizedTestKit.output(.uint8, scale: 0.5, zeroPoint: 10)
        try h2.run(
            .mul,
            [try QuantizedTestKit.make(h2, [12], [1], .uint8, 0.5, 10),
             try QuantizedTestKit.make(h2, [16], [1], .uint8, 0.5, 10)], outputs: [out2])
        #expect(QuantizedTestKit.values(out2) == [16])
        // MAXIMUM compares raw values.
        let h3 = ElementwiseTestKit.Harness()
        let out3 = QuantizedTestKit.output(.int8, scale: 1, zeroPoint: 0)
        try h3.run(
            .maximum,
            [try QuantizedTestKit.make(h3, [-5, 9], [2], .int8, 1, 0), try QuantizedTestKit.make(h3, [3, -9], [2], .int8, 1, 0)],
            outputs: [out3])
        #expect(QuantizedTestKit.values(out3) == [3, 9])
    }
}

import Testing

@testable import TFLiteRuntime

/// The C kernels of the same-shape 8-bit ADD (`omk_q8_add_avx512` / `_avx2`) against the Swift
/// lanes they replace (`addBlockInt8`, `addBlockShiftAfter`), byte for byte, on every SIMD level this
/// CPU allows (none when `OPENMLKIT_KERNELS=portable`: then only the dispatching path is checked).
@Suite struct QuantizedAddSIMDTests {
    /// (input 1 scale, input 2 scale, output scale): equal, close, very different either way, an input
    /// whose multiplier underflows to zero, an output multiplier above one, a far right output shift.
    static let scales: [(Float, Float, Float)] = [
        (0.02, 0.02, 0.03), (0.0235, 0.0171, 0.0312), (1.0, 1e-4, 0.5), (1e-4, 1.0, 1e-3),
        (0.05, 1e-9, 0.05), (3e-7, 0.8, 0.9), (1.0, 1e-13, 1.0), (0.5, 0.5, 1e-7), (0.02, 0.03, 10.0),
        (0.02, 0.03, 1e3), (0.0039215, 0.0078431, 0.0117647),
    ]
    static let activations: [FusedActivation] = [.none, .relu, .relu6, .reluN1To1]

    static func params(
        _ type: TensorType, _ s: (Float, Float, Float), zeroPoints z: (Int, Int, Int), _ activation: FusedActivation
    ) -> QuantizedBinaryParams {
        func tensor(_ scale: Float, _ zeroPoint: Int) -> RuntimeTensor {
            RuntimeTensor(
                index: 0, name: "t", type: type, shape: [],
                quantization: QuantizationInfo(
                    scales: [scale], zeroPoints: [Int64(zeroPoint)], quantizedDimension: 0, min: [], max: []),
                isVariable: false)
        }
        return .addSub(a: tensor(s.0, z.0), b: tensor(s.1, z.1), out: tensor(s.2, z.2), activation: activation)
    }

    /// Every pair of byte values, then `extra` random pairs (an odd total).
    static func operands<T: QuantizedElement>(_: T.Type, extra: Int, _ rng: inout SplitMix64) -> ([T], [T]) {
        var a: [T] = [], b: [T] = []
        for x in 0..<256 {
            for y in 0..<256 {
                a.append(T(truncatingIfNeeded: x))
                b.append(T(truncatingIfNeeded: y))
            }
        }
        for _ in 0..<extra {
            a.append(T(truncatingIfNeeded: rng.next()))
            b.append(T(truncatingIfNeeded: rng.next()))
        }
        return (a, b)
    }

    /// One vector-block lane in Swift, the oracle.
    static func lane<T: QuantizedElement>(_ p: QuantizedBinaryParams, _: T.Type, _ x: T, _ y: T) -> T {
        let r =
            T.self == Int8.self
            ? p.addBlockInt8(Int32(x), Int32(y))
            : p.addBlockShiftAfter(Int32(x), Int32(y), lower: Int32(T.min), upper: Int32(T.max))
        return T(truncatingIfNeeded: r)
    }

    func check<T: QuantizedElement>(_ type: T.Type, _ tensorType: TensorType) {
        var rng = SplitMix64(seed: T.self == Int8.self ? 7 : 8)
        let (a, b) = Self.operands(T.self, extra: 37, &rng)
        let levels = Array(stride(from: min(CPUFeatures.level, 2), through: 1, by: -1))
        var compared = 0
        for s in Self.scales {
            for activation in Self.activations {
                let z = (
                    Int(T(truncatingIfNeeded: rng.next())), Int(T(truncatingIfNeeded: rng.next())),
                    Int(T(truncatingIfNeeded: rng.next()))
                )
                let p = Self.params(tensorType, s, zeroPoints: z, activation)
                let expected = zip(a, b).map { Self.lane(p, T.self, $0, $1) }
                for level in levels {
                    // Whole buffer, then odd lengths from an odd offset (masked and copied tails).
                    for (start, count) in [(0, a.count), (1, 1), (3, 7), (5, 15), (1, 17), (9, 31), (11, 1001)] {
                        var out = [T](repeating: 0, count: count)
                        let ran = a.withUnsafeBufferPointer { pa in
                            b.withUnsafeBufferPointer { pb in
                                out.withUnsafeMutableBufferPointer { po in
                                    p.addBlocksSIMD(pa.baseAddress! + start, pb.baseAddress! + start, po.baseAddress!, count, level: level)
                                }
                            }
                        }
                        #expect(ran, "level \(level) declined scales \(s)")
                        let want = Array(expected[start..<(start + count)])
                        let bad = zip(out, want).enumerated().first { $0.element.0 != $0.element.1 }
                        #expect(
                            bad == nil,
                            "\(T.self) level \(level) scales \(s) zero points \(z) \(activation) start \(start) count \(count): first mismatch at \(bad.map { "\($0.offset): \($0.element.0) vs \($0.element.1)" } ?? "")"
                        )
                        compared += 1
                    }
                }
                // The dispatching path keeps LiteRT's split: vector blocks, then the scalar tail.
                let block = T.self == Int8.self ? 16 : 8
                let count = a.count
                let blocked = count / block * block
                var out = [T](repeating: 0, count: count)
                a.withUnsafeBufferPointer { pa in
                    b.withUnsafeBufferPointer { pb in
                        out.withUnsafeMutableBufferPointer { po in
                            p.applyElementwise8(multiply: false, pa.baseAddress!, pb.baseAddress!, po.baseAddress!, count)
                        }
                    }
                }
                let split = (0..<count).map { i in
                    i < blocked ? expected[i] : T(truncatingIfNeeded: p.add(Int32(a[i]), Int32(b[i]), subtract: false))
                }
                #expect(out == split, "\(T.self) dispatch, scales \(s) \(activation)")
            }
        }
        #expect(compared == levels.count * Self.scales.count * Self.activations.count * 7)
    }

    @Test func int8MatchesSwiftLanes() { check(Int8.self, .int8) }

    @Test func uint8MatchesSwiftLanes() { check(UInt8.self, .uint8) }

    @Test func declinesParametersItCannotReproduce() {
        var p = Self.params(.int8, (0.02, 0.03, 0.04), zeroPoints: (0, 0, 0), .none)
        p.output.multiplier = .min
        let x: [Int8] = [1, 2]
        var out: [Int8] = [0, 0]
        let ran = out.withUnsafeMutableBufferPointer { p.addBlocksSIMD(x, x, $0.baseAddress!, 2) }
        #expect(!ran)
    }
}

import Testing

@testable import TFLiteRuntime

/// The vectorised, parallel walk of 8-bit ADD and MUL (`QuantizedBinaryRuns`, C kernel and forced
/// Swift lanes, split into runs and chunks at 1–3 threads) against the single-threaded loops it
/// replaced (`applyElementwise8`, `applyFiveFold`: LiteRT's block/tail structure written out), byte
/// for byte, for same shapes and every kind of five-fold broadcast.
@Suite struct QuantizedBinaryRunsTests {
    /// Input pairs: same shapes (tails of every length, chunked runs), a squeeze-excite gate either
    /// way round, a scalar, per-pixel scalars, and broadcasts with LiteRT's outer loops `y0`…`y2` > 1.
    static let shapes: [([Int], [Int])] = [
        ([1], [1]), ([7], [7]), ([16], [16]), ([17], [17]), ([1, 5, 5, 37], [1, 5, 5, 37]), ([9001], [9001]),
        ([1, 1, 1, 72], [1, 6, 5, 72]), ([1, 4, 4, 24], [1, 1, 1, 24]), ([1, 1, 1, 13], [1, 3, 3, 13]),
        ([1, 20, 20, 3], []), ([], [1, 9, 9, 5]), ([1], [3001]), ([1, 4, 4, 1], [1, 4, 4, 7]),
        ([1, 4, 4, 19], [1, 4, 4, 1]), ([2, 3, 4, 1, 5], [2, 1, 4, 6, 5]), ([3, 1, 4, 17], [3, 5, 4, 17]),
        ([2, 3, 1, 1], [2, 3, 5, 9]), ([4, 6, 1, 24], [1, 6, 3, 24]), ([5, 3, 2, 1], [5, 1, 2, 40]),
    ]

    static func tensor(_ type: TensorType, _ scale: Float, _ zeroPoint: Int) -> RuntimeTensor {
        RuntimeTensor(
            index: 0, name: "t", type: type, shape: [],
            quantization: QuantizationInfo(
                scales: [scale], zeroPoints: [Int64(zeroPoint)], quantizedDimension: 0, min: [], max: []),
            isVariable: false)
    }

    static func params<T: QuantizedElement>(
        _: T.Type, multiply: Bool, _ rng: inout SplitMix64, _ activation: FusedActivation
    ) -> QuantizedBinaryParams {
        let type: TensorType = T.self == Int8.self ? .int8 : .uint8
        func zeroPoint() -> Int { Int(T(truncatingIfNeeded: rng.next())) }
        func scale() -> Float { Float.random(in: 0.002...0.6, using: &rng) }
        let a = tensor(type, scale(), zeroPoint())
        let b = tensor(type, multiply ? 1 / 256 : scale(), zeroPoint())
        let out = tensor(type, scale() * (multiply ? 0.3 : 1), zeroPoint())
        return multiply
            ? .multiply(a: a, b: b, out: out, activation: activation)
            : .addSub(a: a, b: b, out: out, activation: activation)
    }

    func check<T: QuantizedElement>(_: T.Type, seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var compared = 0
        for (index, (s0, s1)) in Self.shapes.enumerated() {
            let count0 = s0.reduce(1, *)
            let count1 = s1.reduce(1, *)
            let a = (0..<count0).map { _ in T(truncatingIfNeeded: rng.next()) }
            let b = (0..<count1).map { _ in T(truncatingIfNeeded: rng.next()) }
            let fiveFold = FiveFoldBroadcast(s0, s1)
            #expect((fiveFold == nil) == (s0 == s1), "shapes \(s0) \(s1)")
            let walk = fiveFold.map { QuantizedBinaryRuns($0) } ?? QuantizedBinaryRuns(count: count0)
            let swap = fiveFold?.swap ?? false
            for multiply in [false, true] {
                let activation: FusedActivation = index % 3 == 0 ? .relu6 : .none
                let p = Self.params(T.self, multiply: multiply, &rng, activation)
                var want = [T](repeating: 0, count: walk.outputCount)
                a.withUnsafeBufferPointer { pa in
                    b.withUnsafeBufferPointer { pb in
                        want.withUnsafeMutableBufferPointer { po in
                            if let fiveFold {
                                p.applyFiveFold(
                                    multiply: multiply, fiveFold, pa.baseAddress!, pb.baseAddress!, po.baseAddress!)
                            } else {
                                p.applyElementwise8(
                                    multiply: multiply, pa.baseAddress!, pb.baseAddress!, po.baseAddress!, count0)
                            }
                        }
                    }
                }
                let q = swap ? p.swapped() : p
                // (threads, portable, chunk, minimum per thread): inline, forced Swift, chunked and split.
                let ways = [
                    (1, false, 4096, 16384), (1, true, 4096, 16384), (2, false, 48, 1), (3, true, 32, 1),
                    (3, false, 16, 1),
                ]
                for (threads, portable, chunk, minimum) in ways {
                    var got = [T](repeating: 0, count: walk.outputCount)
                    a.withUnsafeBufferPointer { pa in
                        b.withUnsafeBufferPointer { pb in
                            got.withUnsafeMutableBufferPointer { po in
                                let (first, second) =
                                    swap ? (pb.baseAddress!, pa.baseAddress!) : (pa.baseAddress!, pb.baseAddress!)
                                walk.apply(
                                    q, multiply: multiply, first, second, po.baseAddress!, threads: threads,
                                    portable: portable, chunkElements: chunk, minimumElements: minimum)
                            }
                        }
                    }
                    let bad = zip(got, want).enumerated().first { $0.element.0 != $0.element.1 }
                    #expect(
                        bad == nil,
                        "\(T.self) \(multiply ? "MUL" : "ADD") \(s0) x \(s1) threads \(threads) portable \(portable) chunk \(chunk): first mismatch \(bad.map { "at \($0.offset): \($0.element.0) vs \($0.element.1)" } ?? "")"
                    )
                    compared += 1
                }
            }
        }
        #expect(compared == Self.shapes.count * 2 * 5)
    }

    @Test func int8MatchesLiteRTLoops() { check(Int8.self, seed: 21) }

    @Test func uint8MatchesLiteRTLoops() { check(UInt8.self, seed: 22) }

    /// A MUL into an output scale near 1e-35 (traffic_model's conv-LSTM cell): LiteRT's double-rounding
    /// build keeps the shift near 90, its vector blocks shift every product out, and each block lane
    /// is the zero point (LiteRT's intermediate tensors show it; the C kernel declines the shift).
    @Test func multiplierBeyondTwoToThe30KeepsItsShift() {
        let p = QuantizedBinaryParams.multiply(
            a: Self.tensor(.uint8, 0.0235294122, 0), b: Self.tensor(.uint8, 0.00390625, 0),
            out: Self.tensor(.uint8, 2.795155383601582e-35, 3), activation: .none)
        #expect(p.output.shift > 60)
        #expect(p.simdAddParameters == nil)
        let a = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }
        let b = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 5) }
        var got = [UInt8](repeating: 0, count: 64)
        QuantizedBinaryRuns(count: 64).apply(p, multiply: true, a, b, &got, threads: 1)
        #expect(got == [UInt8](repeating: 3, count: 64))
    }

    /// Parameters the C kernel cannot reproduce (a multiplier of INT32_MIN) take the Swift lanes.
    @Test func saturatingMultiplierStaysInSwift() {
        var rng = SplitMix64(seed: 5)
        var p = Self.params(UInt8.self, multiply: true, &rng, .none)
        p.output.multiplier = .min
        #expect(p.simdAddParameters == nil)
        let a = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let b = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 11) }
        var want = [UInt8](repeating: 0, count: 40)
        var got = want
        p.applyElementwise8(multiply: true, a, b, &want, 40)
        QuantizedBinaryRuns(count: 40).apply(p, multiply: true, a, b, &got, threads: 1)
        #expect(got == want)
    }
}

import Testing

@testable import TFLiteRuntime

private typealias KernelHarness = ElementwiseTestKit.Harness
private typealias TestRandom = ElementwiseTestKit.Random
private typealias TestOption = ElementwiseTestKit.Option

/// The binary elementwise kernels against the scalar reference, plus hand-checked values.
@Suite struct ElementwiseKernelTests {
    static let operators: [(BuiltinOperator, BinaryOperator)] = [
        (.add, .add), (.sub, .subtract), (.mul, .multiply), (.div, .divide),
        (.squaredDifference, .squaredDifference), (.maximum, .maximum), (.minimum, .minimum),
        (.floorDiv, .floorDivide), (.floorMod, .floorModulo),
    ]

    /// Shape pairs covering every broadcast path: same shape, scalars, last-dimension and
    /// middle-dimension broadcasts, both operands broadcasting, rank 6, and empty tensors.
    static let shapePairs: [([Int], [Int])] = [
        ([2, 3, 4], [2, 3, 4]),
        ([], [3, 5]),
        ([3, 5], []),
        ([1], [7]),
        ([2, 3, 8], [8]),
        ([8], [4, 1, 8]),
        ([2, 3, 4, 5], [3, 1, 5]),
        ([3, 1, 5], [1, 4, 1]),
        ([4, 1], [1, 6]),
        ([2, 1, 3, 1, 2, 2], [1, 5, 3, 4, 1, 2]),
        ([2, 1, 3, 1, 2, 2], [2]),
        ([5, 1, 1], [1, 1, 1]),
        ([0, 3], [3]),
        ([2, 0, 3], [1, 1, 3]),
        ([300, 257], [257]),  // large enough to split over threads
        ([64, 1, 1024], [1, 2, 1024]),
    ]

    static func divisorSafe(_ op: BinaryOperator) -> Bool {
        op == .divide || op == .floorDivide || op == .floorModulo
    }

    @Test(arguments: [1, 3])
    func floatMatchesReference(threads: Int) throws {
        var random = TestRandom(seed: 1)
        for (code, op) in Self.operators {
            for activation in op.hasFusedActivation ? [FusedActivation.none, .relu, .relu6, .reluN1To1] : [.none] {
                for (aShape, bShape) in Self.shapePairs {
                    // The large shapes (there to exercise the threaded split) once per operator is enough.
                    let large = Swift.max(aShape.reduce(1, *), bShape.reduce(1, *)) > 10_000
                    if large && activation != .none { continue }
                    let h = KernelHarness()
                    let a = random.floats(aShape.reduce(1, *), -10...10)
                    var b = random.floats(bShape.reduce(1, *), -10...10)
                    if Self.divisorSafe(op) { b = b.map { Swift.abs($0) < 0.1 ? 0.5 : $0 } }
                    let out = try h.run1(
                        code, [try h.floats(a, aShape), try h.floats(b, bShape)],
                        options: [.byte(0, activation.rawValue)], threads: threads)
                    let expected = try #require(
                        ReferenceElementwise.broadcast(
                            a, aShape, b, bShape, ReferenceElementwise.floatFunction(op, activation)))
                    #expect(out.shape == expected.shape, "\(code.name) \(aShape) \(bShape)")
                    let got = out.elementwiseTestValues(Float.self)
                    let bad = ElementwiseTestKit.firstMismatch(got, expected.values, relative: 1e-6, absolute: 0)
                    #expect(bad == nil, "\(code.name) \(activation) \(aShape) \(bShape) at \(bad ?? 0)")
                }
            }
        }
    }

    @Test(arguments: [1, 3])
    func integersMatchReference(threads: Int) throws {
        var random = TestRandom(seed: 2)
        for (code, op) in Self.operators {
            for (aShape, bShape) in Self.shapePairs {
                let aCount = aShape.reduce(1, *)
                let bCount = bShape.reduce(1, *)
                // Large magnitudes, so products and squares wrap as well.
                var b32: [Int32] = random.ints(bCount, -100_000...100_000, Int32.self)
                var b64: [Int64] = random.ints(bCount, Int(Int64.min / 2)...Int(Int64.max / 2), Int64.self)
                if Self.divisorSafe(op) {
                    b32 = b32.map { $0 == 0 ? 7 : $0 }
                    b64 = b64.map { $0 == 0 ? -3 : $0 }
                }
                let a32: [Int32] = random.ints(aCount, Int(Int32.min)...Int(Int32.max), Int32.self)
                let a64: [Int64] = random.ints(aCount, Int(Int64.min)...Int(Int64.max), Int64.self)
                let activation: FusedActivation = op.hasFusedActivation && aCount % 2 == 1 ? .relu6 : .none
                let h = KernelHarness()
                let f32 = ReferenceElementwise.integerFunction(op, activation, Int32.self)
                let out32 = try h.run1(
                    code,
                    [try h.tensor(a32, shape: aShape, type: .int32), try h.tensor(b32, shape: bShape, type: .int32)],
                    options: [.byte(0, activation.rawValue)], threads: threads)
                let expected32 = try #require(
                    ReferenceElementwise.broadcast(a32, aShape, b32, bShape) { f32($0, $1) ?? 0 })
                #expect(out32.type == .int32)
                #expect(out32.shape == expected32.shape)
                #expect(
                    out32.elementwiseTestValues(Int32.self) == expected32.values,
                    "\(code.name) int32 \(aShape) \(bShape)")

                guard op != .divide else { continue }  // LiteRT has no int64 DIV
                let f64 = ReferenceElementwise.integerFunction(op, activation, Int64.self)
                let out64 = try h.run1(
                    code,
                    [try h.tensor(a64, shape: aShape, type: .int64), try h.tensor(b64, shape: bShape, type: .int64)],
                    options: [.byte(0, activation.rawValue)], threads: threads)
                let expected64 = try #require(
                    ReferenceElementwise.broadcast(a64, aShape, b64, bShape) { f64($0, $1) ?? 0 })
                #expect(
                    out64.elementwiseTestValues(Int64.self) == expected64.values,
                    "\(code.name) int64 \(aShape) \(bShape)")
            }
        }
    }

    @Test func handCheckedFloats() throws {
        let h = KernelHarness()
        let a = try h.floats([7, -7, 7, -7, 1, -1, 0], [7])
        let b = try h.floats([2, 2, -2, -2, 0, 0, 0], [7])
        // LiteRT clamps to the finite range: 1/0 is FLT_MAX, 0/0 stays NaN.
        let div = try h.run1(.div, [a, b]).elementwiseTestValues(Float.self)
        #expect(Array(div[0..<4]) == [3.5, -3.5, -3.5, 3.5])
        #expect(div[4] == .greatestFiniteMagnitude && div[5] == -.greatestFiniteMagnitude && div[6].isNaN)

        let a4 = try h.floats([7, -7, 7, -7], [4])
        let b4 = try h.floats([2, 2, -2, -2], [4])
        #expect(try h.run1(.floorDiv, [a4, b4]).elementwiseTestValues(Float.self) == [3, -4, -4, 3])
        #expect(try h.run1(.floorMod, [a4, b4]).elementwiseTestValues(Float.self) == [1, 1, -1, -1])
        #expect(try h.run1(.squaredDifference, [a4, b4]).elementwiseTestValues(Float.self) == [25, 81, 81, 25])

        // MAXIMUM/MINIMUM follow `a > b ? a : b`: a NaN in the first operand loses, in the second wins.
        let n = try h.floats([.nan, 1, .nan, 2], [4])
        let m = try h.floats([1, .nan, .nan, 1], [4])
        let maximum = try h.run1(.maximum, [n, m]).elementwiseTestValues(Float.self)
        #expect(maximum[0] == 1 && maximum[1].isNaN && maximum[2].isNaN && maximum[3] == 2)
        let minimum = try h.run1(.minimum, [n, m]).elementwiseTestValues(Float.self)
        #expect(minimum[0] == 1 && minimum[1].isNaN && minimum[2].isNaN && minimum[3] == 1)

        // Fused RELU6 on ADD; broadcasting a per-channel vector over rows.
        let x = try h.floats([-1, 2, 5, 7, -8, 0], [2, 3])
        let c = try h.floats([1, 1, 1], [3])
        let added = try h.run1(.add, [x, c], options: [.byte(0, FusedActivation.relu6.rawValue)])
        #expect(added.shape == [2, 3])
        #expect(added.elementwiseTestValues(Float.self) == [0, 3, 6, 6, 0, 1])
        let big = try h.floats([3e38], [1])
        #expect(
            try h.run1(.mul, [big, try h.floats([10], [])]).elementwiseTestValues(Float.self) == [
                .greatestFiniteMagnitude
            ])
    }

    @Test func handCheckedIntegers() throws {
        let h = KernelHarness()
        let a = try h.tensor([7, -7, 7, -7, Int32.min] as [Int32], shape: [5], type: .int32)
        let b = try h.tensor([2, 2, -2, -2, -1] as [Int32], shape: [5], type: .int32)
        #expect(try h.run1(.div, [a, b]).elementwiseTestValues(Int32.self) == [3, -3, -3, 3, Int32.min])
        #expect(try h.run1(.floorDiv, [a, b]).elementwiseTestValues(Int32.self) == [3, -4, -4, 3, Int32.min])
        #expect(try h.run1(.floorMod, [a, b]).elementwiseTestValues(Int32.self) == [1, 1, -1, -1, 0])
        let big = try h.tensor([70000, 3] as [Int32], shape: [2], type: .int32)
        let zero = try h.tensor([0, 5] as [Int32], shape: [2], type: .int32)
        // Wraps as LiteRT does: 70000² mod 2³².
        #expect(try h.run1(.squaredDifference, [big, zero]).elementwiseTestValues(Int32.self) == [605_032_704, 4])
        let l = try h.tensor([Int64.max, -9] as [Int64], shape: [2], type: .int64)
        let one = try h.tensor([1] as [Int64], shape: [1], type: .int64)
        #expect(try h.run1(.add, [l, one]).elementwiseTestValues(Int64.self) == [Int64.min, -8])
        let x = try h.tensor([1 << 62 + 1, -(1 << 62) - 3] as [Int64], shape: [2], type: .int64)
        let three = try h.tensor([3] as [Int64], shape: [], type: .int64)
        #expect(
            try h.run1(.floorDiv, [x, three]).elementwiseTestValues(Int64.self) == [
                (1 << 62 + 1) / 3, -(1 << 62) / 3 - 2,
            ])
        #expect(try h.run1(.floorMod, [x, three]).elementwiseTestValues(Int64.self) == [2, 2])
    }

    @Test func badInputsThrow() throws {
        let h = KernelHarness()
        let i = try h.tensor([4, 5] as [Int32], shape: [2], type: .int32)
        let z = try h.tensor([1, 0] as [Int32], shape: [2], type: .int32)
        for code in [BuiltinOperator.div, .floorDiv, .floorMod] {
            #expect(throws: RuntimeError.self) { try h.run1(code, [i, z]) }
        }
        let z64 = try h.tensor([0] as [Int64], shape: [1], type: .int64)
        let i64 = try h.tensor([3] as [Int64], shape: [1], type: .int64)
        #expect(throws: RuntimeError.self) { try h.run1(.floorMod, [i64, z64]) }
        // LiteRT's FLOOR_DIV rejects a zero divisor even for floats; FLOOR_MOD gives NaN.
        let f = try h.floats([1], [1])
        let fz = try h.floats([0], [1])
        #expect(throws: RuntimeError.self) { try h.run1(.floorDiv, [f, fz]) }
        #expect(try h.run1(.floorMod, [f, fz]).elementwiseTestValues(Float.self)[0].isNaN)
        // Shapes that do not broadcast, mixed types, unsupported and quantized types.
        #expect(throws: RuntimeError.self) {
            try h.run1(.add, [try h.floats([1, 2], [2]), try h.floats([1, 2, 3], [3])])
        }
        #expect(throws: RuntimeError.self) { try h.run1(.add, [f, i64]) }
        let i64b = try h.tensor([3] as [Int64], shape: [1], type: .int64)
        #expect(throws: RuntimeError.self) { try h.run1(.div, [i64, i64b]) }
        let q = try h.tensor([3] as [UInt8], shape: [1], type: .uint8)
        #expect(throws: RuntimeError.self) { try h.run1(.add, [q, q]) }
        let s = try h.tensor([true] as [Bool], shape: [1], type: .bool)
        #expect(throws: RuntimeError.self) { try h.run1(.mul, [s, s]) }
        // An unknown fused activation, and a constant whose data is shorter than its shape.
        #expect(throws: RuntimeError.self) { try h.run1(.add, [f, f], options: [.byte(0, 9)]) }
        // Operands whose broadcast would have 2^64 elements (prepare never touches their data).
        let tall = RuntimeTensor(
            index: 90, name: "tall", type: .float32, shape: [1 << 32, 1], quantization: nil, isVariable: false)
        let wide = RuntimeTensor(
            index: 91, name: "wide", type: .float32, shape: [1, 1 << 32], quantization: nil, isVariable: false)
        #expect(throws: RuntimeError.self) { try h.run1(.add, [tall, wide]) }
        #expect(throws: RuntimeError.self) { try h.run1(.prelu, [tall, wide]) }
        let short = try h.tensor([1, 2] as [Float], shape: [4], type: .float32, constant: true)
        #expect(throws: RuntimeError.self) { try h.run1(.add, [short, try h.floats([1, 2, 3, 4], [4])]) }
    }
}

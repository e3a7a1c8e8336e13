import Foundation
import Testing

@testable import TFLiteRuntime

private typealias KernelHarness = ElementwiseTestKit.Harness
private typealias TestRandom = ElementwiseTestKit.Random
private typealias TestOption = ElementwiseTestKit.Option

/// The activation and unary kernels against the double-precision reference, plus hand-checked values.
@Suite struct ActivationKernelTests {
    static let unary: [(BuiltinOperator, UnaryOperator)] = [
        (.logistic, .logistic), (.tanh, .tanh), (.relu, .relu), (.relu6, .relu6), (.reluN1To1, .reluN1To1),
        (.leakyRelu, .leakyRelu), (.elu, .elu), (.hardSwish, .hardSwish), (.gelu, .gelu), (.exp, .exp),
        (.log, .log), (.sqrt, .sqrt), (.rsqrt, .rsqrt), (.neg, .negate), (.abs, .absolute),
    ]

    @Test(arguments: [1, 2])
    func floatUnaryMatchesReference(threads: Int) throws {
        var random = TestRandom(seed: 3)
        for (code, op) in Self.unary {
            for shape in [[], [7], [3, 4, 5], [40_000]] {
                let positive = op == .log || op == .sqrt || op == .rsqrt
                let range: ClosedRange<Float> = positive ? 0.001...50 : (op == .exp ? -20...20 : -12...12)
                let x = random.floats(shape.reduce(1, *), range)
                for approximate in op == .gelu ? [false, true] : [false] {
                    let alpha: Float = op == .leakyRelu ? 0.2 : 0
                    var options: [TestOption] = []
                    if op == .leakyRelu { options = [.float(0, alpha)] }
                    if op == .gelu { options = [.bool(0, approximate)] }
                    let h = KernelHarness()
                    let out = try h.run1(code, [try h.floats(x, shape)], options: options, threads: threads)
                    #expect(out.shape == shape && out.type == .float32)
                    let f = ReferenceActivation.floatFunction(op, alpha: alpha, approximate: approximate)
                    let bad = ElementwiseTestKit.firstMismatch(
                        out.elementwiseTestValues(Float.self), x.map(f), relative: 2e-6, absolute: 1e-7)
                    #expect(
                        bad == nil,
                        "\(code.name) approximate=\(approximate) at \(bad ?? 0): x=\(bad.map { x[$0] } ?? 0)")
                }
            }
        }
    }

    /// Values at the seams of the kernels' piecewise formulas (tanh's polynomial below 1/4, ELU's
    /// series above -1/4), tiny values, infinities and NaN.
    @Test func specialValuesMatchReference() throws {
        let seams: [Float] = [
            -0.2501, -0.25, -0.2499, 0.2499, 0.25, 0.2501, 1e-8, -1e-8, 1e-30, 0, -0.0, 30, -30, 100, -100,
        ]
        let special: [Float] = seams + [.infinity, -.infinity, .nan]
        for (code, op) in Self.unary where op != .log && op != .sqrt && op != .rsqrt {
            for approximate in op == .gelu ? [false, true] : [false] {
                let h = KernelHarness()
                let options: [TestOption] =
                    op == .gelu ? [.bool(0, approximate)] : (op == .leakyRelu ? [.float(0, 0.1)] : [])
                let out = try h.run1(code, [try h.floats(special, [special.count])], options: options)
                let f = ReferenceActivation.floatFunction(op, alpha: 0.1, approximate: approximate)
                let got = out.elementwiseTestValues(Float.self)
                for (i, x) in special.enumerated() {
                    #expect(
                        ElementwiseTestKit.closeEnough(got[i], f(x), relative: 2e-6, absolute: 1e-30),
                        "\(code.name) approximate=\(approximate) x=\(x): \(got[i]) vs \(f(x))")
                }
            }
        }
        let positive: [Float] = [0, 1e-30, 1e-8, 0.25, 1, 1e30, .infinity, -1, .nan]
        for (code, op) in Self.unary where op == .log || op == .sqrt || op == .rsqrt {
            let h = KernelHarness()
            let got = try h.run1(code, [try h.floats(positive, [positive.count])]).elementwiseTestValues(Float.self)
            let f = ReferenceActivation.floatFunction(op)
            for (i, x) in positive.enumerated() {
                #expect(
                    ElementwiseTestKit.closeEnough(got[i], f(x), relative: 2e-6, absolute: 0), "\(code.name) x=\(x)")
            }
        }
    }

    @Test func integerNegAndAbs() throws {
        let h = KernelHarness()
        let i32: [Int32] = [Int32.min, -5, 0, 7, Int32.max]
        let x32 = try h.tensor(i32, shape: [5], type: .int32)
        #expect(
            try h.run1(.neg, [x32]).elementwiseTestValues(Int32.self)
                == i32.map(ReferenceActivation.integerFunction(.negate, Int32.self)!))
        #expect(try h.run1(.abs, [x32]).elementwiseTestValues(Int32.self) == [Int32.min, 5, 0, 7, Int32.max])
        let i64: [Int64] = [Int64.min, -5, 0, 7]
        #expect(
            try h.run1(.neg, [try h.tensor(i64, shape: [2, 2], type: .int64)]).elementwiseTestValues(Int64.self) == [
                Int64.min, 5, 0, -7,
            ])
        // ABS has no int64 variant in LiteRT; RELU none for integers.
        #expect(throws: RuntimeError.self) { try h.run1(.abs, [try h.tensor(i64, shape: [4], type: .int64)]) }
        #expect(throws: RuntimeError.self) { try h.run1(.relu, [x32]) }
        #expect(throws: RuntimeError.self) {
            try h.run1(.logistic, [try h.tensor([1] as [UInt8], shape: [1], type: .uint8)])
        }
    }

    @Test func handCheckedValues() throws {
        let h = KernelHarness()
        let x = try h.floats([-4, -3, -1, 0, 1, 3, 4], [7])
        // HARD_SWISH: x * relu6(x + 3) / 6.
        #expect(
            try h.run1(.hardSwish, [x]).elementwiseTestValues(Float.self) == [0, 0, -1.0 / 3.0, 0, 4.0 / 6.0, 3, 4])
        let gelu = try h.run1(.gelu, [try h.floats([1, -1], [2])]).elementwiseTestValues(Float.self)
        #expect(
            ElementwiseTestKit.closeEnough(gelu[0], 0.841_344_7)
                && ElementwiseTestKit.closeEnough(gelu[1], -0.158_655_3))
        let approx = try h.run1(.gelu, [try h.floats([1], [1])], options: [.bool(0, true)]).elementwiseTestValues(
            Float.self)
        #expect(ElementwiseTestKit.closeEnough(approx[0], 0.841_191_9))
        #expect(try h.run1(.logistic, [try h.floats([0], [1])]).elementwiseTestValues(Float.self) == [0.5])
        #expect(
            ElementwiseTestKit.closeEnough(
                try h.run1(.elu, [try h.floats([-1], [1])]).elementwiseTestValues(Float.self)[0], -0.632_120_56))
        #expect(
            try h.run1(.leakyRelu, [x], options: [.float(0, 0.5)]).elementwiseTestValues(Float.self) == [
                -2, -1.5, -0.5, 0, 1, 3, 4,
            ])
        #expect(try h.run1(.relu6, [try h.floats([-1, 3, 9], [3])]).elementwiseTestValues(Float.self) == [0, 3, 6])
        #expect(try h.run1(.rsqrt, [try h.floats([4, 0.25], [2])]).elementwiseTestValues(Float.self) == [0.5, 2])
    }

    @Test(arguments: [1, 2])
    func softmaxMatchesReference(threads: Int) throws {
        var random = TestRandom(seed: 4)
        for (shape, beta) in [
            ([5], Float(1)), ([3, 10], 0.5), ([2, 3, 4, 1001], 1.7), ([512, 100], 1), ([4, 1], 2),
        ] {
            let x = random.floats(shape.reduce(1, *), -30...30)
            let h = KernelHarness()
            let out = try h.run1(.softmax, [try h.floats(x, shape)], options: [.float(0, beta)], threads: threads)
            let expected = ReferenceActivation.softmax(x, depth: shape.last ?? 1, beta: beta)
            let bad = ElementwiseTestKit.firstMismatch(
                out.elementwiseTestValues(Float.self), expected, relative: 1e-5, absolute: 1e-9)
            #expect(bad == nil, "\(shape) at \(bad ?? 0)")
        }
        // Large logits do not overflow: the row maximum is subtracted first.
        let h = KernelHarness()
        let y = try h.run1(.softmax, [try h.floats([1000, 1000, 999], [3])], options: [.float(0, 1)])
            .elementwiseTestValues(Float.self)
        let e = Float(Foundation.exp(-1.0))
        #expect(ElementwiseTestKit.closeEnough(y[0], 1 / (2 + e)) && ElementwiseTestKit.closeEnough(y[2], e / (2 + e)))
    }

    @Test(arguments: [1, 3])
    func preluMatchesReference(threads: Int) throws {
        var random = TestRandom(seed: 5)
        for (xShape, alphaShape) in [
            ([2, 4, 4, 3], [3]), ([2, 4, 4, 3], [1, 1, 3]), ([5], [5]), ([2, 3], []),
            ([64, 33, 40], [33, 1]), ([3, 1], [1, 4]),
        ] {
            let x = random.floats(xShape.reduce(1, *))
            let alpha = random.floats(alphaShape.reduce(1, *), 0...1)
            let h = KernelHarness()
            let out = try h.run1(
                .prelu, [try h.floats(x, xShape), try h.floats(alpha, alphaShape, constant: true)], threads: threads)
            let expected = try #require(ReferenceActivation.prelu(x, xShape, alpha, alphaShape))
            #expect(out.shape == expected.shape)
            #expect(out.elementwiseTestValues(Float.self) == expected.values, "\(xShape) \(alphaShape)")
        }
        let h = KernelHarness()
        #expect(throws: RuntimeError.self) {
            try h.run1(.prelu, [try h.floats([1, 2], [2]), try h.floats([1, 2, 3], [3])])
        }
    }
}

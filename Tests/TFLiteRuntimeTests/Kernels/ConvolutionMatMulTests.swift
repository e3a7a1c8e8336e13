import Testing

@testable import TFLiteRuntime

/// FULLY_CONNECTED and BATCH_MATMUL against the scalar references.
struct ConvolutionMatMulTests {
    struct FullyConnectedCase: Sendable, CustomTestStringConvertible {
        var inputShape: [Int]
        var outputs: Int
        var activation: Int32 = 0
        var bias = true
        var keepNumDims = false
        var constantWeights = true

        var testDescription: String {
            "\(inputShape)->\(outputs) act\(activation) bias:\(bias) keep:\(keepNumDims) const:\(constantWeights)"
        }
    }

    static let fullyConnectedCases: [FullyConnectedCase] = [
        FullyConnectedCase(inputShape: [1, 5], outputs: 1),
        FullyConnectedCase(inputShape: [1, 37], outputs: 9, activation: 1),
        FullyConnectedCase(inputShape: [3, 64], outputs: 33, activation: 3),
        FullyConnectedCase(inputShape: [7, 16], outputs: 8, bias: false),
        FullyConnectedCase(inputShape: [1, 1, 1, 1024], outputs: 100),
        FullyConnectedCase(inputShape: [2, 3, 10], outputs: 6, keepNumDims: true),
        FullyConnectedCase(inputShape: [4, 6], outputs: 3, activation: 2, constantWeights: false),
        FullyConnectedCase(inputShape: [13, 300], outputs: 257),
    ]

    @Test(arguments: fullyConnectedCases, [1, 2])
    func fullyConnectedMatchesReference(_ c: FullyConnectedCase, threads: Int) throws {
        var rng = SplitMix64(seed: 0xFC)
        let inputSize = c.inputShape.last!
        let batch = c.inputShape.reduce(1, *) / inputSize
        let input = ConvolutionTestValues.random(batch * inputSize, &rng)
        let weights = ConvolutionTestValues.random(c.outputs * inputSize, &rng)
        let bias = ConvolutionTestValues.random(c.outputs, &rng)
        let test = try ConvolutionTestNode(
            .fullyConnected, options: [0: c.activation, 2: c.keepNumDims ? 1 : 0],
            inputs: [
                .float(c.inputShape, input),
                .float([c.outputs, inputSize], weights, constant: c.constantWeights),
                c.bias ? .float([c.outputs], bias, constant: true) : nil,
            ], threads: threads)
        let (shape, fast) = try test.run()
        #expect(shape == (c.keepNumDims ? c.inputShape.dropLast() + [c.outputs] : [batch, c.outputs]))
        var expected = [Float](repeating: 0, count: batch * c.outputs)
        input.withUnsafeBufferPointer { x in
            weights.withUnsafeBufferPointer { w in
                bias.withUnsafeBufferPointer { b in
                    expected.withUnsafeMutableBufferPointer { y in
                        ReferenceFullyConnected.fullyConnected(
                            input: x.baseAddress!, batch: batch, inputSize: inputSize, weights: w.baseAddress!,
                            outputs: c.outputs, bias: c.bias ? b.baseAddress! : nil,
                            activation: FusedActivation(rawValue: Int8(c.activation))!, output: y.baseAddress!)
                    }
                }
            }
        }
        #expect(ConvolutionTestValues.maxRelativeError(fast, expected) <= 1e-4)
    }

    struct BatchMatMulCase: Sendable, CustomTestStringConvertible {
        var lhs: [Int]
        var rhs: [Int]
        var adjointLeft = false
        var adjointRight = false
        var constantRight = false
        var output: [Int]

        var testDescription: String { "\(lhs)x\(rhs) adj:\(adjointLeft),\(adjointRight) const:\(constantRight)" }
    }

    static let batchMatMulCases: [BatchMatMulCase] = [
        BatchMatMulCase(lhs: [3, 4], rhs: [4, 5], output: [3, 5]),
        BatchMatMulCase(lhs: [2, 3, 7], rhs: [2, 7, 9], output: [2, 3, 9]),
        BatchMatMulCase(lhs: [2, 1, 5, 6], rhs: [3, 6, 4], constantRight: true, output: [2, 3, 5, 4]),
        BatchMatMulCase(lhs: [4, 6, 5], rhs: [6, 10], adjointLeft: true, output: [4, 5, 10]),
        BatchMatMulCase(lhs: [2, 5, 8], rhs: [1, 11, 8], adjointRight: true, constantRight: true, output: [2, 5, 11]),
        BatchMatMulCase(lhs: [1, 2, 9, 3], rhs: [2, 1, 4, 9], adjointLeft: true, adjointRight: true, output: [2, 2, 3, 4]),
        BatchMatMulCase(lhs: [1, 17, 64], rhs: [64, 33], constantRight: true, output: [1, 17, 33]),
    ]

    @Test(arguments: batchMatMulCases, [1, 2])
    func batchMatMulMatchesReference(_ c: BatchMatMulCase, threads: Int) throws {
        var rng = SplitMix64(seed: 0xBA7C)
        let lhs = ConvolutionTestValues.random(c.lhs.reduce(1, *), &rng)
        let rhs = ConvolutionTestValues.random(c.rhs.reduce(1, *), &rng)
        let test = try ConvolutionTestNode(
            .batchMatmul, options: [0: c.adjointLeft ? 1 : 0, 1: c.adjointRight ? 1 : 0],
            inputs: [.float(c.lhs, lhs), .float(c.rhs, rhs, constant: c.constantRight)], threads: threads)
        let (shape, fast) = try test.run()
        #expect(shape == c.output)
        var expected = [Float](repeating: 0, count: c.output.reduce(1, *))
        lhs.withUnsafeBufferPointer { a in
            rhs.withUnsafeBufferPointer { b in
                expected.withUnsafeMutableBufferPointer { y in
                    ReferenceBatchMatMul.batchMatMul(
                        lhs: a.baseAddress!, lhsShape: c.lhs, rhs: b.baseAddress!, rhsShape: c.rhs,
                        adjointLeft: c.adjointLeft, adjointRight: c.adjointRight, output: y.baseAddress!,
                        outputShape: c.output)
                }
            }
        }
        #expect(ConvolutionTestValues.maxRelativeError(fast, expected) <= 1e-4)
    }

    /// A hand-checked product, so the reference itself is pinned down.
    @Test func batchMatMulKnownValues() throws {
        let test = try ConvolutionTestNode(
            .batchMatmul, inputs: [.float([2, 2], [1, 2, 3, 4]), .float([2, 2], [5, 6, 7, 8])])
        let (_, values) = try test.run()
        #expect(values == [19, 22, 43, 50])
        let adjoint = try ConvolutionTestNode(
            .batchMatmul, options: [0: 1, 1: 1], inputs: [.float([2, 2], [1, 2, 3, 4]), .float([2, 2], [5, 6, 7, 8])])
        // A^T B^T = (B A)^T: [[1*5+3*6, 1*7+3*8], [2*5+4*6, 2*7+4*8]].
        #expect(try adjoint.run().values == [23, 31, 34, 46])
    }

    @Test func fullyConnectedKnownValues() throws {
        let test = try ConvolutionTestNode(
            .fullyConnected, options: [0: 1],
            inputs: [
                .float([1, 3], [1, 2, 3]), .float([2, 3], [1, 0, -1, -1, -1, -1], constant: true),
                .float([2], [0.5, 1], constant: true),
            ])
        // [1 - 3 + 0.5, -6 + 1] = [-1.5, -5], then RELU.
        #expect(try test.run().values == [0, 0])
    }
}

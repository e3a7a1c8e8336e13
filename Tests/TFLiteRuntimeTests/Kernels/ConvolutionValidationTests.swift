import Testing

@testable import TFLiteRuntime

/// Malformed convolution nodes must be rejected with an error in `prepare`, never trap.
struct ConvolutionValidationTests {
    static func zeros(_ shape: [Int]) -> [Float] { .init(repeating: 0, count: shape.reduce(1, *)) }

    static func conv(
        input: [Int] = [1, 4, 4, 2], filter: [Int] = [3, 3, 3, 2], bias: [Int]? = [3], options: [Int: Int32] = [1: 1, 2: 1]
    ) throws -> ConvolutionTestNode {
        try ConvolutionTestNode(
            .conv2D, options: options,
            inputs: [
                .float(input, zeros(input)), .float(filter, zeros(filter), constant: true),
                bias.map { .float($0, zeros($0), constant: true) },
            ])
    }

    @Test func conv2DRejectsBadModels() throws {
        let bad: [ConvolutionTestNode] = [
            try Self.conv(options: [1: 0, 2: 1]),  // zero stride
            try Self.conv(options: [1: 1, 2: -2]),  // negative stride
            try Self.conv(options: [1: 1, 2: 1, 4: 0]),  // zero dilation
            try Self.conv(filter: [3, 3, 3, 3]),  // 2 input channels, filter wants 3
            try Self.conv(filter: [4, 3, 3, 1], bias: [4]),  // 2 groups, 4 outputs is fine ...
            try Self.conv(filter: [3, 3, 3, 1]),  // ... but 3 outputs do not split into 2 groups
            try Self.conv(bias: [4]),  // bias length
            try Self.conv(input: [4, 4, 2]),  // rank 3 input
            try Self.conv(filter: [3, 3, 2]),  // rank 3 filter
            try Self.conv(filter: [3, 0, 3, 2]),  // empty window
        ]
        for (i, node) in bad.enumerated() where i != 4 {
            #expect(throws: RuntimeError.self, "case \(i)") { try node.prepare() }
        }
        #expect(throws: Never.self) { try bad[4].prepare() }
    }

    @Test func optionsOutOfRangeAreErrors() throws {
        // Padding 7 and activation 9 are not in the schema's enums.
        #expect(throws: RuntimeError.self) { try Self.conv(options: [0: 7, 1: 1, 2: 1]) }
        #expect(throws: RuntimeError.self) { try Self.conv(options: [1: 1, 2: 1, 3: 9]) }
    }

    @Test func depthwiseRejectsBadModels() throws {
        func node(_ filter: [Int], bias: [Int]? = nil, options: [Int: Int32] = [1: 1, 2: 1]) throws -> ConvolutionTestNode {
            try ConvolutionTestNode(
                .depthwiseConv2D, options: options,
                inputs: [
                    .float([1, 5, 5, 4], Self.zeros([1, 5, 5, 4])), .float(filter, Self.zeros(filter), constant: true),
                    bias.map { .float($0, Self.zeros($0), constant: true) },
                ])
        }
        for bad in [
            try node([1, 3, 3, 6]), try node([2, 3, 3, 4]), try node([1, 3, 3, 4], bias: [5]),
            try node([1, 3, 3, 4], options: [1: 1, 2: 1, 5: 0]), try node([1, 3, 3, 4], options: [1: 0, 2: 1]),
        ] {
            #expect(throws: RuntimeError.self) { try bad.prepare() }
        }
    }

    @Test func fullyConnectedRejectsBadModels() throws {
        func node(_ input: [Int], _ weights: [Int], bias: [Int]? = nil, options: [Int: Int32] = [:]) throws -> ConvolutionTestNode {
            try ConvolutionTestNode(
                .fullyConnected, options: options,
                inputs: [
                    .float(input, Self.zeros(input)), .float(weights, Self.zeros(weights), constant: true),
                    bias.map { .float($0, Self.zeros($0), constant: true) },
                ])
        }
        for bad in [
            try node([2, 5], [3, 4]), try node([2, 4], [3, 4], bias: [4]), try node([2, 4], [12]),
            try node([2, 4], [3, 0]), try node([8], [3, 2], options: [2: 1]),
        ] {
            #expect(throws: RuntimeError.self) { try bad.prepare() }
        }
        #expect(throws: RuntimeError.self) { try node([2, 4], [3, 4], options: [1: 1]) }
    }

    @Test func transposeConvRejectsBadModels() throws {
        func node(_ shape: [Int32], filter: [Int] = [2, 3, 3, 4], options: [Int: Int32] = [1: 2, 2: 2]) throws -> ConvolutionTestNode {
            try ConvolutionTestNode(
                .transposeConv, options: options,
                inputs: [
                    .int32([shape.count], shape), .float(filter, Self.zeros(filter), constant: true),
                    .float([1, 3, 3, 4], Self.zeros([1, 3, 3, 4])),
                ])
        }
        for bad in [
            try node([1, 6, 6, 3]), try node([2, 6, 6, 2]), try node([1, -6, 6, 2]), try node([1, 6, 6]),
            try node([1, 6, 6, 2], filter: [2, 3, 3, 5]), try node([1, 6, 6, 2], options: [1: 0, 2: 2]),
        ] {
            #expect(throws: RuntimeError.self) { try bad.prepare() }
        }
        #expect(throws: Never.self) { try node([1, 6, 6, 2]).prepare() }
    }

    @Test func mediaPipeTransposeRejectsBadOptions() throws {
        func node(_ options: [UInt8], bias: Bool = true) throws -> ConvolutionTestNode {
            var inputs: [ConvolutionTestOperand?] = [
                .float([1, 3, 3, 4], Self.zeros([1, 3, 3, 4])), .float([2, 2, 2, 4], Self.zeros([2, 2, 2, 4]), constant: true),
            ]
            if bias { inputs.append(.float([2], [0, 0], constant: true)) }
            return try ConvolutionTestNode(.custom, customCode: "Convolution2DTransposeBias", customOptions: options, inputs: inputs)
        }
        let good: [UInt8] = [1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0]
        #expect(throws: Never.self) { try node(good).prepare() }
        #expect(throws: RuntimeError.self) { try node(Array(good.prefix(8))) }
        #expect(throws: RuntimeError.self) { try node([5, 0, 0, 0] + good.suffix(8)) }
        #expect(throws: RuntimeError.self) { try node([1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0]).prepare() }
        #expect(throws: RuntimeError.self) { try node(good, bias: false) }
    }

    @Test func batchMatMulRejectsBadModels() throws {
        func node(_ lhs: [Int], _ rhs: [Int]) throws -> ConvolutionTestNode {
            try ConvolutionTestNode(.batchMatmul, inputs: [.float(lhs, Self.zeros(lhs)), .float(rhs, Self.zeros(rhs))])
        }
        for bad in [try node([2, 3], [4, 5]), try node([2, 2, 3], [3, 3, 4]), try node([3], [3, 4]), try node([1, 1, 1, 1, 1, 2, 3], [3, 4])] {
            #expect(throws: RuntimeError.self) { try bad.prepare() }
        }
        // An empty inner dimension gives zeros, as a sum over nothing.
        #expect(try node([2, 0], [0, 3]).run().values == [0, 0, 0, 0, 0, 0])
    }

    /// A shape with a zero dimension passes the model reader whatever its other dimensions are; the
    /// kernels must not overflow multiplying them.
    @Test func hugeDimensionsBesideZeroAreErrors() throws {
        let input: [Int] = [0, 1 << 30, 1 << 30, 1 << 30]
        let test = try ConvolutionTestNode(
            .conv2D, options: [1: 1, 2: 1],
            inputs: [.float(input, []), .float([1, 1, 1, 1 << 30], [], constant: true)])
        #expect(throws: RuntimeError.self) { try test.prepare() }
    }
}

import Testing

@testable import TFLiteRuntime

/// TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias against the scatter reference.
struct ConvolutionTransposeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var batch = 1, height = 4, width = 5, channels = 3, outputChannels = 4
        var filterHeight = 3, filterWidth = 3, strideHeight = 2, strideWidth = 2
        var same = true
        var activation: Int32 = 0
        var bias = true
        var constantShape = true
        var constantFilter = true
        /// Extra rows / columns added to the natural output size (TFLite accepts any output size).
        var extra = 0

        var testDescription: String {
            "\(batch)x\(height)x\(width)x\(channels)->\(outputChannels) k\(filterHeight)x\(filterWidth) "
                + "s\(strideHeight)x\(strideWidth) \(same ? "SAME" : "VALID") act\(activation) bias:\(bias) "
                + "constShape:\(constantShape) constFilter:\(constantFilter) extra:\(extra)"
        }
    }

    static let cases: [Case] = [
        Case(),
        Case(height: 1, width: 1, channels: 1, outputChannels: 1, filterHeight: 1, filterWidth: 1, strideHeight: 1, strideWidth: 1),
        Case(height: 8, width: 8, channels: 16, outputChannels: 8, filterHeight: 2, filterWidth: 2, activation: 1),
        Case(batch: 2, height: 5, width: 3, channels: 7, outputChannels: 9, filterHeight: 4, filterWidth: 4, same: false),
        Case(height: 6, width: 7, channels: 5, outputChannels: 3, filterHeight: 3, filterWidth: 5, strideHeight: 1, strideWidth: 1, bias: false),
        Case(height: 5, width: 5, channels: 4, outputChannels: 12, filterHeight: 5, filterWidth: 3, strideHeight: 3, strideWidth: 2, activation: 3),
        Case(height: 4, width: 4, channels: 6, outputChannels: 10, constantShape: false, constantFilter: false),
        Case(height: 3, width: 4, channels: 2, outputChannels: 5, same: false, extra: 1),
    ]

    @Test(arguments: cases, [1, 2])
    func transposeConvMatchesReference(_ c: Case, threads: Int) throws {
        var rng = SplitMix64(seed: 0x7A5)
        let outputHeight = natural(c.height, c.filterHeight, c.strideHeight, c.same) + c.extra
        let outputWidth = natural(c.width, c.filterWidth, c.strideWidth, c.same) + c.extra
        let input = ConvolutionTestValues.random(c.batch * c.height * c.width * c.channels, &rng)
        let filter = ConvolutionTestValues.random(c.outputChannels * c.filterHeight * c.filterWidth * c.channels, &rng)
        let bias = ConvolutionTestValues.random(c.outputChannels, &rng)
        let outputShape = [c.batch, outputHeight, outputWidth, c.outputChannels]
        var inputs: [ConvolutionTestOperand?] = [
            .int32([4], outputShape.map { Int32($0) }, constant: c.constantShape),
            .float([c.outputChannels, c.filterHeight, c.filterWidth, c.channels], filter, constant: c.constantFilter),
            .float([c.batch, c.height, c.width, c.channels], input),
        ]
        if c.bias { inputs.append(.float([c.outputChannels], bias, constant: true)) }
        let test = try ConvolutionTestNode(
            .transposeConv, options: [0: c.same ? 0 : 1, 1: Int32(c.strideWidth), 2: Int32(c.strideHeight), 3: c.activation],
            inputs: inputs, threads: threads)
        let (shape, fast) = try test.run()
        #expect(shape == outputShape)
        let g = TransposeConvGeometry.builtin(
            input: [c.batch, c.height, c.width, c.channels],
            filter: [c.outputChannels, c.filterHeight, c.filterWidth, c.channels], outputHeight: outputHeight,
            outputWidth: outputWidth, strideHeight: c.strideHeight, strideWidth: c.strideWidth,
            padding: c.same ? .same : .valid)
        let expected = reference(g, input, filter, c.bias ? bias : nil, FusedActivation(rawValue: Int8(c.activation))!)
        #expect(ConvolutionTestValues.maxRelativeError(fast, expected) <= 1e-4)
    }

    @Test(arguments: [(true, 2, 2), (true, 3, 2), (false, 3, 2), (true, 4, 3), (false, 1, 1)], [1, 2])
    func mediaPipeTransposeMatchesReference(_ config: (same: Bool, filter: Int, stride: Int), threads: Int) throws {
        var rng = SplitMix64(seed: 0x3D1A)
        let (n, h, w, cin, cout) = (1, 5, 6, 8, 6)
        let input = ConvolutionTestValues.random(n * h * w * cin, &rng)
        let filter = ConvolutionTestValues.random(cout * config.filter * config.filter * cin, &rng)
        let bias = ConvolutionTestValues.random(cout, &rng)
        var options = [UInt8]()
        for v: Int32 in [config.same ? 1 : 2, Int32(config.stride), Int32(config.stride)] {
            withUnsafeBytes(of: v.littleEndian) { options.append(contentsOf: $0) }
        }
        let test = try ConvolutionTestNode(
            .custom, customCode: "Convolution2DTransposeBias", customOptions: options,
            inputs: [
                .float([n, h, w, cin], input),
                .float([cout, config.filter, config.filter, cin], filter, constant: true),
                .float([cout], bias, constant: true),
            ], threads: threads)
        let (shape, fast) = try test.run()
        let g = TransposeConvGeometry.mediaPipe(
            input: [n, h, w, cin], filter: [cout, config.filter, config.filter, cin], strideHeight: config.stride,
            strideWidth: config.stride, same: config.same)
        #expect(shape == [n, g.outputHeight, g.outputWidth, cout])
        if config.same && config.filter == 2 && config.stride == 2 { #expect(g.outputHeight == 9 && g.outputWidth == 12) }
        let expected = reference(g, input, filter, bias, .none)
        #expect(ConvolutionTestValues.maxRelativeError(fast, expected) <= 1e-4)
    }

    /// TensorFlow's natural output size of a transposed convolution.
    func natural(_ size: Int, _ filter: Int, _ stride: Int, _ same: Bool) -> Int {
        same ? size * stride : (size - 1) * stride + filter
    }

    func reference(
        _ g: TransposeConvGeometry, _ input: [Float], _ filter: [Float], _ bias: [Float]?, _ activation: FusedActivation
    ) -> [Float] {
        var expected = [Float](repeating: 0, count: g.batch * g.outputHeight * g.outputWidth * g.outputChannels)
        input.withUnsafeBufferPointer { x in
            filter.withUnsafeBufferPointer { w in
                expected.withUnsafeMutableBufferPointer { y in
                    if let bias {
                        bias.withUnsafeBufferPointer { b in
                            ReferenceTransposeConvolution.transposeConv(
                                geometry: g, input: x.baseAddress!, filter: w.baseAddress!, bias: b.baseAddress!,
                                activation: activation, output: y.baseAddress!)
                        }
                    } else {
                        ReferenceTransposeConvolution.transposeConv(
                            geometry: g, input: x.baseAddress!, filter: w.baseAddress!, bias: nil,
                            activation: activation, output: y.baseAddress!)
                    }
                }
            }
        }
        return expected
    }
}

import Testing

@testable import TFLiteRuntime

/// CONV_2D and DEPTHWISE_CONV_2D: the fast kernels against the scalar references on random data.
struct ConvolutionKernelTests {
    /// One convolution configuration; the same struct serves CONV_2D and DEPTHWISE_CONV_2D.
    struct Case: Sendable, CustomTestStringConvertible {
        var batch = 1, height = 7, width = 9, channels = 3, outputChannels = 5
        var filterHeight = 3, filterWidth = 3
        var strideHeight = 1, strideWidth = 1, dilationHeight = 1, dilationWidth = 1
        var same = true
        var activation: Int32 = 0
        var bias = true
        var constantFilter = true
        /// CONV_2D: filter channels = channels / groups. DEPTHWISE: output channels = channels * multiplier.
        var groups = 1
        var multiplier = 1

        var testDescription: String {
            "\(batch)x\(height)x\(width)x\(channels)->\(outputChannels) k\(filterHeight)x\(filterWidth) "
                + "s\(strideHeight)x\(strideWidth) d\(dilationHeight)x\(dilationWidth) \(same ? "SAME" : "VALID") "
                + "act\(activation) bias:\(bias) const:\(constantFilter) g\(groups) m\(multiplier)"
        }
    }

    static let convCases: [Case] = [
        Case(),
        Case(height: 1, width: 1, channels: 1, outputChannels: 1, filterHeight: 1, filterWidth: 1),
        Case(height: 8, width: 8, channels: 16, outputChannels: 24, filterHeight: 1, filterWidth: 1, activation: 3),
        Case(batch: 2, height: 5, width: 6, channels: 13, outputChannels: 17, filterHeight: 1, filterWidth: 1, bias: false),
        Case(height: 9, width: 8, channels: 8, outputChannels: 8, filterHeight: 1, filterWidth: 1, strideHeight: 2, strideWidth: 2),
        Case(height: 11, width: 13, channels: 3, outputChannels: 16, strideHeight: 2, strideWidth: 2, activation: 1),
        Case(height: 11, width: 13, channels: 3, outputChannels: 16, strideHeight: 2, strideWidth: 2, same: false),
        Case(batch: 2, height: 10, width: 7, channels: 6, outputChannels: 9, filterHeight: 5, filterWidth: 2, activation: 2),
        Case(height: 12, width: 12, channels: 4, outputChannels: 7, dilationHeight: 2, dilationWidth: 3),
        Case(height: 12, width: 12, channels: 4, outputChannels: 7, dilationHeight: 2, dilationWidth: 2, same: false),
        Case(height: 6, width: 6, channels: 5, outputChannels: 11, filterHeight: 7, filterWidth: 7, activation: 4),
        Case(height: 8, width: 9, channels: 8, outputChannels: 12, strideHeight: 1, strideWidth: 2, groups: 2),
        Case(height: 5, width: 5, channels: 6, outputChannels: 6, filterHeight: 1, filterWidth: 1, groups: 3),
        Case(height: 7, width: 5, channels: 10, outputChannels: 20, constantFilter: false),
        Case(height: 3, width: 3, channels: 64, outputChannels: 70, strideHeight: 2, strideWidth: 2, same: false),
        // 32+ channels per group: taps are read in place (no tile gathering), with padding and dilation.
        Case(height: 9, width: 7, channels: 40, outputChannels: 12, strideHeight: 2, dilationWidth: 2, activation: 1),
        Case(height: 6, width: 6, channels: 64, outputChannels: 16, groups: 2),
    ]

    static let depthwiseCases: [Case] = [
        Case(channels: 3, multiplier: 1),
        Case(channels: 8, multiplier: 1),
        Case(height: 10, width: 11, channels: 19, strideHeight: 2, strideWidth: 2, activation: 3, multiplier: 1),
        Case(height: 10, width: 11, channels: 32, strideHeight: 2, strideWidth: 2, same: false, multiplier: 1),
        Case(batch: 2, height: 9, width: 9, channels: 24, filterHeight: 5, filterWidth: 5, bias: false, multiplier: 1),
        Case(height: 12, width: 10, channels: 17, dilationHeight: 2, dilationWidth: 3, activation: 1, multiplier: 1),
        Case(height: 6, width: 7, channels: 3, strideHeight: 1, strideWidth: 2, multiplier: 2),
        Case(height: 6, width: 7, channels: 5, same: false, constantFilter: false, multiplier: 3),
        Case(height: 4, width: 4, channels: 40, filterHeight: 7, filterWidth: 7, multiplier: 1),
        // Runs of four interior pixels (the 4-pixel kernel), with 5 channels past the last block of 8.
        Case(height: 6, width: 17, channels: 13, multiplier: 1),
        Case(height: 7, width: 20, channels: 29, strideHeight: 2, strideWidth: 2, activation: 3, multiplier: 1),
    ]

    @Test(arguments: convCases, [1, 2])
    func conv2DMatchesReference(_ c: Case, threads: Int) throws {
        var rng = SplitMix64(seed: 0xC0DE)
        let filterChannels = c.channels / c.groups
        let input = ConvolutionTestValues.random(c.batch * c.height * c.width * c.channels, &rng)
        let filter = ConvolutionTestValues.random(c.outputChannels * c.filterHeight * c.filterWidth * filterChannels, &rng)
        let bias = ConvolutionTestValues.random(c.outputChannels, &rng)
        let test = try ConvolutionTestNode(
            .conv2D,
            options: [0: c.same ? 0 : 1, 1: Int32(c.strideWidth), 2: Int32(c.strideHeight), 3: c.activation,
                      4: Int32(c.dilationWidth), 5: Int32(c.dilationHeight)],
            inputs: [
                .float([c.batch, c.height, c.width, c.channels], input),
                .float([c.outputChannels, c.filterHeight, c.filterWidth, filterChannels], filter, constant: c.constantFilter),
                c.bias ? .float([c.outputChannels], bias, constant: true) : nil,
            ], threads: threads)
        let (shape, fast) = try test.run()
        let g = try geometry(c, test.node)
        #expect(shape == [c.batch, g.outputHeight, g.outputWidth, c.outputChannels])
        var expected = [Float](repeating: 0, count: fast.count)
        input.withUnsafeBufferPointer { x in
            filter.withUnsafeBufferPointer { w in
                bias.withUnsafeBufferPointer { b in
                    expected.withUnsafeMutableBufferPointer { y in
                        ReferenceConvolution.conv2D(
                            geometry: g, input: x.baseAddress!, filter: w.baseAddress!, bias: c.bias ? b.baseAddress! : nil,
                            outputChannels: c.outputChannels, groups: c.groups,
                            activation: FusedActivation(rawValue: Int8(c.activation))!, output: y.baseAddress!)
                    }
                }
            }
        }
        #expect(ConvolutionTestValues.maxRelativeError(fast, expected) <= 1e-4)
    }

    @Test(arguments: depthwiseCases, [1, 2])
    func depthwiseMatchesReference(_ c: Case, threads: Int) throws {
        var rng = SplitMix64(seed: 0xDEE9)
        let outputChannels = c.channels * c.multiplier
        let input = ConvolutionTestValues.random(c.batch * c.height * c.width * c.channels, &rng)
        let filter = ConvolutionTestValues.random(c.filterHeight * c.filterWidth * outputChannels, &rng)
        let bias = ConvolutionTestValues.random(outputChannels, &rng)
        let test = try ConvolutionTestNode(
            .depthwiseConv2D,
            options: [0: c.same ? 0 : 1, 1: Int32(c.strideWidth), 2: Int32(c.strideHeight), 3: Int32(c.multiplier),
                      4: c.activation, 5: Int32(c.dilationWidth), 6: Int32(c.dilationHeight)],
            inputs: [
                .float([c.batch, c.height, c.width, c.channels], input),
                .float([1, c.filterHeight, c.filterWidth, outputChannels], filter, constant: c.constantFilter),
                c.bias ? .float([outputChannels], bias, constant: true) : nil,
            ], threads: threads)
        let (shape, fast) = try test.run()
        let g = try geometry(c, test.node)
        #expect(shape == [c.batch, g.outputHeight, g.outputWidth, outputChannels])
        var expected = [Float](repeating: 0, count: fast.count)
        input.withUnsafeBufferPointer { x in
            filter.withUnsafeBufferPointer { w in
                bias.withUnsafeBufferPointer { b in
                    expected.withUnsafeMutableBufferPointer { y in
                        ReferenceConvolution.depthwiseConv2D(
                            geometry: g, multiplier: c.multiplier, input: x.baseAddress!, filter: w.baseAddress!,
                            bias: c.bias ? b.baseAddress! : nil,
                            activation: FusedActivation(rawValue: Int8(c.activation))!, output: y.baseAddress!)
                    }
                }
            }
        }
        #expect(ConvolutionTestValues.maxRelativeError(fast, expected) <= 1e-4)
    }

    /// The padding TFLite uses: SAME pads the odd remainder after the image, VALID never pads.
    @Test func geometryMatchesTFLite() throws {
        let test = try ConvolutionTestNode(.maxPool2D, options: [1: 1, 2: 1, 3: 1, 4: 1], inputs: [.float([1, 1, 1, 1], [0])])
        let same = try WindowGeometry(
            node: test.node, inputShape: [1, 224, 224, 3], filterHeight: 3, filterWidth: 3, strideHeight: 2,
            strideWidth: 2, padding: .same)
        #expect(same.outputHeight == 112 && same.padTop == 0)
        let odd = try WindowGeometry(
            node: test.node, inputShape: [1, 7, 7, 3], filterHeight: 3, filterWidth: 3, strideHeight: 2,
            strideWidth: 2, padding: .same)
        #expect(odd.outputHeight == 4 && odd.padTop == 1)
        let valid = try WindowGeometry(
            node: test.node, inputShape: [1, 7, 8, 3], filterHeight: 3, filterWidth: 3, strideHeight: 2,
            strideWidth: 2, dilationHeight: 2, dilationWidth: 1, padding: .valid)
        #expect(valid.outputHeight == 2 && valid.outputWidth == 3 && valid.padTop == 0 && valid.padLeft == 0)
        #expect(WindowGeometry.validTaps(origin: -3, size: 5, filter: 4, dilation: 2) == 2..<4)
        #expect(WindowGeometry.validTaps(origin: 4, size: 5, filter: 4, dilation: 2) == 0..<1)
        #expect(WindowGeometry.validTaps(origin: 9, size: 5, filter: 4, dilation: 2).isEmpty)
    }

    func geometry(_ c: Case, _ node: Node) throws -> WindowGeometry {
        try WindowGeometry(
            node: node, inputShape: [c.batch, c.height, c.width, c.channels], filterHeight: c.filterHeight,
            filterWidth: c.filterWidth, strideHeight: c.strideHeight, strideWidth: c.strideWidth,
            dilationHeight: c.dilationHeight, dilationWidth: c.dilationWidth, padding: c.same ? .same : .valid)
    }
}

import Testing

@testable import TFLiteRuntime

/// MAX_POOL_2D and AVERAGE_POOL_2D against the scalar references.
struct PoolingKernelTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var batch = 1, height = 8, width = 8, channels = 3
        var filterHeight = 2, filterWidth = 2, strideHeight = 2, strideWidth = 2
        var same = true
        var activation: Int32 = 0

        var testDescription: String {
            "\(batch)x\(height)x\(width)x\(channels) f\(filterHeight)x\(filterWidth) s\(strideHeight)x\(strideWidth) "
                + "\(same ? "SAME" : "VALID") act\(activation)"
        }
    }

    static let cases: [Case] = [
        Case(),
        Case(height: 7, width: 9, channels: 16, filterHeight: 3, filterWidth: 3, same: true),
        Case(height: 7, width: 9, channels: 19, filterHeight: 3, filterWidth: 3, same: false, activation: 1),
        Case(batch: 2, height: 5, width: 5, channels: 8, filterHeight: 5, filterWidth: 5, strideHeight: 1, strideWidth: 1),
        Case(height: 6, width: 4, channels: 33, filterHeight: 3, filterWidth: 1, strideHeight: 1, strideWidth: 2, activation: 3),
        Case(height: 3, width: 3, channels: 1, filterHeight: 3, filterWidth: 3, strideHeight: 3, strideWidth: 3, same: false),
        Case(height: 14, width: 14, channels: 40, filterHeight: 14, filterWidth: 14, strideHeight: 1, strideWidth: 1, same: false),
        Case(height: 4, width: 5, channels: 9, filterHeight: 6, filterWidth: 6, strideHeight: 1, strideWidth: 1, activation: 2),
    ]

    @Test(arguments: cases, [1, 2])
    func poolMatchesReference(_ c: Case, threads: Int) throws {
        for average in [false, true] { try check(c, average: average, threads: threads) }
    }

    func check(_ c: Case, average: Bool, threads: Int) throws {
        var rng = SplitMix64(seed: 0x9001)
        let input = ConvolutionTestValues.random(c.batch * c.height * c.width * c.channels, &rng)
        let test = try ConvolutionTestNode(
            average ? .averagePool2D : .maxPool2D,
            options: [0: c.same ? 0 : 1, 1: Int32(c.strideWidth), 2: Int32(c.strideHeight), 3: Int32(c.filterWidth),
                      4: Int32(c.filterHeight), 5: c.activation],
            inputs: [.float([c.batch, c.height, c.width, c.channels], input)], threads: threads)
        let (shape, fast) = try test.run()
        let g = try WindowGeometry(
            node: test.node, inputShape: [c.batch, c.height, c.width, c.channels], filterHeight: c.filterHeight,
            filterWidth: c.filterWidth, strideHeight: c.strideHeight, strideWidth: c.strideWidth,
            padding: c.same ? .same : .valid)
        #expect(shape == [c.batch, g.outputHeight, g.outputWidth, c.channels])
        var expected = [Float](repeating: 0, count: fast.count)
        let activation = FusedActivation(rawValue: Int8(c.activation))!
        input.withUnsafeBufferPointer { x in
            expected.withUnsafeMutableBufferPointer { y in
                if average {
                    ReferencePooling.averagePool(geometry: g, input: x.baseAddress!, activation: activation, output: y.baseAddress!)
                } else {
                    ReferencePooling.maxPool(geometry: g, input: x.baseAddress!, activation: activation, output: y.baseAddress!)
                }
            }
        }
        #expect(ConvolutionTestValues.maxRelativeError(fast, expected) <= 1e-5)
    }

    /// Padding positions are skipped, not averaged in as zeros.
    @Test func averageIgnoresPadding() throws {
        let test = try ConvolutionTestNode(
            .averagePool2D, options: [0: 0, 1: 1, 2: 1, 3: 2, 4: 2],
            inputs: [.float([1, 2, 2, 1], [1, 2, 3, 4])])
        let (shape, values) = try test.run()
        #expect(shape == [1, 2, 2, 1])
        #expect(values == [2.5, 3, 3.5, 4])
    }

    @Test func rejectsBadWindows() throws {
        for options: [Int: Int32] in [[1: 0, 2: 1, 3: 2, 4: 2], [1: 1, 2: 1, 3: 0, 4: 2], [1: 1, 2: -1, 3: 2, 4: 2]] {
            let test = try ConvolutionTestNode(.maxPool2D, options: options, inputs: [.float([1, 4, 4, 1], .init(repeating: 0, count: 16))])
            #expect(throws: RuntimeError.self) { try test.prepare() }
        }
        let rank3 = try ConvolutionTestNode(
            .averagePool2D, options: [1: 1, 2: 1, 3: 2, 4: 2], inputs: [.float([4, 4, 1], .init(repeating: 0, count: 16))])
        #expect(throws: RuntimeError.self) { try rank3.prepare() }
    }
}

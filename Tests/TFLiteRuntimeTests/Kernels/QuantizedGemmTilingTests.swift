import Foundation
import Testing

@testable import TFLiteRuntime

/// The 8-bit GEMM's tile shapes and tails against the scalar reference, exactly: rows that leave
/// 1...5 (or 1...7) rows after the last full tile and cross the 96-row blocks, columns that end
/// inside a 16-column block and inside a 64-column group, depths that are not a multiple of 4, the
/// im2col border, long-row and dilated paths, multipliers above 1 (left shifts), and both thread
/// splits (row bands, column groups). On CPUs without VNNI they exercise the int16 path instead.
@Suite("Quantized GEMM tiles")
struct QuantizedGemmTilingTests {
    struct Case: CustomStringConvertible, Sendable {
        var input: [Int]
        var filter: [Int]
        var stride = 1
        var dilation = 1
        var same = true
        var activation: FusedActivation = .none
        /// The output scale: small values make multipliers above 1, which shift left.
        var outputScale: Float = 0.3
        var description: String {
            "in\(input) f\(filter) s\(stride) d\(dilation) \(same ? "SAME" : "VALID") \(activation) sy \(outputScale)"
        }
    }

    static let pointwise: [Case] = [
        Case(input: [1, 1, 1, 1], filter: [1, 1, 1, 1]),
        Case(input: [1, 1, 5, 3], filter: [15, 1, 1, 3]),
        Case(input: [1, 1, 7, 4], filter: [17, 1, 1, 4], activation: .relu6),
        Case(input: [1, 3, 5, 5], filter: [40, 1, 1, 5]),
        Case(input: [1, 7, 7, 27], filter: [64, 1, 1, 27], activation: .relu),
        Case(input: [1, 7, 7, 64], filter: [65, 1, 1, 64]),
        Case(input: [2, 7, 7, 70], filter: [100, 1, 1, 70], activation: .relu6),
        Case(input: [1, 10, 10, 129], filter: [130, 1, 1, 129]),
        Case(input: [1, 13, 15, 16], filter: [200, 1, 1, 16], activation: .relu),
        Case(input: [1, 14, 14, 8], filter: [16, 1, 1, 8]),
        Case(input: [1, 5, 5, 3], filter: [48, 1, 1, 3], outputScale: 0.0004),
        Case(input: [1, 6, 6, 6], filter: [70, 1, 1, 6], activation: .relu, outputScale: 0.0002),
    ]

    static let windows: [Case] = [
        // A first convolution: 3x3 stride 2 on 3 channels (the short-row im2col path).
        Case(input: [1, 17, 19, 3], filter: [32, 3, 3, 3], stride: 2, activation: .relu6),
        Case(input: [2, 9, 8, 3], filter: [24, 3, 3, 3], stride: 2, same: false),
        // 3x3 x 24 channels: filter rows of 72 bytes, copied tap row by tap row.
        Case(input: [1, 8, 9, 24], filter: [40, 3, 3, 24], activation: .relu),
        Case(input: [1, 9, 7, 5], filter: [21, 3, 3, 5], dilation: 2, same: false),
        Case(input: [1, 11, 11, 7], filter: [33, 5, 5, 7], dilation: 2),
        Case(input: [1, 9, 9, 16], filter: [66, 1, 1, 16], stride: 2),
        Case(input: [1, 6, 7, 2], filter: [9, 2, 3, 2], stride: 3, outputScale: 0.0005),
    ]

    @Test(arguments: pointwise + windows, [QuantizedConvolutionTests.Flavor.int8, .uint8])
    func convMatchesReference(_ c: Case, flavor: QuantizedConvolutionTests.Flavor) throws {
        for threads in [1, 2] {
            let channels = c.filter[0]
            let s = Self.operands(
                flavor, input: c.input, filter: c.filter, channels: channels, outputScale: c.outputScale,
                activation: c.activation, seed: UInt64(c.input.reduce(7, *) + c.filter.reduce(3, *)))
            let tn = try QuantizedTestNode(
                .conv2D,
                options: [
                    0: c.same ? 0 : 1, 1: Int32(c.stride), 2: Int32(c.stride), 3: Int32(c.activation.rawValue),
                    4: Int32(c.dilation), 5: Int32(c.dilation),
                ],
                inputs: [s.input, s.filter, s.bias], output: s.output, threads: threads)
            let (shape, got) = try tn.run()
            let g = try WindowGeometry(
                node: tn.node, inputShape: c.input, filterHeight: c.filter[1], filterWidth: c.filter[2],
                strideHeight: c.stride, strideWidth: c.stride, dilationHeight: c.dilation, dilationWidth: c.dilation,
                padding: c.same ? .same : .valid)
            #expect(shape == [g.batch, g.outputHeight, g.outputWidth, channels])
            let want = ReferenceQuantizedConvolution.conv(
                input: s.input.ints.map { Int32($0) }, g, inputZeroPoint: s.zx, filter: s.filter.ints.map { Int32($0) },
                filterZeroPoint: s.zw, outputChannels: channels, bias: s.bias.ints, output: s.stage)
            #expect(got == want, "threads \(threads)")
        }
    }

    /// FULLY_CONNECTED with one row and with a few, over many column groups with a narrow last one:
    /// two threads split the columns for 1 and 3 rows and the rows for 50 (enough multiply-adds for
    /// two threads in each case).
    @Test(arguments: [1, 3, 50], [QuantizedConvolutionTests.Flavor.int8, .uint8])
    func fullyConnectedMatchesReference(_ rows: Int, flavor: QuantizedConvolutionTests.Flavor) throws {
        let depth = 263, outputs = 1001
        for threads in [1, 2] {
            let s = Self.operands(
                flavor, input: [rows, depth], filter: [outputs, depth], channels: outputs, outputScale: 0.3,
                activation: .none, seed: UInt64(rows))
            let tn = try QuantizedTestNode(
                .fullyConnected, options: [0: 0], inputs: [s.input, s.filter, s.bias], output: s.output,
                threads: threads)
            let (shape, got) = try tn.run()
            #expect(shape == [rows, outputs])
            let want = ReferenceQuantizedConvolution.fullyConnected(
                input: s.input.ints.map { Int32($0) }, rows: rows, depth: depth, inputZeroPoint: s.zx,
                weights: s.filter.ints.map { Int32($0) }, filterZeroPoint: s.zw, outputs: outputs, bias: s.bias.ints,
                output: s.stage)
            #expect(got == want, "threads \(threads)")
        }
    }

    struct Operands {
        var input: QuantizedTestOperand
        var filter: QuantizedTestOperand
        var bias: QuantizedTestOperand
        var output: QuantizedTestOperand
        var zx: Int32
        var zw: Int32
        var stage: ReferenceQuantizedConvolution.Output
    }

    /// Random operands (int8 per-channel or uint8 per-tensor). With an output scale below 0.01 the
    /// multipliers exceed 1, so the values are kept near their zero points to leave the results
    /// inside the output range.
    static func operands(
        _ flavor: QuantizedConvolutionTests.Flavor, input shape: [Int], filter filterShape: [Int], channels: Int,
        outputScale: Float, activation: FusedActivation, seed: UInt64
    ) -> Operands {
        var rng = SplitMix64(seed: seed)
        let t = flavor.activationType, signed = flavor == .int8
        let zx: Int64 = signed ? Int64.random(in: -20...20, using: &rng) : Int64.random(in: 90...160, using: &rng)
        let zy: Int64 = signed ? Int64.random(in: -20...20, using: &rng) : Int64.random(in: 90...160, using: &rng)
        let zw: Int64 = signed ? 0 : Int64.random(in: 100...150, using: &rng)
        let near = outputScale < 0.01
        // Near: int8 channels mix multipliers above and below 1; the one uint8 multiplier is above 1.
        let filterScales = signed
            ? QuantizedTestValues.scales(channels, 0.002...0.02, &rng)
            : [Float.random(in: near ? 0.008...0.02 : 0.002...0.02, using: &rng)]
        let count = filterShape.reduce(1, *), inputCount = shape.reduce(1, *)
        let weights: [Int64] = near
            ? (0..<count).map { _ in zw + Int64.random(in: -3...3, using: &rng) }
            : QuantizedTestValues.ints(count, t, &rng).map { signed ? max($0, -127) : $0 }
        let inputs: [Int64] = near
            ? (0..<inputCount).map { _ in zx + Int64.random(in: -3...3, using: &rng) }
            : QuantizedTestValues.ints(inputCount, t, &rng)
        let input = QuantizedTestOperand(shape: shape, type: t, ints: inputs, scales: [0.05], zeroPoints: [zx])
        let filter = QuantizedTestOperand(
            shape: filterShape, type: t, ints: weights, scales: filterScales, zeroPoints: filterScales.map { _ in zw },
            axis: 0, constant: true)
        let biasRange: ClosedRange<Int64> = near ? -20...20 : -3000...3000
        let bias = QuantizedTestOperand(
            shape: [channels], type: .int32, ints: (0..<channels).map { _ in Int64.random(in: biasRange, using: &rng) },
            constant: true)
        let output = QuantizedTestOperand(shape: [], type: t, scales: [outputScale], zeroPoints: [zy])
        let multipliers = FixedPoint.channelMultipliers(
            inputScale: 0.05, filterScales: filterScales, outputScale: outputScale, channels: channels,
            legacy: !signed)
        let r = t.quantizedRange!
        let range = FixedPoint.activationRange(
            activation, scale: outputScale, zeroPoint: Int(zy), qmin: r.min, qmax: r.max)
        let stage = ReferenceQuantizedConvolution.Output(
            multipliers: multipliers, zeroPoint: Int32(zy), min: range.min, max: range.max, rounding: .gemm)
        return Operands(
            input: input, filter: filter, bias: bias, output: output, zx: Int32(zx), zw: Int32(zw), stage: stage)
    }
}

import Foundation
import Testing

@testable import TFLiteRuntime

/// Quantized CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED / TRANSPOSE_CONV against the scalar
/// reference (`ReferenceQuantizedConvolution`), exact equality, plus hand-checked rounding.
@Suite("Quantized convolution kernels")
struct QuantizedConvolutionTests {
    /// uint8 per-tensor (TF1), int8 per-channel (TF2), int16 activations with int8 weights (16x8).
    enum Flavor: String, CaseIterable, CustomStringConvertible {
        case uint8, int8, int16
        var description: String { rawValue }
        var activationType: TensorType { self == .uint8 ? .uint8 : (self == .int8 ? .int8 : .int16) }
        var filterType: TensorType { self == .uint8 ? .uint8 : .int8 }
    }

    struct Setup {
        var input: QuantizedTestOperand
        var filter: QuantizedTestOperand
        var bias: QuantizedTestOperand
        var output: QuantizedTestOperand
        var zx: Int32
        var zw: Int32
        var multipliers: [FixedPoint.Multiplier]
        var range: (min: Int32, max: Int32)
    }

    /// Random operands; `axis` is the filter's per-channel dimension.
    static func setup(
        _ flavor: Flavor, input shape: [Int], filter filterShape: [Int], channels: Int, axis: Int,
        activation: FusedActivation, seed: UInt64, legacyFullyConnected: Bool = false
    ) -> Setup {
        var rng = SplitMix64(seed: seed)
        let t = flavor.activationType
        let zx: Int64 = flavor == .int16 ? 0 : (flavor == .uint8 ? Int64.random(in: 90...160, using: &rng) : Int64.random(in: -20...20, using: &rng))
        let zy: Int64 = flavor == .int16 ? 0 : (flavor == .uint8 ? Int64.random(in: 90...160, using: &rng) : Int64.random(in: -20...20, using: &rng))
        let zw: Int64 = flavor == .uint8 ? Int64.random(in: 100...150, using: &rng) : 0
        let sx: Float = flavor == .int16 ? 0.0005 : 0.05, sy: Float = flavor == .int16 ? 0.002 : 0.3
        let filterScales = flavor == .uint8
            ? [Float.random(in: 0.002...0.02, using: &rng)] : QuantizedTestValues.scales(channels, 0.002...0.02, &rng)
        let count = filterShape.reduce(1, *)
        var filterValues = QuantizedTestValues.ints(count, flavor.filterType, &rng)
        if flavor != .uint8 { filterValues = filterValues.map { max($0, -127) } }
        let input = QuantizedTestOperand(
            shape: shape, type: t, ints: QuantizedTestValues.ints(shape.reduce(1, *), t, &rng), scales: [sx],
            zeroPoints: [zx])
        let filter = QuantizedTestOperand(
            shape: filterShape, type: flavor.filterType, ints: filterValues, scales: filterScales,
            zeroPoints: filterScales.map { _ in zw }, axis: axis, constant: true)
        let biasType: TensorType = flavor == .int16 ? .int64 : .int32
        let bias = QuantizedTestOperand(
            shape: [channels], type: biasType, ints: (0..<channels).map { _ in Int64.random(in: -3000...3000, using: &rng) },
            constant: true)
        let output = QuantizedTestOperand(shape: [], type: t, scales: [sy], zeroPoints: [zy])
        let multipliers = FixedPoint.channelMultipliers(
            inputScale: sx, filterScales: filterScales, outputScale: sy, channels: channels,
            legacy: flavor == .uint8 || (legacyFullyConnected && filterScales.count == 1))
        let r = t.quantizedRange!
        let range = FixedPoint.activationRange(activation, scale: sy, zeroPoint: Int(zy), qmin: r.min, qmax: r.max)
        return Setup(
            input: input, filter: filter, bias: bias, output: output, zx: Int32(zx), zw: Int32(zw),
            multipliers: multipliers, range: range)
    }

    struct ConvCase: CustomStringConvertible, Sendable {
        var input: [Int]
        var filter: [Int]
        var stride: Int
        var dilation: Int
        var same: Bool
        var activation: FusedActivation
        var description: String { "in\(input) f\(filter) s\(stride) d\(dilation) \(same ? "SAME" : "VALID") \(activation)" }
    }

    static let convCases: [ConvCase] = [
        ConvCase(input: [1, 7, 8, 5], filter: [6, 3, 3, 5], stride: 2, dilation: 1, same: true, activation: .relu),
        ConvCase(input: [2, 6, 6, 4], filter: [9, 1, 1, 4], stride: 1, dilation: 1, same: true, activation: .none),
        ConvCase(input: [1, 9, 7, 3], filter: [4, 3, 2, 3], stride: 1, dilation: 2, same: false, activation: .relu6),
        ConvCase(input: [1, 5, 5, 6], filter: [4, 3, 3, 3], stride: 1, dilation: 1, same: true, activation: .none),  // 2 groups
        ConvCase(input: [1, 1, 1, 16], filter: [8, 1, 1, 16], stride: 1, dilation: 1, same: true, activation: .none),
        // Several row tiles and column panels of the 8-bit GEMM, a depth past 64 and not a multiple of 4.
        ConvCase(input: [1, 6, 7, 70], filter: [37, 3, 3, 70], stride: 1, dilation: 1, same: true, activation: .relu),
    ]

    @Test(arguments: convCases, Flavor.allCases)
    func convMatchesReference(_ c: ConvCase, flavor: Flavor) throws {
        for threads in [1, 2] {
            let channels = c.filter[0]
            let s = Self.setup(flavor, input: c.input, filter: c.filter, channels: channels, axis: 0, activation: c.activation, seed: 11)
            let tn = try QuantizedTestNode(
                .conv2D, options: [0: c.same ? 0 : 1, 1: Int32(c.stride), 2: Int32(c.stride), 3: Int32(c.activation.rawValue), 4: Int32(c.dilation), 5: Int32(c.dilation)],
                inputs: [s.input, s.filter, s.bias], output: s.output, threads: threads)
            let (shape, got) = try tn.run()
            let g = try WindowGeometry(
                node: tn.node, inputShape: c.input, filterHeight: c.filter[1], filterWidth: c.filter[2], strideHeight: c.stride,
                strideWidth: c.stride, dilationHeight: c.dilation, dilationWidth: c.dilation, padding: c.same ? .same : .valid)
            #expect(shape == [g.batch, g.outputHeight, g.outputWidth, channels])
            let grouped = c.input[3] != c.filter[3]
            let out = ReferenceQuantizedConvolution.Output(
                multipliers: s.multipliers, zeroPoint: Int32(s.output.zeroPoints[0]), min: s.range.min, max: s.range.max,
                rounding: grouped ? .reference : .gemm, wide: flavor == .int16)
            let want = ReferenceQuantizedConvolution.conv(
                input: s.input.ints.map { Int32($0) }, g, inputZeroPoint: s.zx, filter: s.filter.ints.map { Int32($0) },
                filterZeroPoint: s.zw, outputChannels: channels, bias: s.bias.ints, output: out)
            #expect(got == want, "threads \(threads)")
        }
    }

    @Test(arguments: [1, 2], Flavor.allCases)
    func depthwiseMatchesReference(_ multiplier: Int, flavor: Flavor) throws {
        try checkDepthwise(multiplier: multiplier, base: 5, flavor: flavor)
    }

    /// A group of 64 channels, then blocks of 16 and a remainder (the 8-bit VNNI pixel kernel's paths).
    @Test(arguments: Flavor.allCases)
    func depthwiseManyChannelsMatchesReference(_ flavor: Flavor) throws {
        try checkDepthwise(multiplier: 1, base: 91, flavor: flavor)
    }

    private func checkDepthwise(multiplier: Int, base: Int, flavor: Flavor) throws {
        let input = [2, 7, 6, base * multiplier], channels = base * multiplier * multiplier
        let s = Self.setup(flavor, input: input, filter: [1, 3, 3, channels], channels: channels, axis: 3, activation: .none, seed: 5)
        let tn = try QuantizedTestNode(
            .depthwiseConv2D, options: [0: 0, 1: 2, 2: 1, 3: Int32(multiplier), 4: 0],
            inputs: [s.input, s.filter, s.bias], output: s.output, threads: 2)
        let (_, got) = try tn.run()
        let g = try WindowGeometry(
            node: tn.node, inputShape: input, filterHeight: 3, filterWidth: 3, strideHeight: 1, strideWidth: 2, padding: .same)
        let out = ReferenceQuantizedConvolution.Output(
            multipliers: s.multipliers, zeroPoint: Int32(s.output.zeroPoints[0]), min: s.range.min, max: s.range.max,
            rounding: .reference, wide: flavor == .int16)
        var want = ReferenceQuantizedConvolution.depthwise(
            input: s.input.ints.map { Int32($0) }, g, inputZeroPoint: s.zx, filter: s.filter.ints.map { Int32($0) },
            filterZeroPoint: s.zw, multiplier: multiplier, bias: s.bias.ints, output: out)
        if flavor == .int8 {
            // int8: whole blocks of 8 channels round like the GEMM, the leftover channels like the reference.
            var gemm = out
            gemm.rounding = .gemm
            let blocked = ReferenceQuantizedConvolution.depthwise(
                input: s.input.ints.map { Int32($0) }, g, inputZeroPoint: s.zx, filter: s.filter.ints.map { Int32($0) },
                filterZeroPoint: s.zw, multiplier: multiplier, bias: s.bias.ints, output: gemm)
            for i in want.indices where i % channels < channels - channels % 8 { want[i] = blocked[i] }
        }
        #expect(got == want)
    }

    @Test(arguments: Flavor.allCases)
    func fullyConnectedMatchesReference(_ flavor: Flavor) throws {
        let rows = 3, depth = 37, outputs = 11
        var s = Self.setup(flavor, input: [rows, depth], filter: [outputs, depth], channels: outputs, axis: 0, activation: .relu, seed: 9, legacyFullyConnected: true)
        if flavor == .int16 {
            // int32 bias: LiteRT's optimized int16 GEMM path (int32 accumulators, GEMM rounding).
            s.bias.type = .int32
        }
        let tn = try QuantizedTestNode(
            .fullyConnected, options: [0: Int32(FusedActivation.relu.rawValue)], inputs: [s.input, s.filter, s.bias],
            output: s.output)
        let (shape, got) = try tn.run()
        #expect(shape == [rows, outputs])
        let out = ReferenceQuantizedConvolution.Output(
            multipliers: s.multipliers, zeroPoint: Int32(s.output.zeroPoints[0]), min: s.range.min, max: s.range.max,
            rounding: .gemm)
        let want = ReferenceQuantizedConvolution.fullyConnected(
            input: s.input.ints.map { Int32($0) }, rows: rows, depth: depth, inputZeroPoint: s.zx,
            weights: s.filter.ints.map { Int32($0) }, filterZeroPoint: s.zw, outputs: outputs, bias: s.bias.ints, output: out)
        #expect(got == want)
    }

    /// One row and many rows, operands only at their extremes (the largest byte products, in both signs),
    /// on every 8-bit path: the GEMMs must give the reference's integers.
    @Test(arguments: [Flavor.uint8, .int8], [1, 10])
    func fullyConnectedExtremes(_ flavor: Flavor, rows: Int) throws {
        let depth = 70, outputs = 37
        var s = Self.setup(
            flavor, input: [rows, depth], filter: [outputs, depth], channels: outputs, axis: 0, activation: .none, seed: 21,
            legacyFullyConnected: true)
        var rng = SplitMix64(seed: 4)
        let low: Int64 = flavor == .uint8 ? 0 : -128, high: Int64 = flavor == .uint8 ? 255 : 127
        s.input.ints = s.input.ints.map { _ in Bool.random(using: &rng) ? low : high }
        s.filter.ints = s.filter.ints.map { _ in Bool.random(using: &rng) ? (flavor == .uint8 ? 0 : -127) : high }
        let tn = try QuantizedTestNode(
            .fullyConnected, options: [0: Int32(FusedActivation.none.rawValue)], inputs: [s.input, s.filter, s.bias],
            output: s.output, threads: 2)
        let (_, got) = try tn.run()
        let out = ReferenceQuantizedConvolution.Output(
            multipliers: s.multipliers, zeroPoint: Int32(s.output.zeroPoints[0]), min: s.range.min, max: s.range.max,
            rounding: .gemm)
        let want = ReferenceQuantizedConvolution.fullyConnected(
            input: s.input.ints.map { Int32($0) }, rows: rows, depth: depth, inputZeroPoint: s.zx,
            weights: s.filter.ints.map { Int32($0) }, filterZeroPoint: s.zw, outputs: outputs, bias: s.bias.ints, output: out)
        #expect(got == want)
    }

    @Test func fullyConnectedKeepNumDims() throws {
        let s = Self.setup(.int8, input: [2, 3, 8], filter: [5, 8], channels: 5, axis: 0, activation: .none, seed: 3)
        let tn = try QuantizedTestNode(.fullyConnected, options: [2: 1], inputs: [s.input, s.filter, nil], output: s.output)
        #expect(try tn.run().shape == [2, 3, 5])
    }

    @Test(arguments: [Flavor.uint8, .int8])
    func transposeConvMatchesReference(_ flavor: Flavor) throws {
        let input = [1, 4, 5, 3], channels = 11
        let s = Self.setup(flavor, input: input, filter: [channels, 3, 3, 3], channels: channels, axis: 0, activation: .none, seed: 21)
        let shape = QuantizedTestOperand(shape: [4], type: .int32, ints: [1, 8, 10, Int64(channels)], constant: true)
        let tn = try QuantizedTestNode(
            .transposeConv, options: [0: 0, 1: 2, 2: 2], inputs: [shape, s.filter, s.input, s.bias], output: s.output)
        let (outShape, got) = try tn.run()
        #expect(outShape == [1, 8, 10, channels])
        let g = TransposeConvGeometry.builtin(
            input: input, filter: [channels, 3, 3, 3], outputHeight: 8, outputWidth: 10, strideHeight: 2, strideWidth: 2,
            padding: .same)
        let out = ReferenceQuantizedConvolution.Output(
            multipliers: s.multipliers, zeroPoint: Int32(s.output.zeroPoints[0]), min: s.range.min, max: s.range.max)
        let want = ReferenceQuantizedConvolution.transposeConv(
            input: s.input.ints.map { Int32($0) }, g, inputZeroPoint: s.zx, filter: s.filter.ints.map { Int32($0) },
            filterZeroPoint: s.zw, bias: s.bias.ints, output: out,
            roundingForChannel: { c in flavor == .int8 && c < 8 ? .gemm : .reference })
        #expect(got == want)
    }

    // MARK: - Hand-checked rounding

    @Test func gemmAndReferenceRoundingDifferOnNegativeTies() {
        // multiplier 2^30 with shift -1 is 0.25.
        let quarter = FixedPoint.Multiplier(multiplier: 1 << 30, shift: -1)
        #expect(FixedPoint.multiply(-6, by: quarter, rounding: .reference) == -2)  // -1.5, away from zero
        #expect(FixedPoint.multiply(-6, by: quarter, rounding: .gemm) == -1)  // -1.5, toward +inf
        #expect(FixedPoint.multiply(6, by: quarter, rounding: .reference) == 2)
        #expect(FixedPoint.multiply(6, by: quarter, rounding: .gemm) == 2)
        #expect(FixedPoint.multiply(-5, by: quarter, rounding: .gemm) == -1)
        // -1.75: the high multiply already rounds -3.5 to -3 (its ties go up), then -1.5 goes to -1 (gemm)
        // or -2 (reference): double rounding.
        #expect(FixedPoint.multiply(-7, by: quarter, rounding: .gemm) == -1)
        #expect(FixedPoint.multiply(-7, by: quarter, rounding: .reference) == -2)
    }

    @Test func channelMultipliersUseDoubleProducts() {
        let m = FixedPoint.channelMultipliers(inputScale: 0.5, filterScales: [0.25, 0.125], outputScale: 0.125, channels: 2)
        #expect(m[0] == FixedPoint.Multiplier(multiplier: 1 << 30, shift: 1))  // 1.0
        #expect(m[1] == FixedPoint.Multiplier(multiplier: 1 << 30, shift: 0))  // 0.5
    }

    @Test func legacyMultiplierRoundsTheScaleProductToFloat() {
        // mobilenet_v1_0.25_224_quant, node 4: the float product moves the multiplier by 19 units, which
        // turns LiteRT's result for accumulator 8843 (zero points removed) from 183 into 182.
        let sx: Float = 0.023528477, sw: Float = 0.020636026, sy: Float = 0.023528477
        let legacy = FixedPoint.legacyMultiplier(inputScale: sx, filterScale: sw, outputScale: sy)
        let precise = FixedPoint.channelMultipliers(inputScale: sx, filterScales: [sw], outputScale: sy, channels: 1)[0]
        #expect(legacy == FixedPoint.Multiplier(multiplier: 1_418_096_877, shift: -5))
        #expect(precise == FixedPoint.Multiplier(multiplier: 1_418_096_896, shift: -5))
        #expect(FixedPoint.multiply(8843, by: legacy, rounding: .gemm) == 182)
        #expect(FixedPoint.multiply(8843, by: precise, rounding: .gemm) == 183)
        #expect(FixedPoint.channelMultipliers(inputScale: sx, filterScales: [sw], outputScale: sy, channels: 2, legacy: true) == [legacy, legacy])
    }

    @Test func symmetricAndAsymmetricInputQuantization() {
        var q = [Int8](repeating: 0, count: 3)
        let x: [Float] = [0.5, -1, 0.25]
        let scale = q.withUnsafeMutableBufferPointer { FixedPoint.symmetricQuantize(x, count: 3, into: $0.baseAddress!) }
        #expect(q == [64, -127, 32])
        #expect(scale == Float(1) / 127)
        let zeros = [Float](repeating: 0, count: 3)
        let r = q.withUnsafeMutableBufferPointer { FixedPoint.asymmetricQuantize(zeros, count: 3, into: $0.baseAddress!) }
        #expect(r.scale == 1 && r.offset == 0 && q == [0, 0, 0])
        let y: [Float] = [0, 2.55]
        var q2 = [Int8](repeating: 0, count: 2)
        let r2 = q2.withUnsafeMutableBufferPointer { FixedPoint.asymmetricQuantize(y, count: 2, into: $0.baseAddress!) }
        #expect(r2.offset == -128 && q2 == [-128, 127])
    }

    // MARK: - Hybrid

    @Test func hybridFullyConnectedMatchesDequantizedMath() throws {
        var rng = SplitMix64(seed: 4)
        let rows = 2, depth = 10, outputs = 3
        let x = (0..<(rows * depth)).map { _ in Float.random(in: -2...2, using: &rng) }
        let w = QuantizedTestValues.ints(outputs * depth, .int8, &rng).map { max($0, -127) }
        let input = QuantizedTestOperand(shape: [rows, depth], type: .float32, floats: x)
        let weights = QuantizedTestOperand(shape: [outputs, depth], type: .int8, ints: w, scales: [0.01], constant: true)
        let bias = QuantizedTestOperand(shape: [outputs], type: .float32, floats: [0.5, -0.25, 0], constant: true)
        let tn = try QuantizedTestNode(
            .fullyConnected, options: [:], inputs: [input, weights, bias],
            output: QuantizedTestOperand(shape: [], type: .float32))
        let got = try tn.runFloat()
        for r in 0..<rows {
            var q = [Int8](repeating: 0, count: depth)
            let row = Array(x[(r * depth)..<((r + 1) * depth)])
            let s = q.withUnsafeMutableBufferPointer { FixedPoint.symmetricQuantize(row, count: depth, into: $0.baseAddress!) }
            for o in 0..<outputs {
                var acc: Int32 = 0
                for i in 0..<depth { acc += Int32(q[i]) * Int32(w[o * depth + i]) }
                let want = bias.floats[o] + Float(acc) * (Float(0.01) * s)
                #expect(got[r * outputs + o] == want)
            }
        }
    }
}

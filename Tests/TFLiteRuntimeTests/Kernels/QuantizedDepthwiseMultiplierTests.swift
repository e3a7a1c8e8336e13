import Foundation
import Testing

@testable import TFLiteRuntime

/// 8-bit DEPTHWISE_CONV_2D with a depth multiplier above 1 or few channels (`QuantizedDepthwiseRows`,
/// the whole-row C kernel, whichever variant `OPENMLKIT_KERNELS` leaves; the general path without
/// one) against the scalar reference, exactly, on random geometries: one to six input channels,
/// multipliers 1 to 9, strides, dilations, both paddings, one and two threads.
@Suite("Quantized depthwise with a depth multiplier")
struct QuantizedDepthwiseMultiplierTests {
    typealias Flavor = QuantizedConvolutionTests.Flavor

    @Test(arguments: [Flavor.uint8, .int8])
    func randomGeometries(_ flavor: Flavor) throws {
        var rng = SplitMix64(seed: flavor == .uint8 ? 31 : 32)
        var checked = 0
        while checked < 40 {
            let input = [
                Int.random(in: 1...2, using: &rng), Int.random(in: 1...9, using: &rng),
                Int.random(in: 1...20, using: &rng), Int.random(in: 1...6, using: &rng),
            ]
            let multiplier = checked % 5 == 0 ? 1 : Int.random(in: 2...9, using: &rng)
            let filter = (Int.random(in: 1...4, using: &rng), Int.random(in: 1...4, using: &rng))
            let stride = (Int.random(in: 1...3, using: &rng), Int.random(in: 1...3, using: &rng))
            let dilation = (Int.random(in: 1...2, using: &rng), Int.random(in: 1...2, using: &rng))
            let same = Bool.random(using: &rng)
            let activation: FusedActivation = Bool.random(using: &rng) ? .relu6 : .none
            let reach = ((filter.0 - 1) * dilation.0 + 1, (filter.1 - 1) * dilation.1 + 1)
            if !same, input[1] < reach.0 || input[2] < reach.1 { continue }
            try check(
                flavor, input: input, multiplier: multiplier, filter: filter, stride: stride, dilation: dilation,
                same: same, activation: activation, seed: rng.next(), threads: Int.random(in: 1...2, using: &rng))
            checked += 1
        }
    }

    /// stop_sign_int8's first layers: one channel 3x3, then one channel spread over 8 by a 1x1 filter.
    @Test(arguments: [Flavor.uint8, .int8], [1, 8])
    func oneInputChannel(_ flavor: Flavor, multiplier: Int) throws {
        let size = multiplier == 1 ? 3 : 1
        try check(
            flavor, input: [1, 24, 24, 1], multiplier: multiplier, filter: (size, size),
            stride: (1, 1), dilation: (1, 1), same: true, activation: .relu6, seed: 11, threads: 2)
    }

    private func check(
        _ flavor: Flavor, input: [Int], multiplier m: Int, filter: (Int, Int), stride: (Int, Int),
        dilation: (Int, Int), same: Bool, activation: FusedActivation, seed: UInt64, threads: Int
    ) throws {
        let channels = input[3] * m
        let s = QuantizedConvolutionTests.setup(
            flavor, input: input, filter: [1, filter.0, filter.1, channels], channels: channels, axis: 3,
            activation: activation, seed: seed)
        let tn = try QuantizedTestNode(
            .depthwiseConv2D,
            options: [
                0: same ? 0 : 1, 1: Int32(stride.1), 2: Int32(stride.0), 3: Int32(m),
                4: Int32(activation.rawValue), 5: Int32(dilation.1), 6: Int32(dilation.0),
            ],
            inputs: [s.input, s.filter, s.bias], output: s.output, threads: threads)
        let (shape, got) = try tn.run()
        let g = try WindowGeometry(
            node: tn.node, inputShape: input, filterHeight: filter.0, filterWidth: filter.1, strideHeight: stride.0,
            strideWidth: stride.1, dilationHeight: dilation.0, dilationWidth: dilation.1, padding: same ? .same : .valid)
        let what = "in \(input) m \(m) f \(filter) s \(stride) d \(dilation) same \(same) \(flavor) threads \(threads)"
        #expect(shape == [g.batch, g.outputHeight, g.outputWidth, channels], "\(what)")
        var out = ReferenceQuantizedConvolution.Output(
            multipliers: s.multipliers, zeroPoint: Int32(s.output.zeroPoints[0]), min: s.range.min, max: s.range.max,
            rounding: .reference)
        let x = s.input.ints.map { Int32($0) }
        let w = s.filter.ints.map { Int32($0) }
        var want = ReferenceQuantizedConvolution.depthwise(
            input: x, g, inputZeroPoint: s.zx, filter: w, filterZeroPoint: s.zw, multiplier: m, bias: s.bias.ints,
            output: out)
        if flavor == .int8 {
            // int8: whole blocks of 8 channels round like the GEMM, the leftover channels like the reference.
            out.rounding = .gemm
            let blocked = ReferenceQuantizedConvolution.depthwise(
                input: x, g, inputZeroPoint: s.zx, filter: w, filterZeroPoint: s.zw, multiplier: m, bias: s.bias.ints,
                output: out)
            for i in want.indices where i % channels < channels - channels % 8 { want[i] = blocked[i] }
        }
        #expect(got == want, "\(what)")
    }
}

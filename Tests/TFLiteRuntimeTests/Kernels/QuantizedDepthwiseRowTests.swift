import Foundation
import Testing

@testable import TFLiteRuntime

/// The 8-bit DEPTHWISE_CONV_2D row kernels (`QuantizedDepthwise8`: AVX-512 VNNI or AVX2, whichever
/// `OPENMLKIT_KERNELS` leaves) against the scalar reference, exactly: tile and image borders,
/// channel blocks that share a vector between pixels, strides, dilations, taller filters, and
/// the output stages they hand back to the general path.
@Suite("Quantized depthwise row kernels")
struct QuantizedDepthwiseRowTests {
    typealias Flavor = QuantizedConvolutionTests.Flavor

    struct Case: CustomStringConvertible, Sendable {
        var input: [Int]
        var filter: (height: Int, width: Int)
        var stride: (height: Int, width: Int) = (1, 1)
        var dilation: (height: Int, width: Int) = (1, 1)
        var same = true
        var activation: FusedActivation = .none
        var description: String {
            "in\(input) f\(filter.height)x\(filter.width) s\(stride.height)x\(stride.width) "
                + "d\(dilation.height)x\(dilation.width) \(same ? "SAME" : "VALID") \(activation)"
        }
    }

    static let cases: [Case] = [
        // 32 channels: two pixels per vector; 70 columns: two tiles.
        Case(input: [1, 5, 70, 32], filter: (3, 3)),
        // 16 channels: four pixels per vector, stride 2 (pixels not adjacent).
        Case(input: [1, 8, 9, 16], filter: (3, 3), stride: (2, 2)),
        // Two whole blocks and a 16-channel tail, two images, no padding.
        Case(input: [2, 6, 7, 144], filter: (3, 3), same: false),
        // 5x5: two groups of filter rows; 40 channels: one partial block.
        Case(input: [1, 7, 7, 40], filter: (5, 5), activation: .relu6),
        // Dilation 2 in both directions; 24 channels.
        Case(input: [1, 10, 11, 24], filter: (3, 3), dilation: (2, 2), activation: .relu),
        // A tiny image with an odd channel count.
        Case(input: [1, 3, 2, 7], filter: (3, 3), stride: (2, 2)),
        // One filter row, stride 3 across; 96 channels: a whole block and a 32-channel tail.
        Case(input: [1, 5, 66, 96], filter: (1, 3), stride: (1, 3)),
        // A filter taller than the row kernels take (the general path).
        Case(input: [1, 12, 5, 8], filter: (9, 1)),
        // Output narrower than the filter's reach, with padding on both sides.
        Case(input: [1, 2, 2, 65], filter: (3, 3), stride: (2, 1)),
    ]

    @Test(arguments: cases, [Flavor.uint8, .int8])
    func matchesReference(_ c: Case, flavor: Flavor) throws {
        for threads in [1, 2] {
            let s = setup(c, flavor: flavor, seed: 7)
            try check(c, s, flavor: flavor, threads: threads)
        }
    }

    /// Random small geometries: filter sizes, strides, dilations and paddings in every combination
    /// the row kernels take, and some they hand back (filters taller than 8 rows).
    @Test(arguments: [Flavor.uint8, .int8])
    func randomGeometries(_ flavor: Flavor) throws {
        var rng = SplitMix64(seed: flavor == .uint8 ? 21 : 22)
        for _ in 0..<40 {
            let filter = (Int.random(in: 1...5, using: &rng), Int.random(in: 1...5, using: &rng))
            let c = Case(
                input: [
                    Int.random(in: 1...2, using: &rng), Int.random(in: 1...9, using: &rng),
                    Int.random(in: 1...12, using: &rng), Int.random(in: 1...80, using: &rng),
                ],
                filter: Bool.random(using: &rng) ? filter : (Int.random(in: 6...10, using: &rng), filter.1),
                stride: (Int.random(in: 1...3, using: &rng), Int.random(in: 1...3, using: &rng)),
                dilation: (Int.random(in: 1...2, using: &rng), Int.random(in: 1...2, using: &rng)),
                same: Bool.random(using: &rng), activation: Bool.random(using: &rng) ? .relu : .none)
            let effective = ((c.filter.height - 1) * c.dilation.height + 1, (c.filter.width - 1) * c.dilation.width + 1)
            if !c.same, c.input[1] < effective.0 || c.input[2] < effective.1 { continue }
            let s = setup(c, flavor: flavor, seed: rng.next())
            try check(c, s, flavor: flavor, threads: Int.random(in: 1...2, using: &rng))
        }
    }

    /// Multipliers above one (a left shift) and far below one (a right shift past 22, which the VNNI
    /// kernel leaves to AVX2 or the general path), with biases large enough to show in the output.
    /// (Input scale 0.05 times filter scales 0.002...0.02, over 4e-4: multipliers 0.25...2.5; over 1e4:
    /// 1e-8...1e-7, right shifts of 24 to 27.)
    @Test(arguments: [Flavor.uint8, .int8], [Float(4e-4), Float(1e4)])
    func extremeMultipliers(_ flavor: Flavor, outputScale: Float) throws {
        let c = Case(input: [1, 4, 9, 48], filter: (3, 3))
        var s = setup(c, flavor: flavor, seed: 3, outputScale: outputScale)
        var rng = SplitMix64(seed: 8)
        let range: ClosedRange<Int64> = outputScale < 1 ? -5_000...5_000 : -1_500_000_000...1_500_000_000
        s.bias.ints = s.bias.ints.map { _ in Int64.random(in: range, using: &rng) }
        try check(c, s, flavor: flavor, threads: 2)
    }

    /// uint8 weights at both ends with filter zero point 0 (a weight of 255 is past what the VNNI
    /// kernel's two signed bytes hold), inputs at both ends.
    @Test func uint8ExtremeWeights() throws {
        let c = Case(input: [1, 6, 10, 20], filter: (3, 3))
        var s = setup(c, flavor: .uint8, seed: 5)
        var rng = SplitMix64(seed: 9)
        s.filter.ints = s.filter.ints.map { _ in Bool.random(using: &rng) ? 0 : 255 }
        s.filter.zeroPoints = [0]
        s.input.ints = s.input.ints.map { _ in Bool.random(using: &rng) ? 0 : 255 }
        s.zw = 0
        try check(c, s, flavor: .uint8, threads: 1)
    }

    private func setup(
        _ c: Case, flavor: Flavor, seed: UInt64, outputScale: Float? = nil
    ) -> QuantizedConvolutionTests.Setup {
        let channels = c.input[3]
        var s = QuantizedConvolutionTests.setup(
            flavor, input: c.input, filter: [1, c.filter.height, c.filter.width, channels], channels: channels, axis: 3,
            activation: c.activation, seed: seed)
        if let outputScale {
            s.output.scales = [outputScale]
            let filterScales = s.filter.scales
            s.multipliers = FixedPoint.channelMultipliers(
                inputScale: s.input.scales[0], filterScales: filterScales, outputScale: outputScale, channels: channels,
                legacy: flavor == .uint8)
            let r = flavor.activationType.quantizedRange!
            s.range = FixedPoint.activationRange(
                c.activation, scale: outputScale, zeroPoint: Int(s.output.zeroPoints[0]), qmin: r.min, qmax: r.max)
        }
        return s
    }

    private func check(_ c: Case, _ s: QuantizedConvolutionTests.Setup, flavor: Flavor, threads: Int) throws {
        let channels = c.input[3]
        let tn = try QuantizedTestNode(
            .depthwiseConv2D,
            options: [
                0: c.same ? 0 : 1, 1: Int32(c.stride.width), 2: Int32(c.stride.height), 3: 1,
                4: Int32(c.activation.rawValue), 5: Int32(c.dilation.width), 6: Int32(c.dilation.height),
            ],
            inputs: [s.input, s.filter, s.bias], output: s.output, threads: threads)
        let (shape, got) = try tn.run()
        let g = try WindowGeometry(
            node: tn.node, inputShape: c.input, filterHeight: c.filter.height, filterWidth: c.filter.width,
            strideHeight: c.stride.height, strideWidth: c.stride.width, dilationHeight: c.dilation.height,
            dilationWidth: c.dilation.width, padding: c.same ? .same : .valid)
        #expect(shape == [g.batch, g.outputHeight, g.outputWidth, channels])
        var out = ReferenceQuantizedConvolution.Output(
            multipliers: s.multipliers, zeroPoint: Int32(s.output.zeroPoints[0]), min: s.range.min, max: s.range.max,
            rounding: .reference)
        let x = s.input.ints.map { Int32($0) }
        let w = s.filter.ints.map { Int32($0) }
        var want = ReferenceQuantizedConvolution.depthwise(
            input: x, g, inputZeroPoint: s.zx, filter: w, filterZeroPoint: s.zw, multiplier: 1, bias: s.bias.ints,
            output: out)
        if flavor == .int8 {
            // int8: whole blocks of 8 channels round like the GEMM, the leftover channels like the reference.
            out.rounding = .gemm
            let blocked = ReferenceQuantizedConvolution.depthwise(
                input: x, g, inputZeroPoint: s.zx, filter: w, filterZeroPoint: s.zw, multiplier: 1, bias: s.bias.ints,
                output: out)
            for i in want.indices where i % channels < channels - channels % 8 { want[i] = blocked[i] }
        }
        #expect(got == want, "\(c) \(flavor) threads \(threads)")
    }
}

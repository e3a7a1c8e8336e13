/// Plain scalar convolutions, written for clarity: the oracle the fast kernels are tested against.
///
/// Each follows TFLite's reference semantics: NHWC input, taps outside the image contribute nothing,
/// the sum starts at zero, the bias is added last, then the activation range is applied.
enum ReferenceConvolution {
    /// CONV_2D. `filter` is `[outputChannels, filterHeight, filterWidth, inputChannels / groups]`;
    /// output channel `o` belongs to group `o / (outputChannels / groups)`.
    static func conv2D(
        geometry g: WindowGeometry, input: UnsafePointer<Float>, filter: UnsafePointer<Float>,
        bias: UnsafePointer<Float>?, outputChannels: Int, groups: Int, activation: FusedActivation,
        output: UnsafeMutablePointer<Float>
    ) {
        let (lower, upper) = activation.floatRange
        let groupInput = g.inputChannels / groups
        let groupOutput = outputChannels / groups
        for b in 0..<g.batch {
            for oy in 0..<g.outputHeight {
                for ox in 0..<g.outputWidth {
                    for oc in 0..<outputChannels {
                        let firstChannel = (oc / groupOutput) * groupInput
                        var sum: Float = 0
                        for ky in 0..<g.filterHeight {
                            let iy = oy * g.strideHeight - g.padTop + ky * g.dilationHeight
                            guard iy >= 0, iy < g.inputHeight else { continue }
                            for kx in 0..<g.filterWidth {
                                let ix = ox * g.strideWidth - g.padLeft + kx * g.dilationWidth
                                guard ix >= 0, ix < g.inputWidth else { continue }
                                for ic in 0..<groupInput {
                                    let x = input[((b * g.inputHeight + iy) * g.inputWidth + ix) * g.inputChannels
                                        + firstChannel + ic]
                                    let w = filter[((oc * g.filterHeight + ky) * g.filterWidth + kx) * groupInput + ic]
                                    sum += x * w
                                }
                            }
                        }
                        if let bias { sum += bias[oc] }
                        output[((b * g.outputHeight + oy) * g.outputWidth + ox) * outputChannels + oc] =
                            clamp(sum, lower, upper)
                    }
                }
            }
        }
    }

    /// DEPTHWISE_CONV_2D. `filter` is `[1, filterHeight, filterWidth, inputChannels * multiplier]`;
    /// output channel `c * multiplier + m` reads input channel `c`.
    static func depthwiseConv2D(
        geometry g: WindowGeometry, multiplier: Int, input: UnsafePointer<Float>, filter: UnsafePointer<Float>,
        bias: UnsafePointer<Float>?, activation: FusedActivation, output: UnsafeMutablePointer<Float>
    ) {
        let (lower, upper) = activation.floatRange
        let outputChannels = g.inputChannels * multiplier
        for b in 0..<g.batch {
            for oy in 0..<g.outputHeight {
                for ox in 0..<g.outputWidth {
                    for ic in 0..<g.inputChannels {
                        for m in 0..<multiplier {
                            let oc = ic * multiplier + m
                            var sum: Float = 0
                            for ky in 0..<g.filterHeight {
                                let iy = oy * g.strideHeight - g.padTop + ky * g.dilationHeight
                                guard iy >= 0, iy < g.inputHeight else { continue }
                                for kx in 0..<g.filterWidth {
                                    let ix = ox * g.strideWidth - g.padLeft + kx * g.dilationWidth
                                    guard ix >= 0, ix < g.inputWidth else { continue }
                                    let x = input[((b * g.inputHeight + iy) * g.inputWidth + ix) * g.inputChannels + ic]
                                    let w = filter[(ky * g.filterWidth + kx) * outputChannels + oc]
                                    sum += x * w
                                }
                            }
                            if let bias { sum += bias[oc] }
                            output[((b * g.outputHeight + oy) * g.outputWidth + ox) * outputChannels + oc] =
                                clamp(sum, lower, upper)
                        }
                    }
                }
            }
        }
    }

    /// `std::min(std::max(x, lower), upper)`: NaN stays NaN.
    @inline(__always)
    static func clamp(_ x: Float, _ lower: Float, _ upper: Float) -> Float {
        var r = x < lower ? lower : x
        r = r > upper ? upper : r
        return r
    }
}

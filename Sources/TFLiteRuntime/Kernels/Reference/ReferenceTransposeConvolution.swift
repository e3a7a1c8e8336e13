/// Plain scalar transposed convolution (TRANSPOSE_CONV, MediaPipe's Convolution2DTransposeBias): the
/// oracle for `TransposeConvKernel`.
///
/// Follows TFLite's reference "scatter" formulation: every input pixel adds `input · filter` to the
/// output pixels its filter window covers (those inside the output), then the bias is added and the
/// activation range applied.
enum ReferenceTransposeConvolution {
    /// `filter` is `[outputChannels, filterHeight, filterWidth, inputChannels]`.
    static func transposeConv(
        geometry g: TransposeConvGeometry, input: UnsafePointer<Float>, filter: UnsafePointer<Float>,
        bias: UnsafePointer<Float>?, activation: FusedActivation, output: UnsafeMutablePointer<Float>
    ) {
        let (lower, upper) = activation.floatRange
        let outputCount = g.batch * g.outputHeight * g.outputWidth * g.outputChannels
        output.update(repeating: 0, count: outputCount)
        for b in 0..<g.batch {
            for iy in 0..<g.inputHeight {
                for ix in 0..<g.inputWidth {
                    for ic in 0..<g.inputChannels {
                        let x = input[((b * g.inputHeight + iy) * g.inputWidth + ix) * g.inputChannels + ic]
                        for ky in 0..<g.filterHeight {
                            let oy = iy * g.strideHeight - g.padTop + ky
                            guard oy >= 0, oy < g.outputHeight else { continue }
                            for kx in 0..<g.filterWidth {
                                let ox = ix * g.strideWidth - g.padLeft + kx
                                guard ox >= 0, ox < g.outputWidth else { continue }
                                for oc in 0..<g.outputChannels {
                                    let w = filter[((oc * g.filterHeight + ky) * g.filterWidth + kx) * g.inputChannels + ic]
                                    output[((b * g.outputHeight + oy) * g.outputWidth + ox) * g.outputChannels + oc] += x * w
                                }
                            }
                        }
                    }
                }
            }
        }
        for i in 0..<outputCount {
            var v = output[i]
            if let bias { v += bias[i % g.outputChannels] }
            output[i] = ReferenceConvolution.clamp(v, lower, upper)
        }
    }
}

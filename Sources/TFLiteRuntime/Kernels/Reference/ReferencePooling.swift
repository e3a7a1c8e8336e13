/// Plain scalar MAX_POOL_2D and AVERAGE_POOL_2D: the oracle for `Pool2DKernel`.
///
/// As in TFLite, window positions outside the image are skipped (not treated as zeros), so an
/// average divides by the number of positions inside; then the activation range is applied.
enum ReferencePooling {
    static func maxPool(
        geometry g: WindowGeometry, input: UnsafePointer<Float>, activation: FusedActivation,
        output: UnsafeMutablePointer<Float>
    ) {
        pool(g, input, activation, output) { values in values.max() ?? -.greatestFiniteMagnitude }
    }

    static func averagePool(
        geometry g: WindowGeometry, input: UnsafePointer<Float>, activation: FusedActivation,
        output: UnsafeMutablePointer<Float>
    ) {
        pool(g, input, activation, output) { values in
            var sum: Float = 0
            for v in values { sum += v }
            return sum / Float(values.count)
        }
    }

    private static func pool(
        _ g: WindowGeometry, _ input: UnsafePointer<Float>, _ activation: FusedActivation,
        _ output: UnsafeMutablePointer<Float>, _ reduce: ([Float]) -> Float
    ) {
        let (lower, upper) = activation.floatRange
        let channels = g.inputChannels
        for b in 0..<g.batch {
            for oy in 0..<g.outputHeight {
                for ox in 0..<g.outputWidth {
                    for c in 0..<channels {
                        var values = [Float]()
                        for ky in 0..<g.filterHeight {
                            let iy = oy * g.strideHeight - g.padTop + ky
                            guard iy >= 0, iy < g.inputHeight else { continue }
                            for kx in 0..<g.filterWidth {
                                let ix = ox * g.strideWidth - g.padLeft + kx
                                guard ix >= 0, ix < g.inputWidth else { continue }
                                values.append(input[((b * g.inputHeight + iy) * g.inputWidth + ix) * channels + c])
                            }
                        }
                        output[((b * g.outputHeight + oy) * g.outputWidth + ox) * channels + c] =
                            ReferenceConvolution.clamp(reduce(values), lower, upper)
                    }
                }
            }
        }
    }
}

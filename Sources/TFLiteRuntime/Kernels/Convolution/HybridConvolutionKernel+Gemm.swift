import CKernels

/// Hybrid CONV_2D and FULLY_CONNECTED on the AVX2 int16 GEMM: the quantized activations (`q − zp`,
/// int16) times the weights packed once in `prepare`, then per output `acc · (weight_scale[c] ·
/// batch_scale) + bias[c]` as the portable loops compute it.
extension HybridConvolutionKernel {
    func runConvGemm(_ node: Node, _ y: UnsafeMutablePointer<Float>) {
        guard let g = geometry else { return }
        let x = UnsafePointer(input16.pointer), zero = UnsafePointer(zeroRow.pointer)
        let mr = QuantizedIndirectGemm.mr, channels = self.channels
        let scales = UnsafePointer(batchScalePointer), pixelsPerImage = g.outputHeight * g.outputWidth
        let (lower, upper) = activation.floatRange
        let gemm = QuantizedIndirectGemm(rows: g.outputPixels, weights: packed)
        // omk_hybrid_finish as the level's vectorized (bit-identical) entry.
        let finishRow = CPUFeatures.kernels.hybrid_finish ?? omk_hybrid_finish
        // A 1x1, stride-1, unpadded convolution reads output pixel p's input pixel p.
        let pointwise = g.taps == 1 && g.outputHeight == g.inputHeight && g.outputWidth == g.inputWidth
            && g.padTop == 0 && g.padLeft == 0
        let inputChannels = g.inputChannels, oneImage = g.batch == 1
        var window = omk_q16_window(
            input: x, zero: zero, input_height: g.inputHeight, input_width: g.inputWidth, channels: g.inputChannels,
            output_height: g.outputHeight, output_width: g.outputWidth, filter_height: g.filterHeight,
            filter_width: g.filterWidth, stride_height: g.strideHeight, stride_width: g.strideWidth,
            dilation_height: g.dilationHeight, dilation_width: g.dilationWidth, pad_top: g.padTop, pad_left: g.padLeft)
        withChannelArrays { weightScale, bias in
            withUnsafePointer(to: &window) { window in
                gemm.run(
                    threads: node.threadCount,
                    rowPointers: { first, count, pointers in
                        if pointwise {
                            for r in 0..<mr { pointers[r] = x + (first + min(r, count - 1)) * inputChannels }
                            return
                        }
                        // Every tap of every pixel of the tile, in C (a closure per tap cost more than the GEMM).
                        UnsafeMutableRawPointer(pointers).withMemoryRebound(
                            to: UnsafePointer<Int16>?.self, capacity: g.taps * mr
                        ) { omk_q16_tap_pointers(window, first, count, mr, $0) }
                    },
                    finish: { p, acc in
                        let batchScale = oneImage ? scales[0] : scales[p / pixelsPerImage]
                        finishRow(acc, channels, weightScale, batchScale, bias, lower, upper, y + p * channels)
                    })
            }
        }
    }

    func runFullyConnectedGemm(_ node: Node, _ y: UnsafeMutablePointer<Float>) {
        let x = UnsafePointer(input16.pointer), depth = self.depth, rows = batches
        let mr = QuantizedIndirectGemm.mr, channels = self.channels, activation = self.activation
        let scales = UnsafePointer(batchScalePointer)
        let gemm = QuantizedIndirectGemm(rows: rows, weights: packed)
        withChannelArrays { weightScale, bias in
            gemm.run(
                threads: node.threadCount,
                rowPointers: { first, count, pointers in
                    for r in 0..<mr { pointers[r] = x + (first + min(r, count - 1)) * depth }
                },
                finish: { row, acc in
                    let rowScale = scales[row], out = y + row * channels
                    for c in 0..<channels {
                        out[c] = activation.apply(bias[c] + Float(acc[c]) * (weightScale[c] * rowScale))
                    }
                })
        }
    }
}

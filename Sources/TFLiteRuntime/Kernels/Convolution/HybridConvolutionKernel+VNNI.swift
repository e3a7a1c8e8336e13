import CKernels

/// Hybrid CONV_2D and FULLY_CONNECTED on the 8-bit VNNI dot product (`omk_hybrid_conv_vnni`,
/// `omk_hybrid_gemm_vnni` through the kernel table): each batch quantized to int8 `q` as LiteRT does
/// and stored as the bytes `q + 128`, the int8 weights packed once by `omk_q8_pack_weights`, and
/// `acc = Σ (q + 128) · w − (128 + zero) · Σ w`, the int16 path's `Σ (q − zero) · w` exactly; then the
/// same float step (`omk_hybrid_finish`'s expression), so the outputs are bit-identical to it.
extension HybridConvolutionKernel {
    /// Packs the filter (int8, int4 unpacked, or uint8 bytes read as int8) for the VNNI GEMM.
    func packBytes(_ filter: RuntimeTensor) {
        let count = max(1, filter.elementCount)
        let wide = UnsafeMutablePointer<Int16>.allocate(capacity: count)
        let bytes = UnsafeMutablePointer<Int8>.allocate(capacity: count)
        defer {
            wide.deallocate()
            bytes.deallocate()
        }
        wide.initialize(repeating: 0, count: count)
        HybridConvolutionKernel.widenWeights(filter, into: wide)
        // Every value fits int8: int8 and uint8 bytes as they are read, int4 values in [-8, 7].
        for i in 0..<count { bytes[i] = Int8(truncatingIfNeeded: wide[i]) }
        let rowDepth = kind == .conv ? (geometry.map { $0.taps * $0.inputChannels } ?? 0) : depth
        packed8.pack(depth: rowDepth, columns: channels, from: UnsafeRawPointer(bytes), signed: true, zeroPoint: 0)
    }

    /// Quantizes each batch (image or row) to the bytes `q + 128`, its scale into `batchScalePointer`
    /// and its offset into `batchZeros`: the AVX2 quantizer, or the portable one for a batch with a NaN.
    func quantizeBytes(_ x: UnsafePointer<Float>, symmetric: Bool) {
        let out = inputBytes.pointer, zeros = batchZeros.pointer, scales = batchScalePointer, q = quantized.pointer
        let size = batchSize
        for b in 0..<batches {
            let base = b * size
            var lo: Float = 0, hi: Float = 0
            if size > 0, omk_f32_minmax_avx2(x + base, size, &lo, &hi) == 0 {
                let p = symmetric
                    ? FixedPoint.symmetricParameters(lo: lo, hi: hi) : FixedPoint.asymmetricParameters(lo: lo, hi: hi)
                scales[b] = p.scale
                if p.allZero {
                    // q = 0 with offset 0: every product is zero, as the int16 path's zeros.
                    (out + base).update(repeating: 128, count: size)
                    zeros[b] = 0
                } else {
                    omk_f32_quantize_u8_hybrid_avx2(
                        x + base, size, p.scaleInv, p.offset, symmetric ? -127 : -128, 127, out + base)
                    zeros[b] = p.offset
                }
                continue
            }
            (scales[b], zeros[b]) = Self.quantize(x + base, count: size, symmetric: symmetric, into: q + base)
            for i in base..<(base + size) { out[i] = UInt8(bitPattern: q[i]) ^ 0x80 }
        }
    }

    /// The C parameters over this node's packed weights, batch scales and offsets, and channel arrays.
    private func vnniParameters(
        rowsPerBatch: Int, weightScale: UnsafePointer<Float>, bias: UnsafePointer<Float>
    ) -> omk_hybrid_gemm_params {
        var p = omk_hybrid_gemm_params()
        p.weights = packed8.data
        p.column_sums = packed8.columnSums
        p.depth = packed8.depth
        p.columns = packed8.columns
        p.batch_scale = UnsafePointer(batchScalePointer)
        p.batch_zero = UnsafePointer(batchZeros.pointer)
        p.rows_per_batch = rowsPerBatch
        p.weight_scale = weightScale
        p.bias = bias
        (p.lower, p.upper) = activation.floatRange
        return p
    }

    func runConvVNNI(_ node: Node, _ y: UnsafeMutablePointer<Float>) {
        guard let g = geometry, let conv = CPUFeatures.kernels.hybrid_conv,
            let gemm = CPUFeatures.kernels.hybrid_gemm
        else { return }
        let x = UnsafePointer(inputBytes.pointer), channels = self.channels, depth = packed8.depth
        let split = QuantizedGemm8Split(
            rows: g.outputPixels, groups: packed8.groups, macs: g.outputPixels * channels * depth,
            threads: node.threadCount)
        // A 1x1, stride-1, unpadded convolution reads output pixel p's input pixel p: rows in place.
        let pointwise = g.taps == 1 && g.strideHeight == 1 && g.strideWidth == 1 && g.padTop == 0 && g.padLeft == 0
            && g.outputHeight == g.inputHeight && g.outputWidth == g.inputWidth
        let bytes = pointwise ? 0 : omk_q8_gemm_scratch_bytes(depth, split.rowsPerPart)
        vnniScratch.reserve(max(1, split.parts * bytes), filling: 0)
        let scratch = vnniScratch.pointer
        // `zero` and `flip` are not read: the kernel pads with each image's offset + 128.
        let im2col = omk_q8_im2col_params(
            input: x, batch: g.batch, input_height: g.inputHeight, input_width: g.inputWidth, channels: g.inputChannels,
            output_height: g.outputHeight, output_width: g.outputWidth, filter_height: g.filterHeight,
            filter_width: g.filterWidth, stride_height: g.strideHeight, stride_width: g.strideWidth,
            dilation_height: g.dilationHeight, dilation_width: g.dilationWidth, pad_top: g.padTop,
            pad_left: g.padLeft, zero: 0, flip: 0)
        let inputChannels = g.inputChannels
        withChannelArrays { weightScale, bias in
            let p = vnniParameters(rowsPerBatch: g.outputHeight * g.outputWidth, weightScale: weightScale, bias: bias)
            split.run(threads: node.threadCount) { part, r, gr in
                withUnsafePointer(to: p) { p in
                    if pointwise {
                        gemm(p, x, inputChannels, r.lowerBound, r.upperBound, gr.lowerBound, gr.upperBound, y, channels)
                        return
                    }
                    withUnsafePointer(to: im2col) { geometry in
                        conv(
                            p, geometry, r.lowerBound, r.upperBound, gr.lowerBound, gr.upperBound, y, channels,
                            scratch + part * bytes)
                    }
                }
            }
        }
    }

    func runFullyConnectedVNNI(_ node: Node, _ y: UnsafeMutablePointer<Float>) {
        guard let gemm = CPUFeatures.kernels.hybrid_gemm else { return }
        let x = UnsafePointer(inputBytes.pointer), depth = self.depth, channels = self.channels, rows = batches
        let split = QuantizedGemm8Split(
            rows: rows, groups: packed8.groups, macs: rows * channels * depth, threads: node.threadCount)
        withChannelArrays { weightScale, bias in
            let p = vnniParameters(rowsPerBatch: 1, weightScale: weightScale, bias: bias)
            split.run(threads: node.threadCount) { _, r, gr in
                withUnsafePointer(to: p) { p in
                    gemm(p, x, depth, r.lowerBound, r.upperBound, gr.lowerBound, gr.upperBound, y, channels)
                }
            }
        }
    }
}

import CKernels

/// CONV_2D and FULLY_CONNECTED on the GEMM microkernels: the int16 one (16-bit activations) and the
/// fused 8-bit one (`vpdpbusd` with AVX-512 VNNI, `vpmaddwd` on widened bytes with AVX2, the dot
/// products on aarch64), which give the same int32 accumulators as the portable loops.
extension QuantizedConvolutionKernel {
    // MARK: - CONV_2D and FULLY_CONNECTED on the int16 GEMM

    func runConvGemm(_ node: Node, out: UnsafeMutableRawPointer, type: TensorType) {
        guard let g = geometry else { return }
        let x = UnsafePointer(input16.pointer), zero = UnsafePointer(zeroRow.pointer)
        let mr = QuantizedIndirectGemm.mr, channels = outputChannels
        let gemm = QuantizedIndirectGemm(rows: g.outputPixels, weights: packedGemm)
        let stage = self.stage, zp = outputZeroPoint, lo = activationMin, hi = activationMax
        gemm.run(
            threads: node.threadCount,
            rowPointers: { first, count, pointers in
                for r in 0..<mr {
                    g.forEachTapOffset(pixel: first + min(r, count - 1)) { t, offset in
                        pointers[t * mr + r] = offset.map { x + $0 } ?? zero
                    }
                }
            },
            finish: { p, acc in
                stage.store(
                    acc, count: channels, zeroPoint: zp, lo: lo, hi: hi, to: out, type: type, offset: p * channels)
            })
    }

    func runFullyConnectedGemm(_ node: Node, out: UnsafeMutableRawPointer, type: TensorType) {
        let x = UnsafePointer(input16.pointer), depth = self.depth, rows = self.rows
        let mr = QuantizedIndirectGemm.mr, channels = outputChannels
        let gemm = QuantizedIndirectGemm(rows: rows, weights: packedGemm)
        let stage = self.stage, zp = outputZeroPoint, lo = activationMin, hi = activationMax
        gemm.run(
            threads: node.threadCount,
            rowPointers: { first, count, pointers in
                for r in 0..<mr { pointers[r] = x + (first + min(r, count - 1)) * depth }
            },
            finish: { row, acc in
                stage.store(
                    acc, count: channels, zeroPoint: zp, lo: lo, hi: hi, to: out, type: type, offset: row * channels)
            })
    }

    // MARK: - CONV_2D and FULLY_CONNECTED on the fused 8-bit GEMM

    /// Packs the filter's bytes for the fused 8-bit GEMM and folds its column term into the bias of the output
    /// stage: `−(128 + zx) · Σ w` for int8, `−zx · Σ (w − zw)` for uint8 (see `QuantizedPackedWeights8`).
    func packBytes(_ filter: RuntimeTensor) {
        guard let w = filter.data else { return }
        let signed = filter.type == .int8
        switch kind {
        case .conv:
            guard let g = geometry else { return }
            packedGemm8.pack(
                depth: g.taps * g.inputChannels, columns: outputChannels, from: w, signed: signed,
                zeroPoint: filterZeroPoint)
        case .fullyConnected:
            packedGemm8.pack(depth: depth, columns: outputChannels, from: w, signed: signed, zeroPoint: filterZeroPoint)
        case .depthwise:
            return
        }
        let sums = packedGemm8.columnSums, zx = signed ? inputZeroPoint &+ 128 : inputZeroPoint
        let folded = (0..<outputChannels).map { c in
            Int64(Int32(truncatingIfNeeded: biases[c]) &- zx &* sums[c])
        }
        stage.set(biases: folded, multipliers: multipliers, roundings: roundings)
    }

    /// The fused GEMM's parameters: the packed weights, flipped activations for int8 or the row term's
    /// multiplier `128 − zw` for uint8, and the output stage.
    private var gemm8Parameters: omk_q8_gemm_params {
        let w = packedGemm8
        var p = omk_q8_gemm_params()
        p.weights = w.data
        p.depth = w.depth
        p.columns = w.columns
        p.flip_activations = w.signed ? 1 : 0
        p.row_scale = w.signed ? 0 : 128 &- filterZeroPoint
        stage.fill(&p, zeroPoint: outputZeroPoint, lo: activationMin, hi: activationMax)
        return p
    }

    /// Scratch for each part of `split` (`bytes` each, from `gemmScratch`, kept between runs).
    private func scratch(_ split: QuantizedGemm8Split, bytes: Int) -> UnsafeMutablePointer<UInt8> {
        gemmScratch.reserve(max(1, split.parts * bytes), filling: 0)
        return gemmScratch.pointer
    }

    func runConvGemm8(_ node: Node, input x: UnsafePointer<UInt8>, out: UnsafeMutableRawPointer) {
        guard let g = geometry else { return }
        let p = gemm8Parameters, channels = outputChannels, o = out.assumingMemoryBound(to: UInt8.self)
        let split = QuantizedGemm8Split(
            rows: g.outputPixels, groups: packedGemm8.groups, macs: g.outputPixels * channels * p.depth,
            threads: node.threadCount)
        // A 1x1 window with stride 1 reads output pixel p's own input pixel (no padding is possible):
        // the input is the GEMM's left operand as it is (uint8 rows need no scratch).
        let pointwise = g.taps == 1 && g.strideHeight == 1 && g.strideWidth == 1 && g.padTop == 0 && g.padLeft == 0
            && g.outputHeight == g.inputHeight && g.outputWidth == g.inputWidth
        let bytes = pointwise && p.flip_activations == 0 ? 0 : omk_q8_gemm_scratch_bytes(p.depth, split.rowsPerPart)
        let scratch = self.scratch(split, bytes: bytes)
        if pointwise {
            let c = g.inputChannels
            split.run(threads: node.threadCount) { part, r, gr in
                withUnsafePointer(to: p) { p in
                    omk_q8_gemm(
                        p, x + r.lowerBound * c, c, r.count, gr.lowerBound, gr.upperBound, o + r.lowerBound * channels,
                        channels, scratch + part * bytes)
                }
            }
            return
        }
        // A padding tap reads bytes equal to the input zero point, as in LiteRT's im2col.
        let im2col = omk_q8_im2col_params(
            input: x, batch: g.batch, input_height: g.inputHeight, input_width: g.inputWidth, channels: g.inputChannels,
            output_height: g.outputHeight, output_width: g.outputWidth, filter_height: g.filterHeight,
            filter_width: g.filterWidth, stride_height: g.strideHeight, stride_width: g.strideWidth,
            dilation_height: g.dilationHeight, dilation_width: g.dilationWidth, pad_top: g.padTop,
            pad_left: g.padLeft, zero: UInt8(truncatingIfNeeded: inputZeroPoint), flip: p.flip_activations)
        split.run(threads: node.threadCount) { part, r, gr in
            withUnsafePointer(to: p) { p in
                withUnsafePointer(to: im2col) { geometry in
                    omk_q8_conv(
                        p, geometry, r.lowerBound, r.upperBound, gr.lowerBound, gr.upperBound, o, channels,
                        scratch + part * bytes)
                }
            }
        }
    }

    func runFullyConnectedGemm8(_ node: Node, input x: UnsafePointer<UInt8>, out: UnsafeMutableRawPointer) {
        let p = gemm8Parameters, depth = self.depth, channels = outputChannels
        let o = out.assumingMemoryBound(to: UInt8.self)
        let split = QuantizedGemm8Split(
            rows: rows, groups: packedGemm8.groups, macs: rows * channels * depth, threads: node.threadCount)
        let bytes = p.flip_activations == 0 ? 0 : omk_q8_gemm_scratch_bytes(depth, split.rowsPerPart)
        let scratch = self.scratch(split, bytes: bytes)
        split.run(threads: node.threadCount) { part, r, gr in
            withUnsafePointer(to: p) { p in
                omk_q8_gemm(
                    p, x + r.lowerBound * depth, depth, r.count, gr.lowerBound, gr.upperBound,
                    o + r.lowerBound * channels, channels, scratch + part * bytes)
            }
        }
    }
}

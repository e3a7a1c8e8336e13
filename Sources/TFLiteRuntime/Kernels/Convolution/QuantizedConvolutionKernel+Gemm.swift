import CKernels

/// CONV_2D and FULLY_CONNECTED on the GEMM microkernels: the int16 `vpmaddwd` one (AVX2) and the 8-bit
/// `vpdpbusd` one (AVX-512 VNNI), which give the same int32 accumulators as the portable loops.
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

    // MARK: - CONV_2D and FULLY_CONNECTED on the 8-bit VNNI GEMM

    /// Packs the filter's bytes for the VNNI GEMM and folds its column term `−zx · Σ (w − zw)` into the
    /// bias of the output stage.
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
        let sums = packedGemm8.columnSums, zx = inputZeroPoint
        let folded = (0..<outputChannels).map { c in
            Int64(Int32(truncatingIfNeeded: biases[c]) &- zx &* sums[c])
        }
        stage.set(biases: folded, multipliers: multipliers, roundings: roundings)
    }

    /// The fused GEMM's parameters: the packed weights, the row term's multiplier (`−128` for int8,
    /// whose weights are packed as `w + 128`; `128 − zw` for uint8, packed as `w − 128`) and the
    /// output stage.
    private var gemm8Parameters: omk_q8_gemm_params {
        let w = packedGemm8
        var p = omk_q8_gemm_params()
        p.weights = w.data
        p.depth = w.depth
        p.columns = w.columns
        p.weights_unsigned = w.weightsUnsigned ? 1 : 0
        p.row_scale = w.weightsUnsigned ? -128 : 128 &- filterZeroPoint
        stage.fill(&p, zeroPoint: outputZeroPoint, lo: activationMin, hi: activationMax)
        return p
    }

    func runConvGemm8(_ node: Node, input x: UnsafePointer<UInt8>, out: UnsafeMutableRawPointer) {
        guard let g = geometry else { return }
        let p = gemm8Parameters, channels = outputChannels, o = out.assumingMemoryBound(to: UInt8.self)
        let rows = g.outputPixels, groups = packedGemm8.groups, macs = rows * channels * p.depth
        // A 1x1 window with stride 1 reads output pixel p's own input pixel (no padding is possible):
        // the input is the GEMM's left operand as it is.
        let pointwise = g.taps == 1 && g.strideHeight == 1 && g.strideWidth == 1 && g.padTop == 0 && g.padLeft == 0
            && g.outputHeight == g.inputHeight && g.outputWidth == g.inputWidth
        if pointwise {
            let c = g.inputChannels
            QuantizedGemm8.forEachPart(rows: rows, groups: groups, macs: macs, threads: node.threadCount) { r, gr in
                withUnsafePointer(to: p) { p in
                    omk_q8_gemm_vnni(
                        p, x + r.lowerBound * c, c, r.count, gr.lowerBound, gr.upperBound, o + r.lowerBound * channels,
                        channels)
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
            pad_left: g.padLeft, zero: UInt8(truncatingIfNeeded: inputZeroPoint))
        let scratch = QuantizedGemm8.im2colRows * ((p.depth + 3) / 4 * 4) + 64
        QuantizedGemm8.forEachPart(rows: rows, groups: groups, macs: macs, threads: node.threadCount) { r, gr in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scratch) { buffer in
                withUnsafePointer(to: p) { p in
                    withUnsafePointer(to: im2col) { geometry in
                        omk_q8_conv_vnni(
                            p, geometry, r.lowerBound, r.upperBound, gr.lowerBound, gr.upperBound, o, channels,
                            buffer.baseAddress)
                    }
                }
            }
        }
    }

    func runFullyConnectedGemm8(_ node: Node, input x: UnsafePointer<UInt8>, out: UnsafeMutableRawPointer) {
        let p = gemm8Parameters, depth = self.depth, channels = outputChannels
        let o = out.assumingMemoryBound(to: UInt8.self)
        QuantizedGemm8.forEachPart(
            rows: rows, groups: packedGemm8.groups, macs: rows * channels * depth, threads: node.threadCount
        ) { r, gr in
            withUnsafePointer(to: p) { p in
                omk_q8_gemm_vnni(
                    p, x + r.lowerBound * depth, depth, r.count, gr.lowerBound, gr.upperBound,
                    o + r.lowerBound * channels, channels)
            }
        }
    }
}

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
                taps: g.taps, depth: g.inputChannels, columns: outputChannels, from: w, signed: signed,
                zeroPoint: filterZeroPoint)
        case .fullyConnected:
            packedGemm8.pack(
                taps: 1, depth: depth, columns: outputChannels, from: w, signed: signed, zeroPoint: filterZeroPoint)
        case .depthwise:
            return
        }
        let sums = packedGemm8.columnSums, zx = inputZeroPoint
        let folded = (0..<outputChannels).map { c in
            Int64(Int32(truncatingIfNeeded: biases[c]) &- zx &* sums[c])
        }
        stage.set(biases: folded, multipliers: multipliers, roundings: roundings)
    }

    /// The multiplier of a row's activation sum on the VNNI path: `−128` for int8 (weights packed as
    /// `w + 128`), `128 − zw` for uint8 (weights packed as `w − 128`).
    private var rowScale: Int32 { packedGemm8.weightsUnsigned ? -128 : 128 &- filterZeroPoint }

    func runConvGemm8(_ node: Node, input x: UnsafePointer<UInt8>, out: UnsafeMutableRawPointer, type: TensorType) {
        guard let g = geometry else { return }
        let zero = UnsafePointer(zeroRow8.pointer)
        let mr = QuantizedIndirectGemm8.mr, channels = outputChannels
        let gemm = QuantizedIndirectGemm8(rows: g.outputPixels, weights: packedGemm8, rowScale: rowScale)
        let stage = self.stage, zp = outputZeroPoint, lo = activationMin, hi = activationMax
        // A 1x1 window with stride 1 reads output pixel p's own input pixel (no padding is possible).
        let pointwise = g.taps == 1 && g.strideHeight == 1 && g.strideWidth == 1 && g.padTop == 0 && g.padLeft == 0
            && g.outputHeight == g.inputHeight && g.outputWidth == g.inputWidth
        let inputChannels = g.inputChannels
        gemm.run(
            threads: node.threadCount,
            rowPointers: { first, count, pointers in
                if pointwise {
                    for r in 0..<count { pointers[r] = x + (first + r) * inputChannels }
                    return
                }
                // A padding tap reads bytes equal to the input zero point, as in LiteRT's im2col.
                for r in 0..<count {
                    g.forEachTapOffset(pixel: first + r) { t, offset in
                        pointers[t * mr + r] = offset.map { x + $0 } ?? zero
                    }
                }
            },
            finish: { p, acc in
                stage.store(
                    acc, count: channels, zeroPoint: zp, lo: lo, hi: hi, to: out, type: type, offset: p * channels)
            })
    }

    func runFullyConnectedGemm8(
        _ node: Node, input x: UnsafePointer<UInt8>, out: UnsafeMutableRawPointer, type: TensorType
    ) {
        let depth = self.depth, channels = outputChannels
        let gemm = QuantizedIndirectGemm8(rows: rows, weights: packedGemm8, rowScale: rowScale)
        let stage = self.stage, zp = outputZeroPoint, lo = activationMin, hi = activationMax
        gemm.run(
            threads: node.threadCount,
            rowPointers: { first, count, pointers in
                for r in 0..<count { pointers[r] = x + (first + r) * depth }
            },
            finish: { row, acc in
                stage.store(
                    acc, count: channels, zeroPoint: zp, lo: lo, hi: hi, to: out, type: type, offset: row * channels)
            })
    }
}

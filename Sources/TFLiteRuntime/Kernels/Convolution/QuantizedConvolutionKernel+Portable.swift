import CKernels

/// The portable loops of the 8-bit and 16-bit convolutions, on widened int16 values: CONV_2D with
/// groups, DEPTHWISE_CONV_2D and FULLY_CONNECTED (int64 accumulators for 16-bit activations), each
/// finishing with LiteRT's output stage. They run what the C kernels do not take (shapes, types,
/// CPUs without them).
extension QuantizedConvolutionKernel {
    // MARK: - Output stage

    @inline(__always)
    func finish(_ acc: Int32, _ c: Int) -> Int32 {
        FixedPoint.requantize(
            acc &+ Int32(truncatingIfNeeded: biases[c]), multipliers[c], zeroPoint: outputZeroPoint,
            lo: activationMin, hi: activationMax, rounding: roundings[c])
    }

    @inline(__always)
    func finishWide(_ acc: Int64, _ c: Int) -> Int32 {
        let v = FixedPoint.multiply(acc &+ biases[c], by: multipliers[c]) &+ outputZeroPoint
        return min(max(v, activationMin), activationMax)
    }

    // MARK: - CONV_2D

    func runConv(_ node: Node, out: UnsafeMutableRawPointer, type: TensorType) {
        guard let g = geometry else { return }
        let x = UnsafePointer(input16.pointer), w = UnsafePointer(weights.pointer)
        let channels = outputChannels, groupChannels = g.inputChannels / groups
        let perGroup = channels / groups, taps = g.taps
        let wide = self.wide
        let pixels = g.outputPixels
        let work = max(1, channels * taps * groupChannels)
        parallelFor(pixels, threads: node.threadCount, minimumPerThread: max(1, 65_536 / work)) { range in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(1, channels)) { rowBuffer in
                guard let row = rowBuffer.baseAddress else { return }
                for p in range {
                    let (b, ys, xs, iy0, ix0) = g.window(ofPixel: p)
                    let image = x + b * g.inputHeight * g.inputWidth * g.inputChannels
                    for c in 0..<channels {
                        let group = c / perGroup
                        let wc = w + c * taps * groupChannels
                        if wide {
                            var acc: Int64 = 0
                            for ky in ys {
                                let line = image + (iy0 + ky * g.dilationHeight) * g.inputWidth * g.inputChannels
                                for kx in xs {
                                    let px = line + (ix0 + kx * g.dilationWidth) * g.inputChannels + group * groupChannels
                                    acc &+= QuantizedDot.dot64(px, wc + (ky * g.filterWidth + kx) * groupChannels, groupChannels)
                                }
                            }
                            row[c] = finishWide(acc, c)
                        } else {
                            var acc: Int32 = 0
                            for ky in ys {
                                let line = image + (iy0 + ky * g.dilationHeight) * g.inputWidth * g.inputChannels
                                for kx in xs {
                                    let px = line + (ix0 + kx * g.dilationWidth) * g.inputChannels + group * groupChannels
                                    acc &+= QuantizedDot.dot(px, wc + (ky * g.filterWidth + kx) * groupChannels, groupChannels)
                                }
                            }
                            row[c] = finish(acc, c)
                        }
                    }
                    QuantizedOperand.store(row, count: channels, to: out, type: type, offset: p * channels)
                }
            }
        }
    }

    // MARK: - DEPTHWISE_CONV_2D

    func runDepthwise(_ node: Node, out: UnsafeMutableRawPointer, type: TensorType) {
        guard let g = geometry else { return }
        let x = UnsafePointer(input16.pointer), w = UnsafePointer(weights.pointer)
        let channels = outputChannels, m = depthMultiplier, inC = g.inputChannels
        let wide = self.wide
        let pixels = g.outputPixels
        let work = max(1, channels * g.taps)
        if !wide {
            runDepthwise32(node, g: g, out: out, type: type)
            return
        }
        parallelFor(pixels, threads: node.threadCount, minimumPerThread: max(1, 65_536 / work)) { range in
            withUnsafeTemporaryAllocation(of: Int64.self, capacity: max(1, channels)) { accBuffer in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(1, channels)) { rowBuffer in
                    guard let acc = accBuffer.baseAddress, let row = rowBuffer.baseAddress else { return }
                    for p in range {
                        let (b, ys, xs, iy0, ix0) = g.window(ofPixel: p)
                        let image = x + b * g.inputHeight * g.inputWidth * inC
                        acc.update(repeating: 0, count: channels)
                        for ky in ys {
                            let line = image + (iy0 + ky * g.dilationHeight) * g.inputWidth * inC
                            for kx in xs {
                                let px = line + (ix0 + kx * g.dilationWidth) * inC
                                let wt = w + (ky * g.filterWidth + kx) * channels
                                if m == 1 {
                                    for c in 0..<channels { acc[c] &+= Int64(Int32(px[c]) &* Int32(wt[c])) }
                                } else {
                                    for ic in 0..<inC {
                                        let xv = Int32(px[ic])
                                        for j in 0..<m { acc[ic * m + j] &+= Int64(xv &* Int32(wt[ic * m + j])) }
                                    }
                                }
                            }
                        }
                        if wide {
                            for c in 0..<channels { row[c] = finishWide(acc[c], c) }
                        } else {
                            for c in 0..<channels { row[c] = finish(Int32(truncatingIfNeeded: acc[c]), c) }
                        }
                        QuantizedOperand.store(row, count: channels, to: out, type: type, offset: p * channels)
                    }
                }
            }
        }
    }

    /// DEPTHWISE_CONV_2D with int32 accumulators (8-bit activations): the products of widened
    /// values fit, and the channel loop vectorizes.
    func runDepthwise32(_ node: Node, g: WindowGeometry, out: UnsafeMutableRawPointer, type: TensorType) {
        let x = UnsafePointer(input16.pointer), w = UnsafePointer(weights.pointer)
        let channels = outputChannels, m = depthMultiplier, inC = g.inputChannels
        let stage = self.stage, zp = outputZeroPoint, lo = activationMin, hi = activationMax
        let work = max(1, channels * g.taps)
        let useAVX2 = CPUFeatures.int16Depthwise && m == 1
        // Pixels whose accumulators go through the output stage together (see `tiledPixels`).
        let group = tiledPixels, groupStage = group > 1 ? tiledStage : stage
        parallelFor(g.outputPixels, threads: node.threadCount, minimumPerThread: max(1, 65_536 / work)) { range in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(1, channels * group)) { accBuffer in
                guard let accs = accBuffer.baseAddress else { return }
                var start = range.lowerBound
                while start < range.upperBound {
                    let n = min(group, range.upperBound - start)
                    for p in start..<(start + n) {
                        let acc = accs + (p - start) * channels
                        let (b, ys, xs, iy0, ix0) = g.window(ofPixel: p)
                        let image = x + b * g.inputHeight * g.inputWidth * inC
                        if useAVX2 {
                            if ys.isEmpty || xs.isEmpty {
                                acc.update(repeating: 0, count: channels)
                            } else {
                                let firstX = image + (iy0 + ys.lowerBound * g.dilationHeight) * g.inputWidth * inC
                                    + (ix0 + xs.lowerBound * g.dilationWidth) * inC
                                let firstW = w + (ys.lowerBound * g.filterWidth + xs.lowerBound) * channels
                                omk_q16_dwconv_pixel(
                                    firstX, firstW, channels, ys.count, xs.count, g.dilationWidth * inC,
                                    g.dilationHeight * g.inputWidth * inC, g.filterWidth * channels, acc)
                            }
                            continue
                        }
                        acc.update(repeating: 0, count: channels)
                        for ky in ys {
                            let line = image + (iy0 + ky * g.dilationHeight) * g.inputWidth * inC
                            for kx in xs {
                                let px = line + (ix0 + kx * g.dilationWidth) * inC
                                let wt = w + (ky * g.filterWidth + kx) * channels
                                if m == 1 {
                                    for c in 0..<channels { acc[c] &+= Int32(px[c]) &* Int32(wt[c]) }
                                } else {
                                    for ic in 0..<inC {
                                        let xv = Int32(px[ic])
                                        for j in 0..<m { acc[ic * m + j] &+= xv &* Int32(wt[ic * m + j]) }
                                    }
                                }
                            }
                        }
                    }
                    groupStage.store(
                        accs, count: n * channels, zeroPoint: zp, lo: lo, hi: hi, to: out, type: type,
                        offset: start * channels)
                    start += n
                }
            }
        }
    }

    // MARK: - FULLY_CONNECTED

    func runFullyConnected(_ node: Node, out: UnsafeMutableRawPointer, type: TensorType) {
        let x = UnsafePointer(input16.pointer), w = UnsafePointer(weights.pointer)
        let channels = outputChannels, depth = self.depth, wide = self.wide
        let work = max(1, channels * depth)
        parallelFor(rows, threads: node.threadCount, minimumPerThread: max(1, 65_536 / work)) { range in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(1, channels)) { rowBuffer in
                guard let row = rowBuffer.baseAddress else { return }
                for r in range {
                    let xr = x + r * depth
                    for c in 0..<channels {
                        if wide {
                            let acc = QuantizedDot.dot64(xr, w + c * depth, depth) &+ biases[c]
                            let scaled = (Double(acc) * realScales[c]).rounded(.toNearestOrAwayFromZero)
                            let v = Int32(clamping: Int64(max(min(scaled, 4e18), -4e18))) &+ outputZeroPoint
                            row[c] = min(max(v, activationMin), activationMax)
                        } else {
                            row[c] = finish(QuantizedDot.dot(xr, w + c * depth, depth), c)
                        }
                    }
                    QuantizedOperand.store(row, count: channels, to: out, type: type, offset: r * channels)
                }
            }
        }
    }
}

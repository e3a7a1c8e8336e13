/// The non-GEMM loops of `TransposeConvKernel`: initialising the output with the bias, gathering the
/// column buffer into output pixels ("col2im" in gather form), and the final activation clamp.
enum TransposeConvGather {
    typealias Vector = SIMD8<Float>

    /// Sets every pixel of one output image to the bias (or zero).
    static func fill(_ g: TransposeConvGeometry, output: UnsafeMutablePointer<Float>, bias: UnsafePointer<Float>?, threads: Int) {
        let channels = g.outputChannels
        let pixels = g.outputHeight * g.outputWidth
        parallelFor(pixels, threads: threads, minimumPerThread: max(1, 65_536 / max(channels, 1))) { range in
            for p in range {
                let out = output + p * channels
                if let bias { out.update(from: bias, count: channels) } else { out.update(repeating: 0, count: channels) }
            }
        }
    }

    /// Adds the contributions of input rows `band` (held in `column`, `[(row - band.lowerBound) * W + x]
    /// [tap][O]`) to the output rows they reach. Each output pixel gathers the taps `(ky, kx)` with
    /// `oy + padTop - ky` a multiple of the stride, i.e. `iy = (oy + padTop - ky) / strideHeight`, in
    /// LiteRT's col2im order: input pixels row by row (`iy`, then `ix`, ascending), so taps descending.
    static func accumulate(
        _ g: TransposeConvGeometry, band: Range<Int>, column: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
        threads: Int
    ) {
        let first = max(0, band.lowerBound * g.strideHeight - g.padTop)
        let last = min(g.outputHeight, (band.upperBound - 1) * g.strideHeight - g.padTop + g.filterHeight)
        guard first < last else { return }
        let channels = g.outputChannels
        let pixelStride = g.taps * channels
        let rowWork = max(1, g.outputWidth * channels * g.taps / max(g.strideHeight * g.strideWidth, 1))
        // The horizontal taps of every output column, in the order they are added (kx descending,
        // so ix ascending), as offsets into a band row: worked out once, not per pixel and row
        // (integer divisions cost more than the adds when the channels are few).
        var columnStart = [Int](repeating: 0, count: g.outputWidth + 1)
        var columnTaps: [Int] = []
        columnTaps.reserveCapacity(g.outputWidth * max(1, g.filterWidth / max(g.strideWidth, 1) + 1))
        for ox in 0..<g.outputWidth {
            let xOrigin = ox + g.padLeft
            var kx = lastTap(origin: xOrigin, stride: g.strideWidth, extent: g.filterWidth)
            while kx >= 0 {
                let ix = (xOrigin - kx) / g.strideWidth
                if ix >= g.inputWidth { break }
                if ix >= 0 { columnTaps.append(ix * pixelStride + kx * channels) }
                kx -= g.strideWidth
            }
            columnStart[ox + 1] = columnTaps.count
        }
        columnTaps.withUnsafeBufferPointer { taps in
            columnStart.withUnsafeBufferPointer { starts in
                guard let taps = taps.baseAddress, let starts = starts.baseAddress else { return }
                parallelFor(last - first, threads: threads, minimumPerThread: max(1, 65_536 / rowWork)) { range in
                    for row in range {
                        let oy = first + row
                        let yOrigin = oy + g.padTop
                        var ky = lastTap(origin: yOrigin, stride: g.strideHeight, extent: g.filterHeight)
                        while ky >= 0 {
                            let iy = (yOrigin - ky) / g.strideHeight
                            if iy >= band.upperBound { break }
                            if iy >= band.lowerBound {
                                // Row by row in iy, then each pixel's taps in ix order: the col2im order.
                                let bandRow = column + (iy - band.lowerBound) * g.inputWidth * pixelStride
                                    + ky * g.filterWidth * channels
                                let outRow = output + oy * g.outputWidth * channels
                                for ox in 0..<g.outputWidth {
                                    let out = outRow + ox * channels
                                    for t in starts[ox]..<starts[ox + 1] {
                                        add(bandRow + taps[t], to: out, count: channels)
                                    }
                                }
                            }
                            ky -= g.strideHeight
                        }
                    }
                }
            }
        }
    }

    /// The largest tap `k < extent` with `origin - k` a multiple of `stride` (origin ≥ 0), or -1.
    @inline(__always)
    private static func lastTap(origin: Int, stride: Int, extent: Int) -> Int {
        let first = origin % stride
        guard first < extent else { return -1 }
        return first + (extent - 1 - first) / stride * stride
    }

    /// Adds the bias (when there is one) to every pixel of the finished sums, then applies the
    /// activation range: LiteRT adds the bias after col2im, so it is the last term of every sum.
    static func finish(
        _ values: UnsafeMutablePointer<Float>, pixels: Int, channels: Int, bias: UnsafePointer<Float>?,
        lower: Float, upper: Float, threads: Int
    ) {
        if let bias {
            parallelFor(pixels, threads: threads, minimumPerThread: max(1, 65_536 / max(channels, 1))) { range in
                for p in range { add(bias, to: values + p * channels, count: channels) }
            }
        }
        if lower > -.infinity || upper < .infinity {
            clamp(values, count: pixels * channels, lower: lower, upper: upper, threads: threads)
        }
    }

    /// Applies the activation range to `count` values in place.
    static func clamp(_ values: UnsafeMutablePointer<Float>, count: Int, lower: Float, upper: Float, threads: Int) {
        parallelFor(count, threads: threads, minimumPerThread: 1 << 16) { range in
            var i = range.lowerBound
            while i + 8 <= range.upperBound {
                let v = UnsafeRawPointer(values + i).loadUnaligned(as: Vector.self)
                UnsafeMutableRawPointer(values + i).storeBytes(of: GemmMicrokernel.clamp(v, lower, upper), as: Vector.self)
                i += 8
            }
            while i < range.upperBound {
                values[i] = ReferenceConvolution.clamp(values[i], lower, upper)
                i += 1
            }
        }
    }

    @inline(__always)
    private static func add(_ source: UnsafePointer<Float>, to target: UnsafeMutablePointer<Float>, count: Int) {
        var c = 0
        while c + 8 <= count {
            let sum = UnsafeRawPointer(target + c).loadUnaligned(as: Vector.self)
                + UnsafeRawPointer(source + c).loadUnaligned(as: Vector.self)
            UnsafeMutableRawPointer(target + c).storeBytes(of: sum, as: Vector.self)
            c += 8
        }
        while c < count {
            target[c] += source[c]
            c += 1
        }
    }
}

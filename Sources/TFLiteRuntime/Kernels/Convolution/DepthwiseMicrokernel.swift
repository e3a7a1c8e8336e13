import CKernels

/// The inner loops of DEPTHWISE_CONV_2D: one output row at a time, vectorised across channels.
///
/// The filter `[1, KH, KW, C * M]` is already laid out tap-major with channels contiguous, which is
/// exactly what these loops stream, so it is read in place rather than repacked. For each output
/// pixel only the taps inside the image are visited (the valid tap range is computed per row and
/// per column), so padding costs nothing and no bounds checks remain in the channel loops.
enum DepthwiseMicrokernel {
    typealias Vector = SIMD8<Float>

    /// Output row `oy` of one image for depth multiplier 1.
    ///
    /// `image` is the batch's input, `bias` holds `C` values, `row` receives `outputWidth * C` values.
    @inline(__always)
    static func rowMultiplier1(
        _ g: WindowGeometry, oy: Int, image: UnsafePointer<Float>, filter: UnsafePointer<Float>,
        bias: UnsafePointer<Float>, lower: Float, upper: Float, row: UnsafeMutablePointer<Float>
    ) {
        let channels = g.inputChannels
        let rowsValid = g.validFilterRows(outputRow: oy)
        let iy0 = oy * g.strideHeight - g.padTop
        let inputRowStride = g.inputWidth * channels
        let filterRowStride = g.filterWidth * channels
        let xStep = g.dilationWidth * channels
        let useAVX2 = CPUFeatures.floatDepthwise
        // The output columns whose windows lie wholly inside the image in width: one C call for all.
        let interior = useAVX2 && !rowsValid.isEmpty ? g.interiorOutputColumns : 0..<0
        var ox = 0
        while ox < g.outputWidth {
            if ox == interior.lowerBound, !interior.isEmpty {
                let firstX = image + (iy0 + rowsValid.lowerBound * g.dilationHeight) * inputRowStride
                    + (ox * g.strideWidth - g.padLeft) * channels
                let firstW = filter + rowsValid.lowerBound * filterRowStride
                omk_f32_dwconv_run(
                    firstX, firstW, channels, rowsValid.count, g.filterWidth, xStep, g.dilationHeight * inputRowStride,
                    filterRowStride, g.strideWidth * channels, interior.count, bias, lower, upper, row + ox * channels)
                ox = interior.upperBound
                continue
            }
            let columnsValid = g.validFilterColumns(outputColumn: ox)
            let ix0 = ox * g.strideWidth - g.padLeft
            let out = row + ox * channels
            defer { ox += 1 }
            guard !rowsValid.isEmpty, !columnsValid.isEmpty else {
                // The window misses the image entirely (only with extreme padding): bias alone.
                for c in 0..<channels { out[c] = ReferenceConvolution.clamp(bias[c], lower, upper) }
                continue
            }
            // Input and filter addresses of the first valid tap; later taps are fixed strides away.
            let firstX = image + (iy0 + rowsValid.lowerBound * g.dilationHeight) * inputRowStride
                + (ix0 + columnsValid.lowerBound * g.dilationWidth) * channels
            let firstW = filter + rowsValid.lowerBound * filterRowStride + columnsValid.lowerBound * channels
            let xRowStep = g.dilationHeight * inputRowStride
            let tapRows = rowsValid.count, tapColumns = columnsValid.count
            if useAVX2 {
                omk_f32_dwconv_pixel(
                    firstX, firstW, channels, tapRows, tapColumns, xStep, xRowStep, filterRowStride, bias, lower,
                    upper, out)
                continue
            }
            var c = 0
            while c + 16 <= channels {
                var acc0 = load(bias + c), acc1 = load(bias + c + 8)
                var xr = firstX + c, wr = firstW + c
                for _ in 0..<tapRows {
                    var xp = xr, wp = wr
                    for _ in 0..<tapColumns {
                        acc0 += load(xp) * load(wp)
                        acc1 += load(xp + 8) * load(wp + 8)
                        xp += xStep
                        wp += channels
                    }
                    xr += xRowStep
                    wr += filterRowStride
                }
                store(GemmMicrokernel.clamp(acc0, lower, upper), out + c)
                store(GemmMicrokernel.clamp(acc1, lower, upper), out + c + 8)
                c += 16
            }
            if c + 8 <= channels {
                var acc = load(bias + c)
                var xr = firstX + c, wr = firstW + c
                for _ in 0..<tapRows {
                    var xp = xr, wp = wr
                    for _ in 0..<tapColumns {
                        acc += load(xp) * load(wp)
                        xp += xStep
                        wp += channels
                    }
                    xr += xRowStep
                    wr += filterRowStride
                }
                store(GemmMicrokernel.clamp(acc, lower, upper), out + c)
                c += 8
            }
            while c < channels {
                var acc = bias[c]
                var xr = firstX + c, wr = firstW + c
                for _ in 0..<tapRows {
                    var xp = xr, wp = wr
                    for _ in 0..<tapColumns {
                        acc += xp.pointee * wp.pointee
                        xp += xStep
                        wp += channels
                    }
                    xr += xRowStep
                    wr += filterRowStride
                }
                out[c] = ReferenceConvolution.clamp(acc, lower, upper)
                c += 1
            }
        }
    }

    /// Output row `oy` of one image for a depth multiplier above 1 (rare in practice): accumulates
    /// into `scratch` (`C * multiplier` floats) tap by tap, then adds bias and clamps.
    static func rowMultiplierN(
        _ g: WindowGeometry, multiplier: Int, oy: Int, image: UnsafePointer<Float>, filter: UnsafePointer<Float>,
        bias: UnsafePointer<Float>, lower: Float, upper: Float, row: UnsafeMutablePointer<Float>,
        scratch: UnsafeMutablePointer<Float>
    ) {
        let channels = g.inputChannels
        let outputChannels = channels * multiplier
        let rowsValid = g.validFilterRows(outputRow: oy)
        let iy0 = oy * g.strideHeight - g.padTop
        for ox in 0..<g.outputWidth {
            let columnsValid = g.validFilterColumns(outputColumn: ox)
            let ix0 = ox * g.strideWidth - g.padLeft
            scratch.update(from: bias, count: outputChannels)
            for ky in rowsValid {
                let iy = iy0 + ky * g.dilationHeight
                for kx in columnsValid {
                    let ix = ix0 + kx * g.dilationWidth
                    let xp = image + (iy * g.inputWidth + ix) * channels
                    let wp = filter + (ky * g.filterWidth + kx) * outputChannels
                    for ic in 0..<channels {
                        let x = xp[ic]
                        let base = ic * multiplier
                        for m in 0..<multiplier { scratch[base + m] += x * wp[base + m] }
                    }
                }
            }
            let out = row + ox * outputChannels
            for oc in 0..<outputChannels { out[oc] = ReferenceConvolution.clamp(scratch[oc], lower, upper) }
        }
    }

    @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> Vector {
        UnsafeRawPointer(p).loadUnaligned(as: Vector.self)
    }

    @inline(__always)
    static func load(_ p: UnsafeMutablePointer<Float>) -> Vector {
        UnsafeRawPointer(p).loadUnaligned(as: Vector.self)
    }

    @inline(__always)
    static func store(_ v: Vector, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: Vector.self)
    }
}

/// RESIZE_BILINEAR on quantized tensors, on the raw integers (LiteRT keeps the input's scale and
/// zero point; the output must have the same), with the arithmetic of the kernel LiteRT's
/// optimized resolver runs for each type:
///
/// - uint8 (`optimized_ops::ResizeBilinear` → `ResizeBilinearGenericSmallChannel`): float
///   positions and weights, `q00·w00 + q01·w01 + q10·w10 + q11·w11 + 0.5` summed left to right
///   in float, truncated. (LiteRT's special 8x half-pixel upsampler for depth % 8 == 0 is not
///   reproduced; such nodes throw.)
/// - int8 and int16 (`reference_ops::ResizeBilinearInteger`): positions in 1/1024 units and a
///   64-bit 20-fractional-bit sum rounded half away from zero.
enum QuantizedResizeBilinear {
    /// Throws for the parameter combinations whose LiteRT path is not reproduced.
    static func check(_ node: Node, type: TensorType, inputShape: [Int], height: Int, width: Int, alignCorners: Bool, halfPixel: Bool)
        throws
    {
        guard type == .uint8, !alignCorners, halfPixel, inputShape[3] % 8 == 0, inputShape[1] > 0, inputShape[2] > 0
        else { return }
        let scale = height / inputShape[1]
        if height >= 8, width >= 8, inputShape[1] * scale == height, inputShape[2] * scale == width, scale == 8 {
            throw node.error("uint8 8x half-pixel upsampling (LiteRT's ResizeBilinear888Uint8) is not supported")
        }
    }

    static func resizeUInt8(
        _ input: UnsafePointer<UInt8>, inputShape: [Int], _ output: UnsafeMutablePointer<UInt8>, height: Int, width: Int,
        alignCorners: Bool, halfPixel: Bool, threads: Int = 1
    ) {
        let (batches, inH, inW, depth) = (inputShape[0], inputShape[1], inputShape[2], inputShape[3])
        guard width > 0, height > 0, depth > 0 else { return }
        let hScale = ResizeBilinearKernel.scale(inH, height, alignCorners)
        let wScale = ResizeBilinearKernel.scale(inW, width, alignCorners)
        // Each output column's input columns and position, once (they were recomputed per pixel).
        var columns = [(x0: Int, x1: Int, fx: Float)]()
        columns.reserveCapacity(width)
        for ox in 0..<width {
            let (ix, x0, x1) = interpolation(ox, wScale, halfPixel, inW)
            columns.append((x0, x1, ix - Float(x0)))
        }
        columns.withUnsafeBufferPointer { columns in
            // Output rows are independent: split over the threads.
            parallelFor(batches * height, threads: threads, minimumPerThread: max(1, 32_768 / max(1, width * depth))) {
                rows in
                for row in rows {
                    let b = row / height, oy = row % height
                    let (iy, y0, y1) = interpolation(oy, hScale, halfPixel, inH)
                    let fy = iy - Float(y0)
                    var out = output + row * width * depth
                    let top = input + (b * inH + y0) * inW * depth, bottom = input + (b * inH + y1) * inW * depth
                    for column in columns {
                        let fx = column.fx
                        let w0 = (1 - fy) * (1 - fx), w1 = (1 - fy) * fx, w2 = fy * (1 - fx), w3 = fy * fx
                        let p0 = top + column.x0 * depth, p1 = top + column.x1 * depth
                        let p2 = bottom + column.x0 * depth, p3 = bottom + column.x1 * depth
                        for d in 0..<depth {
                            var v = Float(p0[d]) * w0
                            v = v + Float(p1[d]) * w1
                            v = v + Float(p2[d]) * w2
                            v = v + Float(p3[d]) * w3
                            v = v + 0.5
                            out[d] = v >= 255 ? 255 : (v > 0 ? UInt8(v) : 0)
                        }
                        out += depth
                    }
                }
            }
        }
    }

    /// LiteRT's float `ComputeInterpolationValues`: the position and its floor/ceil bounds.
    @inline(__always)
    static func interpolation(_ o: Int, _ scale: Float, _ halfPixel: Bool, _ size: Int) -> (Float, Int, Int) {
        let position = halfPixel ? (Float(o) + 0.5) * scale - 0.5 : Float(o) * scale
        let lower = max(Int(position.rounded(.down)), 0)
        let upper = min(Int(position.rounded(.up)), size - 1)
        return (position, min(lower, size - 1), max(upper, 0))
    }

    static func resizeInteger<T: QuantizedElement>(
        _ input: UnsafePointer<T>, inputShape: [Int], _ output: UnsafeMutablePointer<T>, height: Int, width: Int,
        alignCorners: Bool, halfPixel: Bool
    ) {
        let (batches, inH, inW, depth) = (inputShape[0], inputShape[1], inputShape[2], inputShape[3])
        var hScale = ((1 << 10) * inH + height / 2) / height
        var wScale = ((1 << 10) * inW + width / 2) / width
        if alignCorners && height > 1 { hScale = ((1 << 10) * (inH - 1) + (height - 1) / 2) / (height - 1) }
        if alignCorners && width > 1 { wScale = ((1 << 10) * (inW - 1) + (width - 1) / 2) / (width - 1) }
        func bounds(_ v: Int, _ scale: Int, _ size: Int) -> (Int, Int, Int) {
            let scaled = halfPixel ? v * scale + scale / 2 - (1 << 9) : v * scale
            return (scaled, max(scaled / (1 << 10), 0), min((scaled + (1 << 10) - 1) / (1 << 10), size - 1))
        }
        for b in 0..<batches {
            for oy in 0..<height {
                let (iy, y0, y1) = bounds(oy, hScale, inH)
                let dy = Int64(iy - (1 << 10) * y0)
                for ox in 0..<width {
                    let (ix, x0, x1) = bounds(ox, wScale, inW)
                    let dx = Int64(ix - (1 << 10) * x0)
                    let p00 = input + ((b * inH + y0) * inW + x0) * depth
                    let p10 = input + ((b * inH + y1) * inW + x0) * depth
                    let p01 = input + ((b * inH + y0) * inW + x1) * depth
                    let p11 = input + ((b * inH + y1) * inW + x1) * depth
                    let o = output + ((b * height + oy) * width + ox) * depth
                    // 8-bit values with offsets in [-512, 1024]: the weights' magnitudes add up to at most
                    // 2048², so every partial sum fits in int32, and wrapping 32-bit arithmetic gives
                    // LiteRT's int64 result and vectorizes (the checked int64 loop took 9% of movenet).
                    if T.bitWidth == 8, (-512...1024).contains(dy), (-512...1024).contains(dx) {
                        let w00 = Int32((1 << 10) - dy) * Int32((1 << 10) - dx), w10 = Int32(dy) * Int32((1 << 10) - dx)
                        let w01 = Int32((1 << 10) - dy) * Int32(dx), w11 = Int32(dy) * Int32(dx)
                        for c in 0..<depth {
                            let sum =
                                Int32(p00[c]) &* w00 &+ Int32(p10[c]) &* w10 &+ Int32(p01[c]) &* w01 &+ Int32(p11[c]) &* w11
                            let round: Int32 = sum > 0 ? (1 << 19) : -(1 << 19)
                            o[c] = T(truncatingIfNeeded: (sum &+ round) / (1 << 20))
                        }
                        continue
                    }
                    for c in 0..<depth {
                        let sum =
                            Int64(p00[c]) * ((1 << 10) - dy) * ((1 << 10) - dx) + Int64(p10[c]) * dy * ((1 << 10) - dx)
                            + Int64(p01[c]) * ((1 << 10) - dy) * dx + Int64(p11[c]) * dy * dx
                        let round: Int64 = sum > 0 ? (1 << 19) : -(1 << 19)
                        o[c] = T(truncatingIfNeeded: (sum + round) / (1 << 20))
                    }
                }
            }
        }
    }
}

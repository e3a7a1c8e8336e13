/// Plain scalar quantized CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and TRANSPOSE_CONV: the oracle
/// for `QuantizedConvolutionKernel` and `QuantizedTransposeConvKernel`, written like LiteRT's
/// reference kernels (`reference_integer_ops`), on stored integer values held as Int32.
///
/// `rounding` is the output stage's rounding (`FixedPoint.GemmRounding`); `wide` selects 64-bit
/// accumulation with the 64-bit `MultiplyByQuantizedMultiplier` (16x8 kernels).
enum ReferenceQuantizedConvolution {
    struct Output {
        var multipliers: [FixedPoint.Multiplier]
        var zeroPoint: Int32
        var min: Int32
        var max: Int32
        var rounding: FixedPoint.GemmRounding = .reference
        var wide = false

        func finish(_ acc: Int64, bias: Int64, channel c: Int) -> Int32 {
            let v: Int32
            if wide {
                v = FixedPoint.multiply(acc + bias, by: multipliers[c]) + zeroPoint
            } else {
                v = FixedPoint.multiply(
                    Int32(truncatingIfNeeded: acc + bias), by: multipliers[c], rounding: rounding) + zeroPoint
            }
            return Swift.min(Swift.max(v, min), max)
        }
    }

    /// CONV_2D; input `[N, H, W, C]`, filter `[O, KH, KW, C / groups]`.
    static func conv(
        input x: [Int32], _ g: WindowGeometry, inputZeroPoint zx: Int32, filter w: [Int32], filterZeroPoint zw: Int32,
        outputChannels o: Int, bias: [Int64], output: Output
    ) -> [Int32] {
        let groupChannels = w.count / (o * g.filterHeight * g.filterWidth)
        let perGroup = o / (g.inputChannels / groupChannels)
        var y = [Int32]()
        for b in 0..<g.batch {
            for oy in 0..<g.outputHeight {
                for ox in 0..<g.outputWidth {
                    for oc in 0..<o {
                        let group = oc / perGroup
                        var acc: Int64 = 0
                        for ky in 0..<g.filterHeight {
                            for kx in 0..<g.filterWidth {
                                let iy = oy * g.strideHeight - g.padTop + ky * g.dilationHeight
                                let ix = ox * g.strideWidth - g.padLeft + kx * g.dilationWidth
                                guard iy >= 0, iy < g.inputHeight, ix >= 0, ix < g.inputWidth else { continue }
                                for ic in 0..<groupChannels {
                                    let xv = x[((b * g.inputHeight + iy) * g.inputWidth + ix) * g.inputChannels
                                        + group * groupChannels + ic]
                                    let wv = w[((oc * g.filterHeight + ky) * g.filterWidth + kx) * groupChannels + ic]
                                    acc += Int64(xv - zx) * Int64(wv - zw)
                                }
                            }
                        }
                        y.append(output.finish(acc, bias: bias[oc], channel: oc))
                    }
                }
            }
        }
        return y
    }

    /// DEPTHWISE_CONV_2D; filter `[1, KH, KW, C * M]`.
    static func depthwise(
        input x: [Int32], _ g: WindowGeometry, inputZeroPoint zx: Int32, filter w: [Int32], filterZeroPoint zw: Int32,
        multiplier m: Int, bias: [Int64], output: Output
    ) -> [Int32] {
        let o = g.inputChannels * m
        var y = [Int32]()
        for b in 0..<g.batch {
            for oy in 0..<g.outputHeight {
                for ox in 0..<g.outputWidth {
                    for ic in 0..<g.inputChannels {
                        for j in 0..<m {
                            let oc = ic * m + j
                            var acc: Int64 = 0
                            for ky in 0..<g.filterHeight {
                                for kx in 0..<g.filterWidth {
                                    let iy = oy * g.strideHeight - g.padTop + ky * g.dilationHeight
                                    let ix = ox * g.strideWidth - g.padLeft + kx * g.dilationWidth
                                    guard iy >= 0, iy < g.inputHeight, ix >= 0, ix < g.inputWidth else { continue }
                                    let xv = x[((b * g.inputHeight + iy) * g.inputWidth + ix) * g.inputChannels + ic]
                                    let wv = w[(ky * g.filterWidth + kx) * o + oc]
                                    acc += Int64(xv - zx) * Int64(wv - zw)
                                }
                            }
                            y.append(output.finish(acc, bias: bias[oc], channel: oc))
                        }
                    }
                }
            }
        }
        return y
    }

    /// FULLY_CONNECTED; input `[rows, depth]`, weights `[O, depth]`.
    static func fullyConnected(
        input x: [Int32], rows: Int, depth: Int, inputZeroPoint zx: Int32, weights w: [Int32],
        filterZeroPoint zw: Int32, outputs o: Int, bias: [Int64], output: Output
    ) -> [Int32] {
        var y = [Int32]()
        for r in 0..<rows {
            for oc in 0..<o {
                var acc: Int64 = 0
                for i in 0..<depth { acc += Int64(x[r * depth + i] - zx) * Int64(w[oc * depth + i] - zw) }
                y.append(output.finish(acc, bias: bias[oc], channel: oc))
            }
        }
        return y
    }

    /// TRANSPOSE_CONV; filter `[O, KH, KW, C]`. `roundingForChannel` gives each channel's rounding.
    static func transposeConv(
        input x: [Int32], _ g: TransposeConvGeometry, inputZeroPoint zx: Int32, filter w: [Int32],
        filterZeroPoint zw: Int32, bias: [Int64], output: Output,
        roundingForChannel: (Int) -> FixedPoint.GemmRounding
    ) -> [Int32] {
        let o = g.outputChannels
        var acc = [Int64](repeating: 0, count: g.batch * g.outputHeight * g.outputWidth * o)
        for b in 0..<g.batch {
            for iy in 0..<g.inputHeight {
                for ix in 0..<g.inputWidth {
                    for ky in 0..<g.filterHeight {
                        for kx in 0..<g.filterWidth {
                            let oy = iy * g.strideHeight - g.padTop + ky, ox = ix * g.strideWidth - g.padLeft + kx
                            guard oy >= 0, oy < g.outputHeight, ox >= 0, ox < g.outputWidth else { continue }
                            for oc in 0..<o {
                                for ic in 0..<g.inputChannels {
                                    let xv = x[((b * g.inputHeight + iy) * g.inputWidth + ix) * g.inputChannels + ic]
                                    let wv = w[((oc * g.filterHeight + ky) * g.filterWidth + kx) * g.inputChannels + ic]
                                    acc[((b * g.outputHeight + oy) * g.outputWidth + ox) * o + oc] +=
                                        Int64(xv - zx) * Int64(wv - zw)
                                }
                            }
                        }
                    }
                }
            }
        }
        return acc.enumerated().map { i, a in
            var stage = output
            stage.rounding = roundingForChannel(i % o)
            return stage.finish(a, bias: bias[i % o], channel: i % o)
        }
    }
}

/// Plain scalar quantized MAX_POOL_2D and AVERAGE_POOL_2D (uint8, int8, int16 values held as Int32):
/// the oracle for `QuantizedPool2DKernel`, written like LiteRT's reference kernels. Window positions
/// in the padding are skipped; the average rounds `(sum ± count/2) / count` with C truncation.
enum ReferenceQuantizedPooling {
    static func pool(_ x: [Int32], _ g: WindowGeometry, average: Bool, min lo: Int32, max hi: Int32) -> [Int32] {
        var y = [Int32]()
        for b in 0..<g.batch {
            for oy in 0..<g.outputHeight {
                for ox in 0..<g.outputWidth {
                    for c in 0..<g.inputChannels {
                        var sum: Int32 = 0, count: Int32 = 0, best = Int32.min
                        for ky in 0..<g.filterHeight {
                            for kx in 0..<g.filterWidth {
                                let iy = oy * g.strideHeight - g.padTop + ky, ix = ox * g.strideWidth - g.padLeft + kx
                                guard iy >= 0, iy < g.inputHeight, ix >= 0, ix < g.inputWidth else { continue }
                                let v = x[((b * g.inputHeight + iy) * g.inputWidth + ix) * g.inputChannels + c]
                                sum += v
                                count += 1
                                best = Swift.max(best, v)
                            }
                        }
                        var v = best
                        if average {
                            v = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count
                        }
                        y.append(Swift.min(Swift.max(v, lo), hi))
                    }
                }
            }
        }
        return y
    }
}

/// MediaPipe's MaxPoolingWithArgmax2D and MaxUnpooling2D (hair segmentation), float32 NHWC.
///
/// Options: the raw `TfLitePoolParams` bytes (`MediaPipePoolOptions`): padding, strides, filter size
/// and a clamping activation (none, RELU, RELU_N1_TO_1, RELU6).
///
/// MaxPoolingWithArgmax2D: input `[N, H, W, C]` → values and indices, both float32 `[N, OH, OW, C]`.
/// The index of a maximum is its position in the window, `y * filter_w + x`, stored as a float plus
/// 0.1 so that truncating it back to an integer is exact; the first maximum in row-major window order
/// wins, a window with no value above -FLT_MAX (only -inf or NaN) reports -FLT_MAX at index 0, and
/// values are clamped to the activation's range, which is ±FLT_MAX without one (+inf → FLT_MAX).
///
/// MaxUnpooling2D: values and indices `[N, H, W, C]` → `[N, H * filter_h, W * filter_w, C]`, zero
/// except where an index puts a value (later pixels overwrite earlier ones). An index that lands
/// outside the output throws (MediaPipe would write out of bounds).
final class MaxPoolingWithArgmaxKernel: OpKernel {
    private let options: MediaPipePoolOptions
    private var padTop = 0
    private var padLeft = 0

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 2)
        options = try MediaPipePoolOptions(node)
    }

    func prepare(_ node: Node) throws {
        let input = try node.input(0)
        try node.expect(input, type: .float32, role: "input")
        guard input.rank == 4 else { throw node.error("input must have rank 4 (NHWC), has shape \(input.shape)") }
        let o = options
        func size(_ n: Int, _ filter: Int, _ stride: Int) -> Int {
            switch o.padding {
            case .same: return (n + stride - 1) / stride
            case .valid: return max(0, (n - filter + stride) / stride)
            case .unknown: return 0
            }
        }
        let outH = size(input.dim(1), o.filterHeight, o.strideHeight)
        let outW = size(input.dim(2), o.filterWidth, o.strideWidth)
        padTop = max(0, ((outH - 1) * o.strideHeight + o.filterHeight - input.dim(1)) / 2)
        padLeft = max(0, ((outW - 1) * o.strideWidth + o.filterWidth - input.dim(2)) / 2)
        let shape = [input.dim(0), outH, outW, input.dim(3)]
        try node.setOutput(0, type: .float32, shape: shape)
        try node.setOutput(1, type: .float32, shape: shape)
    }

    func eval(_ node: Node) throws {
        let input = try node.input(0)
        let x = try node.elementwiseBuffer(input, Float.self, role: "input")
        let values = try node.elementwiseBuffer(try node.output(0), Float.self, role: "output")
        let indices = try node.elementwiseBuffer(try node.output(1), Float.self, role: "indices")
        let out = try node.output(0)
        let (batches, h, w, c) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (out.dim(1), out.dim(2))
        let o = options
        // TFLite's activation range for "none" and RELU is finite (±FLT_MAX), so +inf comes out as FLT_MAX.
        let range = o.activation.floatRange
        let lo = max(range.lower, -.greatestFiniteMagnitude), hi = min(range.upper, .greatestFiniteMagnitude)
        guard let xp = x.baseAddress, let vp = values.baseAddress, let ip = indices.baseAddress else { return }
        var dst = 0
        for b in 0..<batches {
            for oy in 0..<outH {
                let y0 = oy * o.strideHeight - padTop
                let fy0 = max(0, -y0)
                let fy1 = min(o.filterHeight, h - y0)
                for ox in 0..<outW {
                    let x0 = ox * o.strideWidth - padLeft
                    let fx0 = max(0, -x0)
                    let fx1 = min(o.filterWidth, w - x0)
                    for ch in 0..<c {
                        var best = -Float.greatestFiniteMagnitude
                        var bestIndex = 0
                        if fy0 < fy1 && fx0 < fx1 {
                            for fy in fy0..<fy1 {
                                let row = ((b * h + y0 + fy) * w + x0) * c + ch
                                for fx in fx0..<fx1 where xp[row + fx * c] > best {
                                    best = xp[row + fx * c]
                                    bestIndex = fy * o.filterWidth + fx
                                }
                            }
                        }
                        vp[dst] = min(max(best, lo), hi)
                        ip[dst] = Float(bestIndex) + 0.1
                        dst += 1
                    }
                }
            }
        }
    }
}

final class MaxUnpoolingKernel: OpKernel {
    private let options: MediaPipePoolOptions
    private var padTop = 0
    private var padLeft = 0

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        options = try MediaPipePoolOptions(node)
    }

    func prepare(_ node: Node) throws {
        let input = try node.input(0)
        let indices = try node.input(1)
        try node.expect(input, type: .float32, role: "input")
        try node.expect(indices, type: .float32, role: "indices")
        guard input.rank == 4, indices.rank == 4 else {
            throw node.error("input and indices must have rank 4, have shapes \(input.shape) and \(indices.shape)")
        }
        guard indices.shape == input.shape else {
            throw node.error("indices shape \(indices.shape) differs from input shape \(input.shape)")
        }
        let o = options
        let (outH, o1) = input.dim(1).multipliedReportingOverflow(by: o.filterHeight)
        let (outW, o2) = input.dim(2).multipliedReportingOverflow(by: o.filterWidth)
        guard !o1, !o2 else { throw node.error("output size overflows") }
        padTop = max(0, ((input.dim(1) - 1) * o.strideHeight + o.filterHeight - outH) / 2)
        padLeft = max(0, ((input.dim(2) - 1) * o.strideWidth + o.filterWidth - outW) / 2)
        try node.setOutput(0, type: .float32, shape: [input.dim(0), outH, outW, input.dim(3)])
    }

    func eval(_ node: Node) throws {
        let input = try node.input(0)
        let out = try node.output(0)
        let x = try node.elementwiseBuffer(input, Float.self, role: "input")
        let idx = try node.elementwiseBuffer(try node.input(1), Float.self, role: "indices")
        let y = try node.elementwiseBuffer(out, Float.self, role: "output")
        guard let xp = x.baseAddress, let kp = idx.baseAddress, let yp = y.baseAddress else { return }
        yp.update(repeating: 0, count: y.count)
        let (batches, h, w, c) = (input.dim(0), input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (out.dim(1), out.dim(2))
        let o = options
        var src = 0
        for b in 0..<batches {
            for iy in 0..<h {
                for ix in 0..<w {
                    for ch in 0..<c {
                        let value = kp[src]
                        // C truncates the float index toward zero; values beyond Int32 are garbage there.
                        guard value >= -2_147_483_648, value < 2_147_483_648 else {
                            throw node.error("index \(value) at element \(src) is not a valid window position")
                        }
                        let k = Int(value)
                        let oy = iy * o.strideHeight - padTop + k / o.filterWidth
                        let ox = ix * o.strideWidth - padLeft + k % o.filterWidth
                        guard oy >= 0, oy < outH, ox >= 0, ox < outW else {
                            throw node.error("index \(value) at element \(src) points outside the output")
                        }
                        yp[((b * outH + oy) * outW + ox) * c + ch] = xp[src]
                        src += 1
                    }
                }
            }
        }
    }
}

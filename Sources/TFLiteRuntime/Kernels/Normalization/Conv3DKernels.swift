/// CONV_3D and CONV_3D_TRANSPOSE on float32 NDHWC tensors.
///
/// CONV_3D inputs: input `[N, D, H, W, Cin]`, filter `[KD, KH, KW, Cin, Cout]`, optional bias
/// `[Cout]`. CONV_3D_TRANSPOSE inputs: output shape (int32 `[5]`), filter `[KD, KH, KW, Cout, Cin]`,
/// input `[N, D, H, W, Cin]`, optional bias `[Cout]`. Options (`Conv3DOptions`): padding, strides
/// and dilations per axis, fused activation. The transposed form derives its padding from the given
/// output size, as the forward convolution of that size would pad. Like LiteRT, only clamping
/// activations act (tanh and sign bit leave the values as they are).
final class Conv3DKernel: OpKernel {
    private let transposed: Bool
    private let p: Conv3DParameters
    private var inputIndex: Int { transposed ? 2 : 0 }
    private var biasIndex: Int { 3 - (transposed ? 0 : 1) }

    /// Sizes per spatial axis (depth, height, width).
    private var inSize = [0, 0, 0]
    private var outSize = [0, 0, 0]
    private var kernel = [0, 0, 0]
    private var pad = [0, 0, 0]
    private var batch = 0
    private var inChannels = 0
    private var outChannels = 0
    private var stride: [Int] { [p.strideDepth, p.strideHeight, p.strideWidth] }
    private var dilation: [Int] { [p.dilationDepth, p.dilationHeight, p.dilationWidth] }

    init(_ node: Node, transposed: Bool) throws {
        self.transposed = transposed
        try node.expect(inputs: transposed ? 3 : 2, transposed ? 4 : 3, outputs: 1)
        p = try Conv3DParameters(node)
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(inputIndex)
        let w = try node.input(1)
        try node.expect(x, type: .float32, role: "input")
        try node.expect(w, type: .float32, role: "filter")
        guard x.rank == 5, w.rank == 5 else {
            throw node.error("input \(x.shape) and filter \(w.shape) must have rank 5")
        }
        try FloatOperand.checkExtent(x.shape, node: node, role: "input")
        try FloatOperand.checkExtent(w.shape, node: node, role: "filter")
        guard stride.allSatisfy({ $0 > 0 }), dilation.allSatisfy({ $0 > 0 }) else {
            throw node.error("strides \(stride) and dilations \(dilation) must be positive")
        }
        batch = x.dim(0)
        inChannels = x.dim(4)
        kernel = [w.dim(0), w.dim(1), w.dim(2)]
        guard kernel.allSatisfy({ $0 > 0 }) else { throw node.error("filter window \(w.shape) is empty") }
        outChannels = transposed ? w.dim(3) : w.dim(4)
        guard (transposed ? w.dim(4) : w.dim(3)) == inChannels else {
            throw node.error("input has \(inChannels) channels, filter \(w.shape) expects otherwise")
        }
        if let b = node.optionalInput(biasIndex) {
            try node.expect(b, type: .float32, role: "bias")
            guard b.elementCount == outChannels else {
                throw node.error("bias has \(b.elementCount) values for \(outChannels) output channels")
            }
        }
        inSize = [x.dim(1), x.dim(2), x.dim(3)]
        if transposed {
            let shapeTensor = try node.input(0)
            try node.expect(shapeTensor, type: .int32, role: "output shape")
            guard shapeTensor.rank == 1, shapeTensor.elementCount == 5 else {
                throw node.error("output shape must be 5 values, has shape \(shapeTensor.shape)")
            }
            guard node.knowsValues(of: shapeTensor) else {
                node.markOutputsDynamic()
                return
            }
            let dims = try shapeTensor.intValues()
            guard dims.count == 5, dims[0] == batch, dims[4] == outChannels, dims[1...3].allSatisfy({ $0 >= 0 }) else {
                throw node.error("output shape \(dims) does not fit input \(x.shape) and filter \(w.shape)")
            }
            outSize = [dims[1], dims[2], dims[3]]
            for a in 0..<3 {
                let forward = p.padding.outputSize(
                    input: outSize[a], filter: kernel[a], stride: stride[a], dilation: dilation[a])
                pad[a] = p.padding.paddingBefore(
                    input: outSize[a], filter: kernel[a], stride: stride[a], dilation: dilation[a], output: forward)
                // LiteRT refuses an output size whose forward convolution would not give the input's.
                guard forward == inSize[a] else {
                    throw node.error("output shape \(dims) does not convolve back to input \(x.shape)")
                }
            }
        } else {
            for a in 0..<3 {
                outSize[a] = max(
                    0,
                    p.padding.outputSize(input: inSize[a], filter: kernel[a], stride: stride[a], dilation: dilation[a]))
                pad[a] = p.padding.paddingBefore(
                    input: inSize[a], filter: kernel[a], stride: stride[a], dilation: dilation[a], output: outSize[a])
            }
        }
        let shape = [batch] + outSize + [outChannels]
        try FloatOperand.checkExtent(shape, node: node, role: "output")
        try node.setOutput(0, type: .float32, shape: shape)
    }

    func eval(_ node: Node) throws {
        let x = UnsafePointer(try FloatOperand.base(try node.input(inputIndex), node: node, role: "input"))
        let w = UnsafePointer(try FloatOperand.base(try node.input(1), node: node, role: "filter"))
        let y = try FloatOperand.base(try node.output(0), node: node, role: "output")
        var bias = [Float](repeating: 0, count: outChannels)
        if let b = node.optionalInput(biasIndex) {
            bias = Array(try FloatOperand.read(b, node: node, role: "bias").prefix(outChannels))
        }
        let (lower, upper) = p.activation.floatRange
        let outPixels = outSize[0] * outSize[1] * outSize[2]
        let inPixels = inSize[0] * inSize[1] * inSize[2]
        let total = batch * outPixels * outChannels
        if transposed {
            for i in 0..<total { y[i] = 0 }
            scatter(x, w, y, inPixels: inPixels, outPixels: outPixels)
            for i in 0..<total { y[i] = min(max(y[i] + bias[i % outChannels], lower), upper) }
        } else {
            gather(x, w, y, bias, inPixels: inPixels, outPixels: outPixels, lower: lower, upper: upper)
        }
    }

    private func gather(
        _ x: UnsafePointer<Float>, _ w: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ bias: [Float],
        inPixels: Int, outPixels: Int, lower: Float, upper: Float
    ) {
        let cin = inChannels
        let cout = outChannels
        var acc = [Float](repeating: 0, count: cout)
        for b in 0..<batch {
            for od in 0..<outSize[0] {
                for oh in 0..<outSize[1] {
                    for ow in 0..<outSize[2] {
                        for o in 0..<cout { acc[o] = 0 }
                        for kd in 0..<kernel[0] {
                            let id = od * stride[0] - pad[0] + kd * dilation[0]
                            guard id >= 0, id < inSize[0] else { continue }
                            for kh in 0..<kernel[1] {
                                let ih = oh * stride[1] - pad[1] + kh * dilation[1]
                                guard ih >= 0, ih < inSize[1] else { continue }
                                for kw in 0..<kernel[2] {
                                    let iw = ow * stride[2] - pad[2] + kw * dilation[2]
                                    guard iw >= 0, iw < inSize[2] else { continue }
                                    let px = x + (b * inPixels + (id * inSize[1] + ih) * inSize[2] + iw) * cin
                                    let tap = w + ((kd * kernel[1] + kh) * kernel[2] + kw) * cin * cout
                                    for i in 0..<cin {
                                        let v = px[i]
                                        let row = tap + i * cout
                                        for o in 0..<cout { acc[o] += v * row[o] }
                                    }
                                }
                            }
                        }
                        let out = y + (b * outPixels + (od * outSize[1] + oh) * outSize[2] + ow) * cout
                        for o in 0..<cout { out[o] = min(max(acc[o] + bias[o], lower), upper) }
                    }
                }
            }
        }
    }

    private func scatter(
        _ x: UnsafePointer<Float>, _ w: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>,
        inPixels: Int, outPixels: Int
    ) {
        let cin = inChannels
        let cout = outChannels
        for b in 0..<batch {
            for id in 0..<inSize[0] {
                for ih in 0..<inSize[1] {
                    for iw in 0..<inSize[2] {
                        let px = x + (b * inPixels + (id * inSize[1] + ih) * inSize[2] + iw) * cin
                        for kd in 0..<kernel[0] {
                            let od = id * stride[0] - pad[0] + kd * dilation[0]
                            guard od >= 0, od < outSize[0] else { continue }
                            for kh in 0..<kernel[1] {
                                let oh = ih * stride[1] - pad[1] + kh * dilation[1]
                                guard oh >= 0, oh < outSize[1] else { continue }
                                for kw in 0..<kernel[2] {
                                    let ow = iw * stride[2] - pad[2] + kw * dilation[2]
                                    guard ow >= 0, ow < outSize[2] else { continue }
                                    let out = y + (b * outPixels + (od * outSize[1] + oh) * outSize[2] + ow) * cout
                                    let tap = w + ((kd * kernel[1] + kh) * kernel[2] + kw) * cout * cin
                                    for o in 0..<cout {
                                        let row = tap + o * cin
                                        var sum: Float = 0
                                        for i in 0..<cin { sum += px[i] * row[i] }
                                        out[o] += sum
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

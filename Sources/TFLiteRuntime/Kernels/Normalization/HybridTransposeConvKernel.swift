/// Dynamic-range ("hybrid") TRANSPOSE_CONV: float32 input and output, constant int8 filter
/// `[O, KH, KW, C]` with symmetric per-tensor or per-channel scales, optional float32 bias `[O]`.
///
/// As LiteRT: each image (batch item) is quantized to int8 asymmetrically at run time
/// (`AsymmetricQuantizeFloats`), `Σ w · (q − zp)` accumulates in int32 for every output pixel and
/// channel, and the output is `acc · (image_scale · filter_scale[o]) + bias[o]`, then the fused
/// activation. Options: `TransposeConvOptions` (padding, strides, activation).
final class HybridTransposeConvKernel: OpKernel {
    private let parameters: TransposeConvParameters
    private var geometry: TransposeConvGeometry?
    private var weights: [Int32] = []
    private var filterScales: [Float] = []
    private var bias: [Float] = []
    private var quantized: [Int8] = []
    private var accumulators: [Int32] = []

    init(_ node: Node) throws {
        try node.expect(inputs: 3, 4, outputs: 1)
        parameters = try TransposeConvParameters(node)
    }

    func prepare(_ node: Node) throws {
        let shapeTensor = try node.input(0)
        let filter = try node.input(1)
        let input = try node.input(2)
        try node.expect(input, type: .float32, role: "input")
        try node.expect(filter, type: .int8, role: "filter")
        try node.expect(shapeTensor, type: .int32, role: "output shape")
        guard input.rank == 4, filter.rank == 4 else {
            throw node.error("input \(input.shape) and filter \(filter.shape) must have rank 4")
        }
        try FloatOperand.checkExtent(input.shape, node: node, role: "input")
        try FloatOperand.checkExtent(filter.shape, node: node, role: "filter")
        guard QuantizedOperand.isReadableConstant(filter) else { throw node.error("the int8 filter must be constant") }
        guard input.dim(3) == filter.dim(3) else {
            throw node.error("input has \(input.dim(3)) channels, filter expects \(filter.dim(3))")
        }
        guard filter.dim(1) > 0, filter.dim(2) > 0 else { throw node.error("filter window \(filter.shape) is empty") }
        guard parameters.strideHeight > 0, parameters.strideWidth > 0 else {
            throw node.error("strides must be positive, are \(parameters.strideHeight)x\(parameters.strideWidth)")
        }
        let channels = filter.dim(0)
        let scales = try QuantizedOperand.scales(filter, node: node, role: "filter", allowZero: true)
        guard scales.count == 1 || scales.count == channels else {
            throw node.error("filter has \(scales.count) scales for \(channels) output channels")
        }
        filterScales = scales.count == 1 ? [Float](repeating: scales[0], count: channels) : scales
        if let b = node.optionalInput(3) {
            try node.expect(b, type: .float32, role: "bias")
            guard b.elementCount == channels else {
                throw node.error("bias has \(b.elementCount) values for \(channels) output channels")
            }
        }
        weights = try node.elementwiseBuffer(filter, Int8.self, role: "filter").map { Int32($0) }
        guard shapeTensor.rank == 1, shapeTensor.elementCount == 4 else {
            throw node.error("output shape must be 4 values, has shape \(shapeTensor.shape)")
        }
        guard node.knowsValues(of: shapeTensor) else {
            node.markOutputsDynamic()
            return
        }
        let dims = try shapeTensor.intValues()
        guard dims.count == 4, dims[0] == input.dim(0), dims[3] == channels, dims[1] >= 0, dims[2] >= 0 else {
            throw node.error("output shape \(dims) does not fit input \(input.shape) and filter \(filter.shape)")
        }
        let g = TransposeConvGeometry.builtin(
            input: input.shape, filter: filter.shape, outputHeight: dims[1], outputWidth: dims[2],
            strideHeight: parameters.strideHeight, strideWidth: parameters.strideWidth, padding: parameters.padding)
        let p = parameters
        let forwardHeight = p.padding.outputSize(
            input: dims[1], filter: g.filterHeight, stride: p.strideHeight, dilation: 1)
        let forwardWidth = p.padding.outputSize(
            input: dims[2], filter: g.filterWidth, stride: p.strideWidth, dilation: 1)
        // LiteRT refuses an output size whose forward convolution would not give the input's.
        guard forwardHeight == g.inputHeight, forwardWidth == g.inputWidth else {
            throw node.error("output shape \(dims) does not convolve back to input \(input.shape)")
        }
        let outputShape = [g.batch, g.outputHeight, g.outputWidth, g.outputChannels]
        try FloatOperand.checkExtent(outputShape, node: node, role: "output")
        try node.setOutput(0, type: .float32, shape: outputShape)
        geometry = g
        quantized = [Int8](repeating: 0, count: max(1, g.inputHeight * g.inputWidth * g.inputChannels))
        accumulators = [Int32](repeating: 0, count: max(1, g.outputHeight * g.outputWidth * g.outputChannels))
    }

    func eval(_ node: Node) throws {
        guard let g = geometry else { throw node.error("was not prepared") }
        let x = UnsafePointer(try FloatOperand.base(try node.input(2), node: node, role: "input"))
        let y = try FloatOperand.base(try node.output(0), node: node, role: "output")
        if let b = node.optionalInput(3) {
            bias = Array(try FloatOperand.read(b, node: node, role: "bias").prefix(g.outputChannels))
        } else {
            bias = [Float](repeating: 0, count: g.outputChannels)
        }
        let (lower, upper) = parameters.activation.floatRange
        let imageSize = g.inputHeight * g.inputWidth * g.inputChannels
        let outputSize = g.outputHeight * g.outputWidth * g.outputChannels
        let c = g.inputChannels
        let o = g.outputChannels
        weights.withUnsafeBufferPointer { w in
            quantized.withUnsafeMutableBufferPointer { qb in
                accumulators.withUnsafeMutableBufferPointer { acc in
                    guard let q = qb.baseAddress else { return }
                    for b in 0..<g.batch {
                        let (scale, zero) = FixedPoint.asymmetricQuantize(x + b * imageSize, count: imageSize, into: q)
                        for i in 0..<outputSize { acc[i] = 0 }
                        for iy in 0..<g.inputHeight {
                            for ix in 0..<g.inputWidth {
                                let pixel = (iy * g.inputWidth + ix) * c
                                for ky in 0..<g.filterHeight {
                                    let oy = iy * g.strideHeight - g.padTop + ky
                                    guard oy >= 0, oy < g.outputHeight else { continue }
                                    for kx in 0..<g.filterWidth {
                                        let ox = ix * g.strideWidth - g.padLeft + kx
                                        guard ox >= 0, ox < g.outputWidth else { continue }
                                        let target = (oy * g.outputWidth + ox) * o
                                        for oc in 0..<o {
                                            let wt = ((oc * g.filterHeight + ky) * g.filterWidth + kx) * c
                                            var sum: Int32 = 0
                                            for ic in 0..<c { sum &+= (Int32(q[pixel + ic]) &- zero) &* w[wt + ic] }
                                            acc[target + oc] &+= sum
                                        }
                                    }
                                }
                            }
                        }
                        let out = y + b * outputSize
                        for i in 0..<outputSize {
                            let oc = i % o
                            out[i] = min(max(Float(acc[i]) * (scale * filterScales[oc]) + bias[oc], lower), upper)
                        }
                    }
                }
            }
        }
    }
}

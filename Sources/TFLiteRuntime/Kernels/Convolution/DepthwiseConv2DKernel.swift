/// DEPTHWISE_CONV_2D on float32 NHWC tensors.
///
/// Inputs: input `[N, H, W, C]`, filter `[1, KH, KW, C * M]`, optional bias `[C * M]`. Options
/// (`DepthwiseConv2DOptions`): padding, strides, depth multiplier, fused activation, dilations.
///
/// Like TFLite (`ComputeDepthMultiplier`), the depth multiplier `M` is taken from the shapes (filter
/// channels / input channels) and the option field is not trusted: old converters wrote 0 or 1 there.
/// Rows of the output are split across threads; see `DepthwiseMicrokernel` for the inner loops.
final class DepthwiseConv2DKernel: OpKernel {
    private let window: ConvolutionOptions
    private var activation: FusedActivation { window.activation }

    private var geometry: WindowGeometry?
    private var multiplier = 1
    /// The bias (or zeros), copied so the loops can read it unconditionally.
    private var bias: UnsafeMutablePointer<Float>
    private var biasCapacity = 1

    init(_ node: Node) throws {
        try node.expect(inputs: 2, 3, outputs: 1)
        window = try ConvolutionOptions(node: node, layout: .depthwise)
        bias = .allocate(capacity: 1)
        bias.initialize(to: 0)
    }

    deinit { bias.deallocate() }

    func prepare(_ node: Node) throws {
        let input = try node.input(0), filter = try node.input(1)
        try node.expect(input, type: .float32, role: "input")
        try node.expect(filter, type: .float32, role: "filter")
        guard input.rank == 4 else { throw node.error("input must have rank 4 (NHWC), has shape \(input.shape)") }
        guard filter.rank == 4, filter.dim(0) == 1 else {
            throw node.error("filter must have shape [1, KH, KW, C*M], has \(filter.shape)")
        }
        try FloatOperand.checkExtent(input.shape, node: node, role: "input")
        try FloatOperand.checkExtent(filter.shape, node: node, role: "filter")
        let channels = input.dim(3), outputChannels = filter.dim(3)
        guard channels > 0, outputChannels % channels == 0 else {
            throw node.error("filter has \(outputChannels) channels, not a multiple of the input's \(channels)")
        }
        let multiplier = outputChannels / channels
        if let bias = node.optionalInput(2) {
            try node.expect(bias, type: .float32, role: "bias")
            guard bias.elementCount == outputChannels else {
                throw node.error("bias has \(bias.elementCount) values for \(outputChannels) output channels")
            }
        }
        let g = try window.geometry(node: node, inputShape: input.shape, filterHeight: filter.dim(1), filterWidth: filter.dim(2))
        try node.setOutput(0, type: .float32, shape: [g.batch, g.outputHeight, g.outputWidth, outputChannels])
        geometry = g
        self.multiplier = multiplier
        if outputChannels > biasCapacity {
            bias.deallocate()
            bias = .allocate(capacity: outputChannels)
            biasCapacity = outputChannels
        }
    }

    func eval(_ node: Node) throws {
        guard let g = geometry else { throw node.error("was not prepared") }
        let x = UnsafePointer(try FloatOperand.base(try node.input(0), node: node, role: "input"))
        let w = UnsafePointer(try FloatOperand.base(try node.input(1), node: node, role: "filter"))
        let y = try FloatOperand.base(try node.output(0), node: node, role: "output")
        let outputChannels = g.inputChannels * multiplier
        if let b = node.optionalInput(2) {
            bias.update(from: try FloatOperand.base(b, node: node, role: "bias"), count: outputChannels)
        } else {
            bias.update(repeating: 0, count: outputChannels)
        }
        let (lower, upper) = activation.floatRange
        let b = UnsafePointer(bias), multiplier = self.multiplier
        let rows = g.batch * g.outputHeight
        let imageStride = g.inputHeight * g.inputWidth * g.inputChannels
        let rowStride = g.outputWidth * outputChannels
        let rowMacs = max(1, rowStride * g.taps)
        parallelFor(rows, threads: node.threadCount, minimumPerThread: max(1, 32_768 / rowMacs)) { range in
            if multiplier == 1 {
                for r in range {
                    DepthwiseMicrokernel.rowMultiplier1(
                        g, oy: r % g.outputHeight, image: x + (r / g.outputHeight) * imageStride, filter: w,
                        bias: b, lower: lower, upper: upper, row: y + r * rowStride)
                }
            } else {
                withUnsafeTemporaryAllocation(of: Float.self, capacity: outputChannels) { scratch in
                    guard let scratch = scratch.baseAddress else { return }
                    for r in range {
                        DepthwiseMicrokernel.rowMultiplierN(
                            g, multiplier: multiplier, oy: r % g.outputHeight,
                            image: x + (r / g.outputHeight) * imageStride, filter: w, bias: b, lower: lower,
                            upper: upper, row: y + r * rowStride, scratch: scratch)
                    }
                }
            }
        }
    }
}

/// The float kernels of the reference resolver (`OperatorResolver(kernels: .reference)`), LiteRT's
/// `BUILTIN_REF` counterpart: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, AVERAGE_POOL_2D and
/// MAX_POOL_2D computed by the plain scalar loops of `Reference*` (one thread, no packing, no SIMD,
/// summed in plain index order), so a user can compare the optimized path with the plain one on
/// their own model. Every other operator, and the quantized and hybrid variants of these (whose
/// optimized paths are byte-exact with LiteRT's reference kernels), run the built-in kernels.
final class ReferenceWindowKernel: OpKernel {
    enum Kind { case conv, depthwise, fullyConnected, averagePool, maxPool }

    let kind: Kind
    private var convolution = ConvolutionOptions()
    private var pool: Pool2DParameters?
    private var geometry: WindowGeometry?
    private var outputChannels = 0
    private var groups = 1
    private var multiplier = 1
    private var batch = 0
    private var inputSize = 0

    init(_ node: Node, _ kind: Kind) throws {
        self.kind = kind
        switch kind {
        case .conv: convolution = try ConvolutionOptions(node: node, layout: .conv)
        case .depthwise: convolution = try ConvolutionOptions(node: node, layout: .depthwise)
        case .fullyConnected: convolution = try ConvolutionOptions(node: node, layout: .fullyConnected)
        case .averagePool, .maxPool: pool = try Pool2DParameters(node)
        }
    }

    /// Whether the reference resolver handles this node (float activations and weights).
    static func handles(_ node: Node, _ kind: Kind) -> Bool {
        let operands = kind == .averagePool || kind == .maxPool ? [0] : [0, 1]
        return operands.allSatisfy { node.optionalInput($0)?.type == .float32 }
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        try node.expect(x, type: .float32, role: "input")
        switch kind {
        case .conv, .depthwise:
            let w = try node.input(1)
            try node.expect(w, type: .float32, role: "filter")
            guard w.rank == 4, x.rank == 4 else { throw node.error("input and filter must have rank 4") }
            let g = try convolution.geometry(node: node, inputShape: x.shape, filterHeight: w.dim(1), filterWidth: w.dim(2))
            if kind == .conv {
                outputChannels = w.dim(0)
                guard w.dim(3) > 0, g.inputChannels % w.dim(3) == 0 else {
                    throw node.error("input channels \(g.inputChannels) are not a multiple of the filter's \(w.dim(3))")
                }
                groups = g.inputChannels / w.dim(3)
                guard groups > 0, outputChannels % groups == 0 else { throw node.error("channels do not split into groups") }
            } else {
                outputChannels = w.dim(3)
                guard g.inputChannels > 0, outputChannels % g.inputChannels == 0 else {
                    throw node.error("filter channels \(outputChannels) are not a multiple of the input's \(g.inputChannels)")
                }
                multiplier = outputChannels / g.inputChannels
            }
            try checkBias(node, count: outputChannels)
            geometry = g
            try node.setOutput(0, type: .float32, shape: [g.batch, g.outputHeight, g.outputWidth, outputChannels])
        case .fullyConnected:
            let w = try node.input(1)
            try node.expect(w, type: .float32, role: "weights")
            guard w.rank == 2, w.dim(1) > 0, x.elementCount % w.dim(1) == 0 else {
                throw node.error("weights \(w.shape) do not fit input \(x.shape)")
            }
            inputSize = w.dim(1)
            outputChannels = w.dim(0)
            batch = x.elementCount / inputSize
            try checkBias(node, count: outputChannels)
            let shape = convolution.keepNumDims ? Array(x.shape.dropLast()) + [outputChannels] : [batch, outputChannels]
            try node.setOutput(0, type: .float32, shape: shape)
        case .averagePool, .maxPool:
            guard let pool else { throw node.error("has no pooling options") }
            let g = try pool.geometry(node: node, inputShape: x.shape)
            geometry = g
            try node.setOutput(0, type: .float32, shape: [g.batch, g.outputHeight, g.outputWidth, g.inputChannels])
        }
    }

    private func checkBias(_ node: Node, count: Int) throws {
        guard let b = node.optionalInput(2) else { return }
        try node.expect(b, type: .float32, role: "bias")
        guard b.elementCount == count else { throw node.error("bias has \(b.elementCount) values for \(count) channels") }
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0).floats
        let y = try node.output(0).floats
        guard let px = x.baseAddress, let py = y.baseAddress else { return }
        let bias = node.optionalInput(2)?.floats.baseAddress
        switch kind {
        case .conv, .depthwise:
            guard let g = geometry, let pw = try node.input(1).floats.baseAddress else { return }
            if kind == .conv {
                ReferenceConvolution.conv2D(
                    geometry: g, input: px, filter: pw, bias: bias.map { UnsafePointer($0) }, outputChannels: outputChannels,
                    groups: groups, activation: convolution.activation, output: py)
            } else {
                ReferenceConvolution.depthwiseConv2D(
                    geometry: g, multiplier: multiplier, input: px, filter: pw, bias: bias.map { UnsafePointer($0) },
                    activation: convolution.activation, output: py)
            }
        case .fullyConnected:
            guard let pw = try node.input(1).floats.baseAddress else { return }
            ReferenceFullyConnected.fullyConnected(
                input: px, batch: batch, inputSize: inputSize, weights: pw, outputs: outputChannels,
                bias: bias.map { UnsafePointer($0) }, activation: convolution.activation, output: py)
        case .averagePool:
            guard let g = geometry, let pool else { return }
            ReferencePooling.averagePool(geometry: g, input: px, activation: pool.activation, output: py)
        case .maxPool:
            guard let g = geometry, let pool else { return }
            ReferencePooling.maxPool(geometry: g, input: px, activation: pool.activation, output: py)
        }
    }
}

extension OpRegistry {
    /// The reference resolver's kernels, by operator; each applies only to float nodes
    /// (`ReferenceWindowKernel.handles`), others fall back to the built-in table.
    static let referenceKernels: [BuiltinOperator: ReferenceWindowKernel.Kind] = [
        .conv2D: .conv, .depthwiseConv2D: .depthwise, .fullyConnected: .fullyConnected,
        .averagePool2D: .averagePool, .maxPool2D: .maxPool,
    ]
}

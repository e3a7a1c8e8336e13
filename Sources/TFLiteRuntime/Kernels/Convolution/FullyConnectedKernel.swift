/// FULLY_CONNECTED on float32 tensors.
///
/// Inputs: input (any shape whose element count is a multiple of `I`), weights `[O, I]`, optional
/// bias `[O]` (index 2 may be omitted). Options (`FullyConnectedOptions`): fused activation, weights
/// format (only DEFAULT), keep_num_dims. The input is read as `[elements / I, I]`; the output is
/// `[elements / I, O]`, or the input's shape with the last dimension replaced by `O` when
/// keep_num_dims is set.
///
/// Constant weights are packed once into GEMM panels; weights computed by the graph are packed on
/// every run. As in TFLite, only clamping activations take effect.
/// Sparse constant weights (unblocked CSR or 1x4 blocks, as LiteRT takes them) are expanded once by
/// `SparseWeights`.
final class FullyConnectedKernel: OpKernel {
    private let activation: FusedActivation
    private let keepNumDims: Bool
    private let packed = PackedWeights()
    private let sparseWeights = SparseWeights()
    private var packedShape: [Int]?
    private var batch = 0

    init(_ node: Node) throws {
        try node.expect(inputs: 2, 3, outputs: 1)
        let parameters = try FullyConnectedParameters(node)
        activation = parameters.activation
        let format = parameters.weightsFormat
        guard format == 0 else { throw node.error("weights format \(format) is not supported for float32") }
        keepNumDims = parameters.keepNumDims
    }

    func prepare(_ node: Node) throws {
        let input = try node.input(0), weights = try node.input(1)
        try node.expect(input, type: .float32, role: "input")
        try node.expect(weights, type: .float32, role: "weights")
        try sparseWeights.densify(weights, blockWidths: [nil, 4], node: node)
        guard weights.rank == 2 else { throw node.error("weights must have rank 2, has shape \(weights.shape)") }
        try FloatOperand.checkExtent(input.shape, node: node, role: "input")
        try FloatOperand.checkExtent(weights.shape, node: node, role: "weights")
        let outputs = weights.dim(0), inputSize = weights.dim(1)
        guard inputSize > 0 else { throw node.error("weights \(weights.shape) have no input dimension") }
        guard input.elementCount % inputSize == 0 else {
            throw node.error("input \(input.shape) does not split into rows of \(inputSize)")
        }
        if let bias = node.optionalInput(2) {
            try node.expect(bias, type: .float32, role: "bias")
            guard bias.elementCount == outputs else {
                throw node.error("bias has \(bias.elementCount) values for \(outputs) outputs")
            }
        }
        batch = input.elementCount / inputSize
        if keepNumDims {
            guard let last = input.shape.last, last == inputSize else {
                throw node.error("keep_num_dims needs the input's last dimension to be \(inputSize), input is \(input.shape)")
            }
            try node.setOutput(0, type: .float32, shape: input.shape.dropLast() + [outputs])
        } else {
            try node.setOutput(0, type: .float32, shape: [batch, outputs])
        }
        if FloatOperand.isReadableConstant(weights) {
            if packedShape != weights.shape {
                try pack(weights, node: node)
                packedShape = weights.shape
            }
        } else {
            packedShape = nil
        }
    }

    /// Constant weights are read once, when packed; the packed panels serve every run.
    func holdsOwnCopy(ofInput index: Int) -> Bool { index == 1 && packedShape != nil }

    /// Packs `W[O, I]` as `B[i, o]`.
    private func pack(_ weights: RuntimeTensor, node: Node) throws {
        let w = try FloatOperand.base(weights, node: node, role: "weights")
        let inputSize = weights.dim(1)
        if FloatOperand.isReadableConstant(weights) { packed.place(in: node.weightArena) }
        packed.pack(depth: inputSize, columns: weights.dim(0), source: w, depthStride: 1) { $0 * inputSize }
    }

    func eval(_ node: Node) throws {
        let weights = try node.input(1)
        let x = UnsafePointer(try FloatOperand.base(try node.input(0), node: node, role: "input"))
        let y = try FloatOperand.base(try node.output(0), node: node, role: "output")
        if packedShape == nil { try pack(weights, node: node) }
        packed.setBias(try node.optionalInput(2).map { UnsafePointer(try FloatOperand.base($0, node: node, role: "bias")) })
        let (lower, upper) = activation.floatRange
        let inputSize = weights.dim(1)
        let gemm = IndirectGemm(
            rows: batch, taps: 1, depth: inputSize, weights: packed, output: y, outputStride: weights.dim(0),
            lower: lower, upper: upper)
        gemm.run(threads: node.threadCount, rowPointers: IndirectGemm.denseRows(x, stride: inputSize))
    }
}

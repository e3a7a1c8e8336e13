import CKernels

/// MAX_POOL_2D and AVERAGE_POOL_2D on float32 NHWC tensors.
///
/// Options (`Pool2DOptions`): padding, strides, filter width and height, fused activation. Window
/// positions in the padding are skipped, so an average divides by the positions inside the image,
/// as in TFLite. Output rows are split across threads; each pixel is reduced across channels with
/// SIMD vectors, visiting only the window positions inside the image.
final class Pool2DKernel: OpKernel {
    /// The reduction over each window.
    enum Kind {
        case max
        case average
    }

    private let kind: Kind
    private let options: PoolOptions
    private var activation: FusedActivation { options.activation }
    private var geometry: WindowGeometry?

    init(_ node: Node, kind: Kind) throws {
        try node.expect(inputs: 1, outputs: 1)
        self.kind = kind
        options = try PoolOptions(node: node)
    }

    func prepare(_ node: Node) throws {
        let input = try node.input(0)
        try node.expect(input, type: .float32, role: "input")
        try FloatOperand.checkExtent(input.shape, node: node, role: "input")
        let g = try options.geometry(node: node, inputShape: input.shape)
        try node.setOutput(0, type: .float32, shape: [g.batch, g.outputHeight, g.outputWidth, g.inputChannels])
        geometry = g
    }

    func eval(_ node: Node) throws {
        guard let g = geometry else { throw node.error("was not prepared") }
        let x = UnsafePointer(try FloatOperand.base(try node.input(0), node: node, role: "input"))
        let y = try FloatOperand.base(try node.output(0), node: node, role: "output")
        let (lower, upper) = activation.floatRange
        let rows = g.batch * g.outputHeight
        let rowStride = g.outputWidth * g.inputChannels
        let imageStride = g.inputHeight * g.inputWidth * g.inputChannels
        let rowWork = max(1, rowStride * g.taps)
        let kind = self.kind
        parallelFor(rows, threads: node.threadCount, minimumPerThread: max(1, 65_536 / rowWork)) { range in
            for r in range {
                let image = x + (r / g.outputHeight) * imageStride
                let row = y + r * rowStride
                switch kind {
                case .max:
                    PoolingMicrokernel.maxRow(g, oy: r % g.outputHeight, image: image, lower: lower, upper: upper, row: row)
                case .average:
                    PoolingMicrokernel.averageRow(
                        g, oy: r % g.outputHeight, image: image, lower: lower, upper: upper, row: row)
                }
            }
        }
    }
}

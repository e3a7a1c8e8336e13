/// L2_POOL_2D on float32 NHWC tensors: the square root of the mean of the squares in each window.
///
/// Options (`Pool2DOptions`): padding, strides, filter size, fused activation. Window positions in
/// the padding are skipped and the mean divides by the positions inside the image; like LiteRT's
/// optimized kernel, the sum is multiplied by the reciprocal of that count before the square root.
final class L2Pool2DKernel: OpKernel {
    private let options: Pool2DParameters
    private var geometry: WindowGeometry?

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
        options = try Pool2DParameters(node)
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
        let x = try FloatOperand.base(try node.input(0), node: node, role: "input")
        let y = try FloatOperand.base(try node.output(0), node: node, role: "output")
        let (lower, upper) = options.activation.floatRange
        let channels = g.inputChannels
        for b in 0..<g.batch {
            for oy in 0..<g.outputHeight {
                let rows = g.validFilterRows(outputRow: oy)
                for ox in 0..<g.outputWidth {
                    let columns = g.validFilterColumns(outputColumn: ox)
                    let out = y + ((b * g.outputHeight + oy) * g.outputWidth + ox) * channels
                    for c in 0..<channels { out[c] = 0 }
                    for ky in rows {
                        let iy = oy * g.strideHeight - g.padTop + ky
                        for kx in columns {
                            let ix = ox * g.strideWidth - g.padLeft + kx
                            let pixel = x + ((b * g.inputHeight + iy) * g.inputWidth + ix) * channels
                            for c in 0..<channels { out[c] += pixel[c] * pixel[c] }
                        }
                    }
                    let inverse = 1 / Float(rows.count * columns.count)
                    for c in 0..<channels { out[c] = min(max((out[c] * inverse).squareRoot(), lower), upper) }
                }
            }
        }
    }
}

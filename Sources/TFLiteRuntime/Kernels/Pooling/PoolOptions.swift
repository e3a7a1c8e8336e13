/// The options of AVERAGE_POOL_2D and MAX_POOL_2D (`Pool2DOptions`), shared by the float and
/// quantized kernels: padding 0, stride_w 1, stride_h 2, filter_width 3, filter_height 4,
/// fused activation 5.
struct PoolOptions {
    let padding: PaddingScheme
    let strideHeight: Int
    let strideWidth: Int
    let filterHeight: Int
    let filterWidth: Int
    let activation: FusedActivation

    init(node: Node) throws {
        let parameters = try Pool2DParameters(node)
        padding = parameters.padding
        strideWidth = parameters.strideWidth
        strideHeight = parameters.strideHeight
        filterWidth = parameters.filterWidth
        filterHeight = parameters.filterHeight
        activation = parameters.activation
    }

    /// The output window geometry for an input shape (validates everything).
    ///
    /// TFLite fails at run time on a window with no position inside the image; this finds it now.
    func geometry(node: Node, inputShape: [Int]) throws -> WindowGeometry {
        let g = try WindowGeometry(
            node: node, inputShape: inputShape, filterHeight: filterHeight, filterWidth: filterWidth,
            strideHeight: strideHeight, strideWidth: strideWidth, padding: padding)
        if g.inputHeight > 0, g.inputWidth > 0 {
            for oy in 0..<g.outputHeight where g.validFilterRows(outputRow: oy).isEmpty {
                throw node.error("pooling window of output row \(oy) lies entirely in the padding")
            }
            for ox in 0..<g.outputWidth where g.validFilterColumns(outputColumn: ox).isEmpty {
                throw node.error("pooling window of output column \(ox) lies entirely in the padding")
            }
        }
        return g
    }
}

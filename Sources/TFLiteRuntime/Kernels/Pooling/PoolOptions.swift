/// The options of AVERAGE_POOL_2D and MAX_POOL_2D, shared by the float and quantized kernels: the
/// typed `Pool2DOptions` with the window geometry they imply.
typealias PoolOptions = Pool2DParameters

extension Pool2DParameters {
    init(node: Node) throws { self = try Pool2DParameters(node) }

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

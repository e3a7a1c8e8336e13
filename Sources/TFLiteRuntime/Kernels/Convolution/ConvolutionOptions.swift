/// The options shared by the convolution family (float, quantized and hybrid kernels), from the
/// typed parameters of CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED (which has no window).
struct ConvolutionOptions {
    enum Layout {
        case conv
        case depthwise
        case fullyConnected
    }

    var padding: PaddingScheme = .same
    var strideHeight = 1
    var strideWidth = 1
    var dilationHeight = 1
    var dilationWidth = 1
    var activation: FusedActivation = .none
    /// FULLY_CONNECTED: keep all but the last input dimension in the output.
    var keepNumDims = false
    /// FULLY_CONNECTED hybrid: quantize inputs asymmetrically.
    var asymmetricInputs = false
    /// FULLY_CONNECTED: the bias/accumulator type requested by the model (0 when unset).
    var quantizedBiasType: Int8 = 0

    init() {}

    /// Reads the options of `node` laid out as `layout`.
    init(node: Node, layout: Layout) throws {
        switch layout {
        case .fullyConnected:
            let p = try FullyConnectedParameters(node)
            activation = p.activation
            guard p.weightsFormat == 0 else { throw node.error("weights format \(p.weightsFormat) is not supported") }
            keepNumDims = p.keepNumDims
            asymmetricInputs = p.asymmetricQuantizeInputs
            quantizedBiasType = p.quantizedBiasType
        case .conv:
            let p = try Conv2DParameters(node)
            (padding, strideWidth, strideHeight, activation) = (p.padding, p.strideWidth, p.strideHeight, p.activation)
            (dilationWidth, dilationHeight) = (p.dilationWidth, p.dilationHeight)
        case .depthwise:
            let p = try DepthwiseConv2DParameters(node)
            (padding, strideWidth, strideHeight, activation) = (p.padding, p.strideWidth, p.strideHeight, p.activation)
            (dilationWidth, dilationHeight) = (p.dilationWidth, p.dilationHeight)
        }
    }

    /// The output window geometry for an input shape and filter size (validates everything).
    ///
    /// Like LiteRT's CONV_2D and DEPTHWISE_CONV_2D, refuses a VALID window that overshoots the
    /// input so far that the output size comes out negative (an input of 1 sample under a 512-tap
    /// filter); a size that truncates to 0 is an empty output, as there. Pools keep `WindowGeometry`'s
    /// clamping to 0, since LiteRT runs them with an empty output.
    func geometry(node: Node, inputShape: [Int], filterHeight: Int, filterWidth: Int) throws -> WindowGeometry {
        if inputShape.count == 4, strideHeight > 0, strideWidth > 0, dilationHeight > 0, dilationWidth > 0 {
            let height = padding.outputSize(
                input: inputShape[1], filter: filterHeight, stride: strideHeight, dilation: dilationHeight)
            let width = padding.outputSize(
                input: inputShape[2], filter: filterWidth, stride: strideWidth, dilation: dilationWidth)
            guard height >= 0, width >= 0 else {
                throw node.error(
                    "the \(filterHeight)x\(filterWidth) filter (dilation \(dilationHeight)x\(dilationWidth)) does not fit "
                        + "the \(inputShape[1])x\(inputShape[2]) input: output size \(height)x\(width)")
            }
        }
        return try WindowGeometry(
            node: node, inputShape: inputShape, filterHeight: filterHeight, filterWidth: filterWidth,
            strideHeight: strideHeight, strideWidth: strideWidth, dilationHeight: dilationHeight,
            dilationWidth: dilationWidth, padding: padding)
    }
}

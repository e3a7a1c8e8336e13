/// The options shared by the convolution family (float, quantized and hybrid kernels).
///
/// The tables hold the same values at different field numbers: `Conv2DOptions` is padding 0,
/// stride_w 1, stride_h 2, activation 3, dilation_w 4, dilation_h 5; `DepthwiseConv2DOptions` puts
/// depth_multiplier at 3, so activation is 4 and dilations 5 and 6; `FullyConnectedOptions` is
/// activation 0, weights_format 1, keep_num_dims 2, asymmetric_quantize_inputs 3,
/// quantized_bias_type 4 (and has no window).
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
        if layout == .fullyConnected {
            activation = try FusedActivation(node: node, field: 0)
            let format = try node.optionByte(1)
            guard format == 0 else { throw node.error("weights format \(format) is not supported") }
            keepNumDims = try node.optionBool(2)
            asymmetricInputs = try node.optionBool(3)
            quantizedBiasType = try node.optionByte(4)
            return
        }
        let shift = layout == .depthwise ? 1 : 0
        padding = try PaddingScheme(node: node, field: 0)
        strideWidth = Int(try node.option(1))
        strideHeight = Int(try node.option(2))
        activation = try FusedActivation(node: node, field: 3 + shift)
        dilationWidth = Int(try node.option(4 + shift, 1))
        dilationHeight = Int(try node.option(5 + shift, 1))
    }

    /// The output window geometry for an input shape and filter size (validates everything).
    func geometry(node: Node, inputShape: [Int], filterHeight: Int, filterWidth: Int) throws -> WindowGeometry {
        try WindowGeometry(
            node: node, inputShape: inputShape, filterHeight: filterHeight, filterWidth: filterWidth,
            strideHeight: strideHeight, strideWidth: strideWidth, dilationHeight: dilationHeight,
            dilationWidth: dilationWidth, padding: padding)
    }
}

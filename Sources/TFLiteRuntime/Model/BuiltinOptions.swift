/// Every builtin operator's options as typed parameters, read from the operator's options table
/// once, when its kernel is made.
///
/// This file is the only place that knows the schema's field numbers (`schema.fbs`, the
/// `...Options` tables): kernels read names, never fields. Defaults are the schema's (a missing
/// table or field reads as its default), except where a comment says otherwise.

/// CONV_2D (`Conv2DOptions`).
struct Conv2DParameters {
    var padding: PaddingScheme
    var strideWidth: Int
    var strideHeight: Int
    var activation: FusedActivation
    var dilationWidth: Int
    var dilationHeight: Int

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        padding = try o.padding(0)
        strideWidth = Int(try o.int(1))
        strideHeight = Int(try o.int(2))
        activation = try o.activation(3)
        dilationWidth = Int(try o.int(4, 1))
        dilationHeight = Int(try o.int(5, 1))
    }
}

/// DEPTHWISE_CONV_2D (`DepthwiseConv2DOptions`: depth_multiplier sits between the strides and the
/// activation).
struct DepthwiseConv2DParameters {
    var padding: PaddingScheme
    var strideWidth: Int
    var strideHeight: Int
    var depthMultiplier: Int
    var activation: FusedActivation
    var dilationWidth: Int
    var dilationHeight: Int

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        padding = try o.padding(0)
        strideWidth = Int(try o.int(1))
        strideHeight = Int(try o.int(2))
        depthMultiplier = Int(try o.int(3))
        activation = try o.activation(4)
        dilationWidth = Int(try o.int(5, 1))
        dilationHeight = Int(try o.int(6, 1))
    }
}

/// FULLY_CONNECTED (`FullyConnectedOptions`).
struct FullyConnectedParameters {
    var activation: FusedActivation
    /// 0 is DEFAULT; 1 (SHUFFLED4x16INT8) is a weights layout kernels may refuse.
    var weightsFormat: Int8
    var keepNumDims: Bool
    var asymmetricQuantizeInputs: Bool
    /// The bias/accumulator type the model asks for (a `TensorType`; 0 when unset).
    var quantizedBiasType: Int8

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        activation = try o.activation(0)
        weightsFormat = try o.byte(1)
        keepNumDims = try o.bool(2)
        asymmetricQuantizeInputs = try o.bool(3)
        quantizedBiasType = try o.byte(4)
    }
}

/// TRANSPOSE_CONV (`TransposeConvOptions`).
struct TransposeConvParameters {
    var padding: PaddingScheme
    var strideWidth: Int
    var strideHeight: Int
    var activation: FusedActivation
    var quantizedBiasType: Int8

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        padding = try o.padding(0)
        strideWidth = Int(try o.int(1))
        strideHeight = Int(try o.int(2))
        activation = try o.activation(3)
        quantizedBiasType = try o.byte(4)
    }
}

/// AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D (`Pool2DOptions`).
struct Pool2DParameters {
    var padding: PaddingScheme
    var strideWidth: Int
    var strideHeight: Int
    var filterWidth: Int
    var filterHeight: Int
    var activation: FusedActivation

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        padding = try o.padding(0)
        strideWidth = Int(try o.int(1))
        strideHeight = Int(try o.int(2))
        filterWidth = Int(try o.int(3))
        filterHeight = Int(try o.int(4))
        activation = try o.activation(5)
    }
}

/// BATCH_MATMUL (`BatchMatMulOptions`).
struct BatchMatMulParameters {
    var adjointLeft: Bool
    var adjointRight: Bool
    var asymmetricQuantizeInputs: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        adjointLeft = try o.bool(0)
        adjointRight = try o.bool(1)
        asymmetricQuantizeInputs = try o.bool(2)
    }
}

/// ADD, SUB, MUL, DIV (`AddOptions`, `SubOptions`, `MulOptions`, `DivOptions`: the activation is
/// field 0 in all four; ADD and SUB have `pot_scale_int16`, default true, at field 1).
struct BinaryParameters {
    var activation: FusedActivation
    var potScaleInt16: Bool

    init(_ node: Node, hasActivation: Bool) throws {
        let o = OptionsReader(node)
        activation = hasActivation ? try o.activation(0) : .none
        potScaleInt16 = try o.bool(1, true)
    }
}

/// CONCATENATION (`ConcatenationOptions`).
struct ConcatenationParameters {
    var axis: Int
    var activation: FusedActivation

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        axis = Int(try o.int(0))
        activation = try o.activation(1)
    }
}

/// PACK (`PackOptions`: values_count, axis) and UNPACK (`UnpackOptions`: num, axis).
struct PackParameters {
    var count: Int
    var axis: Int

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        count = Int(try o.int(0))
        axis = Int(try o.int(1))
    }
}

/// SPLIT and SPLIT_V (`SplitOptions`, `SplitVOptions`: num_splits).
struct SplitParameters {
    var count: Int

    init(_ node: Node) throws { count = Int(try OptionsReader(node).int(0)) }
}

/// GATHER (`GatherOptions`).
struct GatherParameters {
    var axis: Int
    var batchDims: Int

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        axis = Int(try o.int(0))
        batchDims = Int(try o.int(1))
    }
}

/// RESIZE_BILINEAR (`ResizeBilinearOptions`: fields 0 and 1 are deprecated new_height/new_width)
/// and RESIZE_NEAREST_NEIGHBOR (`ResizeNearestNeighborOptions`).
struct ResizeParameters {
    var alignCorners: Bool
    var halfPixelCenters: Bool

    init(_ node: Node, bilinear: Bool) throws {
        let o = OptionsReader(node)
        let first = bilinear ? 2 : 0
        alignCorners = try o.bool(first)
        halfPixelCenters = try o.bool(first + 1)
    }
}

/// MIRROR_PAD (`MirrorPadOptions`: mode 0 REFLECT, 1 SYMMETRIC).
struct MirrorPadParameters {
    var mode: Int8

    init(_ node: Node) throws { mode = try OptionsReader(node).byte(0) }
}

/// STRIDED_SLICE (`StridedSliceOptions`).
struct StridedSliceParameters {
    var beginMask: UInt32
    var endMask: UInt32
    var ellipsisMask: UInt32
    var newAxisMask: UInt32
    var shrinkAxisMask: UInt32
    var offset: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        func mask(_ field: Int) throws -> UInt32 { UInt32(truncatingIfNeeded: try o.int(field)) }
        beginMask = try mask(0)
        endMask = try mask(1)
        ellipsisMask = try mask(2)
        newAxisMask = try mask(3)
        shrinkAxisMask = try mask(4)
        offset = try o.bool(5)
    }
}

/// SPACE_TO_DEPTH and DEPTH_TO_SPACE (`SpaceToDepthOptions`, `DepthToSpaceOptions`).
struct BlockSizeParameters {
    var blockSize: Int

    init(_ node: Node) throws { blockSize = Int(try OptionsReader(node).int(0)) }
}

/// ARG_MAX and ARG_MIN (`ArgMaxOptions`, `ArgMinOptions`): the index type as a raw `TensorType`.
struct ArgMinMaxParameters {
    var outputType: Int8

    init(_ node: Node) throws { outputType = try OptionsReader(node).byte(0) }
}

/// SHAPE (`ShapeOptions`): the output type, nil when the model does not say (then INT32).
struct ShapeParameters {
    var outputType: Int8?

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        outputType = try o.has(0) ? o.byte(0) : nil
    }
}

/// The reductions (`ReducerOptions`).
struct ReducerParameters {
    var keepDims: Bool

    init(_ node: Node) throws { keepDims = try OptionsReader(node).bool(0) }
}

/// RESHAPE (`ReshapeOptions`: new_shape) and SQUEEZE (`SqueezeOptions`: squeeze_dims); nil when
/// the table or the vector is absent.
struct ShapeListParameters {
    var dimensions: [Int]?

    init(_ node: Node) throws { dimensions = try OptionsReader(node).ints(0) }
}

/// SOFTMAX (`SoftmaxOptions`).
struct SoftmaxParameters {
    var beta: Float

    init(_ node: Node) throws { beta = try OptionsReader(node).float(0) }
}

/// LEAKY_RELU (`LeakyReluOptions`).
struct LeakyReluParameters {
    var alpha: Float

    init(_ node: Node) throws { alpha = try OptionsReader(node).float(0) }
}

/// GELU (`GeluOptions`).
struct GeluParameters {
    var approximate: Bool

    init(_ node: Node) throws { approximate = try OptionsReader(node).bool(0) }
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM (`UnidirectionalSequenceLSTMOptions`); the activation as its raw
/// `ActivationFunctionType`.
struct SequenceLSTMParameters {
    var activation: Int8
    var cellClip: Float
    var projClip: Float
    var timeMajor: Bool
    var asymmetricQuantizeInputs: Bool
    /// Recurrent weights are vectors (the diagonal of the matrices), applied element-wise.
    var diagonalRecurrentTensors: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        activation = try o.byte(0)
        cellClip = try o.float(1)
        projClip = try o.float(2)
        timeMajor = try o.bool(3)
        asymmetricQuantizeInputs = try o.bool(4)
        diagonalRecurrentTensors = try o.bool(5)
    }
}

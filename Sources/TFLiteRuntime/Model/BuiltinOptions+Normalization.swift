/// Typed options of the normalization family: L2 / local response normalization, 3-D convolutions
/// and the classic recurrent operators (field numbers from the schema's `...Options` tables).

/// L2_NORMALIZATION (`L2NormOptions`).
struct L2NormParameters {
    var activation: FusedActivation

    init(_ node: Node) throws {
        activation = try OptionsReader(node).activation(0)
    }
}

/// LOCAL_RESPONSE_NORMALIZATION (`LocalResponseNormalizationOptions`).
struct LocalResponseNormalizationParameters {
    var radius: Int
    var bias: Float
    var alpha: Float
    var beta: Float

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        radius = Int(try o.int(0))
        bias = try o.float(1)
        alpha = try o.float(2)
        beta = try o.float(3)
    }
}

/// CONV_3D and CONV_3D_TRANSPOSE (`Conv3DOptions`).
struct Conv3DParameters {
    var padding: PaddingScheme
    var strideDepth: Int
    var strideWidth: Int
    var strideHeight: Int
    var activation: FusedActivation
    var dilationDepth: Int
    var dilationWidth: Int
    var dilationHeight: Int

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        padding = try o.padding(0)
        strideDepth = Int(try o.int(1))
        strideWidth = Int(try o.int(2))
        strideHeight = Int(try o.int(3))
        activation = try o.activation(4)
        dilationDepth = Int(try o.int(5, 1))
        dilationWidth = Int(try o.int(6, 1))
        dilationHeight = Int(try o.int(7, 1))
    }
}

/// RNN (`RNNOptions`).
struct RNNParameters {
    var activation: FusedActivation
    var asymmetricQuantizeInputs: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        activation = try o.activation(0)
        asymmetricQuantizeInputs = try o.bool(1)
    }
}

/// UNIDIRECTIONAL_SEQUENCE_RNN (`SequenceRNNOptions`).
struct SequenceRNNParameters {
    var timeMajor: Bool
    var activation: FusedActivation
    var asymmetricQuantizeInputs: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        timeMajor = try o.bool(0)
        activation = try o.activation(1)
        asymmetricQuantizeInputs = try o.bool(2)
    }
}

/// BIDIRECTIONAL_SEQUENCE_RNN (`BidirectionalSequenceRNNOptions`).
struct BidirectionalSequenceRNNParameters {
    var timeMajor: Bool
    var activation: FusedActivation
    var mergeOutputs: Bool
    var asymmetricQuantizeInputs: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        timeMajor = try o.bool(0)
        activation = try o.activation(1)
        mergeOutputs = try o.bool(2)
        asymmetricQuantizeInputs = try o.bool(3)
    }
}

/// SVDF (`SVDFOptions`).
struct SVDFParameters {
    var rank: Int
    var activation: FusedActivation
    var asymmetricQuantizeInputs: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        rank = Int(try o.int(0))
        activation = try o.activation(1)
        asymmetricQuantizeInputs = try o.bool(2)
    }
}

/// LSTM (`LSTMOptions`; kernel_type 0 is the full kernel, 1 the basic one).
struct LSTMParameters {
    var activation: FusedActivation
    var cellClip: Float
    var projectionClip: Float
    var kernelType: Int8
    var asymmetricQuantizeInputs: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        activation = try o.activation(0)
        cellClip = try o.float(1)
        projectionClip = try o.float(2)
        kernelType = try o.byte(3)
        asymmetricQuantizeInputs = try o.bool(4)
    }
}

/// BIDIRECTIONAL_SEQUENCE_LSTM (`BidirectionalSequenceLSTMOptions`; time_major defaults to true).
struct BidirectionalSequenceLSTMParameters {
    var activation: FusedActivation
    var cellClip: Float
    var projectionClip: Float
    var mergeOutputs: Bool
    var timeMajor: Bool
    var asymmetricQuantizeInputs: Bool

    init(_ node: Node) throws {
        let o = OptionsReader(node)
        activation = try o.activation(0)
        cellClip = try o.float(1)
        projectionClip = try o.float(2)
        mergeOutputs = try o.bool(3)
        timeMajor = try o.bool(4, true)
        asymmetricQuantizeInputs = try o.bool(5)
    }
}

/// The parts of a TensorFlow Lite model file, as read and verified by ``Model``.
///
/// These mirror the tables of the TFLite schema (`schema.fbs`). Constant data is not copied:
/// buffers are byte ranges into the model's bytes.

/// Quantization parameters of one tensor: `real = scale * (quantized - zeroPoint)`.
///
/// Per-tensor quantization has one scale and zero point; per-channel quantization has one per
/// slice along `quantizedDimension`.
public struct QuantizationInfo: Sendable, Equatable {
    public var scales: [Float]
    public var zeroPoints: [Int64]
    public var quantizedDimension: Int
    public var min: [Float]
    public var max: [Float]

    /// True when there is one scale for the whole tensor.
    public var isPerTensor: Bool { scales.count == 1 }
}

/// One dimension of a sparse tensor's TACO-style encoding.
public struct SparseDimension: Sendable {
    public enum Format: Int8, Sendable { case dense = 0, sparseCSR = 1 }
    public var format: Format
    public var denseSize: Int
    public var segments: [Int]
    public var indices: [Int]
}

/// The sparsity encoding of a constant tensor (used by DENSIFY).
public struct SparsityInfo: Sendable {
    public var traversalOrder: [Int]
    public var blockMap: [Int]
    public var dimensions: [SparseDimension]
}

/// A tensor declared in a subgraph.
public struct ModelTensor: Sendable {
    public var name: String
    public var type: TensorType
    public var shape: [Int]
    /// The shape with unknown dimensions as -1, when the model records it.
    public var shapeSignature: [Int]?
    public var buffer: Int
    public var quantization: QuantizationInfo?
    public var sparsity: SparsityInfo?
    public var isVariable: Bool
}

/// An operator code: a builtin operator or a custom one with its name.
public struct OperatorCode: Sendable {
    public var builtin: BuiltinOperator
    public var customCode: String?
    public var version: Int

    /// `CONV_2D`, or the custom code for custom operators.
    public var displayName: String {
        if builtin == .custom { return customCode ?? "CUSTOM" }
        return builtin.name
    }
}

/// One node of a subgraph.
public struct ModelOperator: Sendable {
    public var opcodeIndex: Int
    /// Tensor indices; -1 marks an omitted optional input.
    public var inputs: [Int]
    public var outputs: [Int]
    public var intermediates: [Int]
    /// Position of the builtin options table in the model bytes, when present.
    var builtinOptionsPosition: Int?
    /// Byte range of the custom options in the model bytes, when present.
    public var customOptions: Range<Int>?
    /// Position of the second builtin options table (`builtin_options_2`: StableHLO operators).
    var builtinOptions2Position: Int? = nil
}

/// A subgraph: tensors, the operators in execution order, and its inputs and outputs.
public struct ModelSubgraph: Sendable {
    public var name: String
    public var tensors: [ModelTensor]
    public var inputs: [Int]
    public var outputs: [Int]
    public var operators: [ModelOperator]
}

/// A named entry of the model's metadata, pointing at a buffer.
public struct ModelMetadataEntry: Sendable {
    public var name: String
    public var buffer: Int
}

/// A SignatureDef: named inputs and outputs of one subgraph.
public struct ModelSignature: Sendable {
    public var key: String
    public var subgraphIndex: Int
    /// (name in the signature, tensor index in the subgraph)
    public var inputs: [(name: String, tensor: Int)]
    public var outputs: [(name: String, tensor: Int)]
}

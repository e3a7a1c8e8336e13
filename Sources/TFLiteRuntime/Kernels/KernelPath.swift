/// Which arithmetic a node runs, decided once from its tensor types when its kernel is made: the
/// one rule the weight-bearing operator families' registries use (convolutions, FULLY_CONNECTED,
/// TRANSPOSE_CONV, BATCH_MATMUL, pools) (LiteRT decides the same way in each kernel's
/// Prepare, from the input and weight types).
///
/// - `float`: float activations and float (or no) weights.
/// - `quantized`: integer activations (uint8, int8, int16) with their scale and zero point: the
///   full-integer kernels, byte-exact with LiteRT's.
/// - `hybrid`: float activations with 8-bit weights ("dynamic range"): inputs are quantized at run
///   time, products accumulate in integers, and results are scaled back to float.
enum KernelPath: Equatable {
    case float, quantized, hybrid

    /// The path for a node whose activation is input `activation` and whose weights (when the
    /// operator has them) are input `weights`.
    init(_ node: Node, activation: Int = 0, weights: Int? = nil) {
        guard let x = node.optionalInput(activation) else {
            self = .float
            return
        }
        if KernelPath.isQuantized(x.type) {
            self = .quantized
        } else if x.type == .float32, let w = weights.flatMap({ node.optionalInput($0) }), KernelPath.isHybridWeight(w.type) {
            self = .hybrid
        } else {
            self = .float
        }
    }

    /// Whether float activations with weights of `type` run the hybrid (dynamic-range) path.
    static func isHybridWeight(_ type: TensorType) -> Bool {
        type == .int8 || type == .uint8 || type == .int4
    }

    /// Whether activations of `type` are quantized integers.
    static func isQuantized(_ type: TensorType) -> Bool {
        type == .uint8 || type == .int8 || type == .int16
    }
}

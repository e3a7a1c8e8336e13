/// The pointwise unary operators: activations and elementwise math on one tensor.
enum UnaryOperator: CaseIterable {
    case logistic, tanh, relu, relu6, reluN1To1, relu0To1, leakyRelu, elu, hardSwish, gelu
    case exp, log, sqrt, rsqrt, negate, absolute

    init?(_ op: BuiltinOperator) {
        switch op {
        case .logistic: self = .logistic
        case .tanh: self = .tanh
        case .relu: self = .relu
        case .relu6: self = .relu6
        case .reluN1To1: self = .reluN1To1
        case .relu0To1: self = .relu0To1
        case .leakyRelu: self = .leakyRelu
        case .elu: self = .elu
        case .hardSwish: self = .hardSwish
        case .gelu: self = .gelu
        case .exp: self = .exp
        case .log: self = .log
        case .sqrt: self = .sqrt
        case .rsqrt: self = .rsqrt
        case .neg: self = .negate
        case .abs: self = .absolute
        default: return nil
        }
    }

    /// The unquantized element types this runtime computes the operator on.
    var supportedTypes: [TensorType] {
        switch self {
        case .negate: return [.float32, .int32, .int64, .float16]
        case .absolute: return [.float32, .int32]
        default: return [.float32]
        }
    }

    /// Whether the operator calls a transcendental function per element (worth threads sooner).
    var isTranscendental: Bool {
        switch self {
        case .logistic, .tanh, .elu, .gelu, .exp, .log: return true
        default: return false
        }
    }

    /// Elements per thread below which splitting the work costs more than it saves (a job on the
    /// thread pool costs about a microsecond; see `BinaryOperator.minimumPerThread`).
    var minimumPerThread: Int { isTranscendental ? 2048 : 8192 }
}

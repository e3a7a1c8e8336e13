/// The elementwise binary operators with NumPy broadcasting, and what each accepts.
enum BinaryOperator: CaseIterable {
    case add, subtract, multiply, divide, squaredDifference, maximum, minimum, floorDivide, floorModulo

    init?(_ op: BuiltinOperator) {
        switch op {
        case .add: self = .add
        case .sub: self = .subtract
        case .mul: self = .multiply
        case .div: self = .divide
        case .squaredDifference: self = .squaredDifference
        case .maximum: self = .maximum
        case .minimum: self = .minimum
        case .floorDiv: self = .floorDivide
        case .floorMod: self = .floorModulo
        default: return nil
        }
    }

    /// The unquantized element types this runtime computes the operator on. (LiteRT has no int64 DIV.)
    var supportedTypes: [TensorType] {
        switch self {
        case .divide: return [.float32, .int32]
        default: return [.float32, .int32, .int64]
        }
    }

    /// Whether LiteRT computes the operator on float16 tensors.
    var takesHalfFloats: Bool {
        switch self {
        case .add, .multiply, .maximum, .minimum: return true
        default: return false
        }
    }

    /// FLOOR_DIV and FLOOR_MOD, which LiteRT also runs on plain (unquantized) int8 and int16.
    var isFloorDivision: Bool { self == .floorDivide || self == .floorModulo }

    /// Whether the options table has a fused activation in field 0 (ADD/SUB/MUL/DIV options).
    var hasFusedActivation: Bool {
        switch self {
        case .add, .subtract, .multiply, .divide: return true
        default: return false
        }
    }

    /// Whether a zero in the divisor is an error for `type`. LiteRT's FLOOR_DIV rejects it for every
    /// type (it even fails on a float zero); DIV and FLOOR_MOD only for integers, where C++ would
    /// fault. Float DIV and FLOOR_MOD give ±inf (clamped) and NaN.
    func rejectsZeroDivisor(for type: TensorType) -> Bool {
        switch self {
        case .floorDivide: return true
        case .divide, .floorModulo: return type != .float32
        default: return false
        }
    }

    /// Rough elements per thread below which splitting the work costs more than it saves. A job on
    /// the thread pool costs about a microsecond; 8192 floats of a vectorized ADD take about two
    /// (32768 left every ADD of MediaPipe's face detectors, 16×16×48 to 32×32×32, on one thread).
    var minimumPerThread: Int {
        switch self {
        case .divide, .floorDivide, .floorModulo: return 4096
        default: return 8192
        }
    }
}

/// The element type of a model input or output, as ML Kit's `ModelInputOutputOptions` names it.
public enum ModelElementType: Sendable, Equatable, CustomStringConvertible {
    /// 32-bit float.
    case float32
    /// 32-bit signed integer.
    case int32
    /// 8-bit unsigned integer (ML Kit's "byte"): raw pixels for quantized models.
    case uInt8
    /// 64-bit signed integer.
    case int64
    /// 8-bit signed integer (int8 models; not in ML Kit's list, which predates them).
    case int8

    /// Bytes per element.
    public var byteSize: Int {
        switch self {
        case .float32, .int32: return 4
        case .uInt8, .int8: return 1
        case .int64: return 8
        }
    }

    public var description: String {
        switch self {
        case .float32: return "float32"
        case .int32: return "int32"
        case .uInt8: return "uint8"
        case .int64: return "int64"
        case .int8: return "int8"
        }
    }
}

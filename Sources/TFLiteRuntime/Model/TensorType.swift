/// The element type of a tensor as stored in the model (`TensorType` in the schema).
public enum TensorType: Int8, Sendable, CaseIterable {
    case float32 = 0
    case float16 = 1
    case int32 = 2
    case uint8 = 3
    case int64 = 4
    case string = 5
    case bool = 6
    case int16 = 7
    case complex64 = 8
    case int8 = 9
    case float64 = 10
    case complex128 = 11
    case uint64 = 12
    case resource = 13
    case variant = 14
    case uint32 = 15
    case uint16 = 16
    case int4 = 17
    case bfloat16 = 18

    /// Bytes per element; 0 for types without a fixed size (string, variant, int4). A resource
    /// tensor holds one int32: the id of the variable or hash table it refers to, as in LiteRT.
    public var byteSize: Int {
        switch self {
        case .float32, .int32, .uint32, .resource: return 4
        case .float16, .int16, .uint16, .bfloat16: return 2
        case .uint8, .int8, .bool: return 1
        case .int64, .float64, .uint64, .complex64: return 8
        case .complex128: return 16
        case .string, .variant, .int4: return 0
        }
    }

    /// The schema's name, e.g. `FLOAT32`.
    public var name: String {
        switch self {
        case .float32: return "FLOAT32"
        case .float16: return "FLOAT16"
        case .int32: return "INT32"
        case .uint8: return "UINT8"
        case .int64: return "INT64"
        case .string: return "STRING"
        case .bool: return "BOOL"
        case .int16: return "INT16"
        case .complex64: return "COMPLEX64"
        case .int8: return "INT8"
        case .float64: return "FLOAT64"
        case .complex128: return "COMPLEX128"
        case .uint64: return "UINT64"
        case .resource: return "RESOURCE"
        case .variant: return "VARIANT"
        case .uint32: return "UINT32"
        case .uint16: return "UINT16"
        case .int4: return "INT4"
        case .bfloat16: return "BFLOAT16"
        }
    }

    /// NumPy's dtype name for this type (`float32`, `uint8`, ...), as LiteRT's Python API reports it.
    public var numpyName: String {
        switch self {
        case .float32: return "float32"
        case .float16: return "float16"
        case .int32: return "int32"
        case .uint8: return "uint8"
        case .int64: return "int64"
        case .string: return "object"
        case .bool: return "bool"
        case .int16: return "int16"
        case .complex64: return "complex64"
        case .int8: return "int8"
        case .float64: return "float64"
        case .complex128: return "complex128"
        case .uint64: return "uint64"
        case .resource: return "resource"
        case .variant: return "variant"
        case .uint32: return "uint32"
        case .uint16: return "uint16"
        case .int4: return "int4"
        case .bfloat16: return "bfloat16"
        }
    }
}

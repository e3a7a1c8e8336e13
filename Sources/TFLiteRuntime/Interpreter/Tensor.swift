import Foundation

/// An input or output tensor of an ``Interpreter``: its name, type, shape and a copy of its bytes.
///
/// The same shape as TensorFlowLiteSwift's `Tensor`; `data` holds the elements in row-major order,
/// little-endian, as the model stores them.
public struct Tensor: Equatable, Hashable, Sendable {
    /// The tensor's name in the model.
    public let name: String
    /// The element type.
    public let dataType: DataType
    /// The dimensions.
    public let shape: Shape
    /// The elements' bytes (a copy, taken when the tensor was read).
    public let data: Data
    /// Scale and zero point of a quantized tensor (the first channel's for per-channel tensors).
    public let quantizationParameters: QuantizationParameters?

    public init(
        name: String, dataType: DataType, shape: Shape, data: Data,
        quantizationParameters: QuantizationParameters? = nil
    ) {
        self.name = name
        self.dataType = dataType
        self.shape = shape
        self.data = data
        self.quantizationParameters = quantizationParameters
    }
}

extension Tensor {
    /// The element type of a tensor.
    public enum DataType: Equatable, Hashable, Sendable {
        case bool
        case uInt8
        case int8
        case int16
        case uInt16
        case int32
        case uInt32
        case int64
        case uInt64
        case float16
        case float32
        case float64
        /// Pairs of float32 (real, imaginary), as RFFT2D produces.
        case complex64
        /// Pairs of float64 (real, imaginary).
        case complex128

        /// The model-level type this corresponds to.
        public var tensorType: TensorType {
            switch self {
            case .bool: return .bool
            case .uInt8: return .uint8
            case .int8: return .int8
            case .int16: return .int16
            case .uInt16: return .uint16
            case .int32: return .int32
            case .uInt32: return .uint32
            case .int64: return .int64
            case .uInt64: return .uint64
            case .float16: return .float16
            case .float32: return .float32
            case .float64: return .float64
            case .complex64: return .complex64
            case .complex128: return .complex128
            }
        }

        /// The public type for a model-level type; nil for types tensors cannot expose (strings, resources).
        public init?(_ type: TensorType) {
            switch type {
            case .bool: self = .bool
            case .uint8: self = .uInt8
            case .int8: self = .int8
            case .int16: self = .int16
            case .uint16: self = .uInt16
            case .int32: self = .int32
            case .uint32: self = .uInt32
            case .int64: self = .int64
            case .uint64: self = .uInt64
            case .float16: self = .float16
            case .float32: self = .float32
            case .float64: self = .float64
            case .complex64: self = .complex64
            case .complex128: self = .complex128
            default: return nil
            }
        }
    }

    /// The dimensions of a tensor.
    public struct Shape: Equatable, Hashable, Sendable {
        /// The number of dimensions.
        public let rank: Int
        /// The size of each dimension.
        public let dimensions: [Int]

        public init(_ dimensions: [Int]) {
            self.rank = dimensions.count
            self.dimensions = dimensions
        }

        public init(_ elements: Int...) {
            self.init(elements)
        }
    }
}

extension Tensor.Shape: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Int...) {
        self.init(elements)
    }
}

/// Parameters that map quantized values to real ones: `real = scale * (quantized - zeroPoint)`.
public struct QuantizationParameters: Equatable, Hashable, Sendable {
    public let scale: Float
    public let zeroPoint: Int

    public init(scale: Float, zeroPoint: Int) {
        self.scale = scale
        self.zeroPoint = zeroPoint
    }
}

extension Tensor {
    /// Snapshot of a runtime tensor; throws `invalidTensorDataType` for types that cannot be exposed.
    init(_ tensor: RuntimeTensor) throws {
        guard let type = DataType(tensor.type) else { throw InterpreterError.invalidTensorDataType }
        var quantization: QuantizationParameters? = nil
        if let q = tensor.quantization, let scale = q.scales.first {
            quantization = QuantizationParameters(scale: scale, zeroPoint: Int(q.zeroPoints.first ?? 0))
        }
        let bytes: Data
        if let base = tensor.data, tensor.byteCount > 0 {
            bytes = Data(bytes: base, count: tensor.byteCount)
        } else {
            bytes = Data()
        }
        self.init(
            name: tensor.name, dataType: type, shape: Shape(tensor.shape), data: bytes,
            quantizationParameters: quantization)
    }
}

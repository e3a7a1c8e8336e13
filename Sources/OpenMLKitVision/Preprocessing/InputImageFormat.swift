import TFLiteRuntime

/// What a model wants as its image input: size, channels, element type and normalisation.
///
/// Build it from the model's input tensor (``init(tensor:normalization:)``); the element values are:
/// - `uint8`: the 0...255 pixel as is (normalisation ignored, as ML Kit does for quantized models);
/// - `float32`: `(pixel − mean[c]) / std[c]`, from the model's metadata or ``NormalizationOptions/defaultFloat``;
/// - `int8`: with normalisation from the metadata and quantization parameters on the tensor, the
///   normalised value quantized with them; otherwise `pixel − 128` (the uint8 value re-centred).
public struct InputImageFormat: Equatable, Sendable {
    /// The element type written.
    public enum ElementType: Equatable, Sendable {
        /// One byte per channel, 0...255.
        case uint8
        /// One signed byte per channel.
        case int8
        /// Four-byte floats.
        case float32
    }

    /// Input width in pixels.
    public let width: Int
    /// Input height in pixels.
    public let height: Int
    /// 3 (RGB) or 1 (luminance).
    public let channels: Int
    /// The element type.
    public let elementType: ElementType
    /// Per-channel normalisation (usually from the model's metadata); nil: the defaults above.
    public let normalization: NormalizationOptions?
    /// The input tensor's quantization (int8 inputs), if any.
    public let quantization: QuantizationParameters?

    /// A format from explicit values.
    ///
    /// - Throws: ``VisionError/unsupportedModel(detail:)`` when the size is not positive or channels is not 1 or 3.
    public init(
        width: Int, height: Int, channels: Int, elementType: ElementType,
        normalization: NormalizationOptions? = nil, quantization: QuantizationParameters? = nil
    ) throws {
        guard width > 0, height > 0, width <= 1 << 14, height <= 1 << 14 else {
            throw VisionError.unsupportedModel(detail: "input size \(width)x\(height) is not usable for images")
        }
        guard channels == 1 || channels == 3 else {
            throw VisionError.unsupportedModel(detail: "image input has \(channels) channels; 1 or 3 are supported")
        }
        self.width = width
        self.height = height
        self.channels = channels
        self.elementType = elementType
        self.normalization = normalization
        self.quantization = quantization
    }

    /// The format of an NHWC image input tensor (`[1, height, width, channels]` or `[1, height, width]`).
    ///
    /// - Throws: ``VisionError/unsupportedModel(detail:)`` for other ranks, batch sizes or element types.
    public init(tensor: Tensor, normalization: NormalizationOptions? = nil) throws {
        let dims = tensor.shape.dimensions
        guard dims.count == 4 || dims.count == 3, dims[0] == 1 else {
            throw VisionError.unsupportedModel(
                detail: "input '\(tensor.name)' has shape \(dims); an image input is [1, height, width, channels]")
        }
        let type: ElementType
        switch tensor.dataType {
        case .uInt8: type = .uint8
        case .int8: type = .int8
        case .float32: type = .float32
        default:
            throw VisionError.unsupportedModel(
                detail: "input '\(tensor.name)' has type \(tensor.dataType); uint8, int8 or float32 is needed")
        }
        try self.init(
            width: dims[2], height: dims[1], channels: dims.count == 4 ? dims[3] : 1, elementType: type,
            normalization: normalization, quantization: tensor.quantizationParameters)
    }

    /// Bytes the input tensor holds.
    public var byteCount: Int { width * height * channels * (elementType == .float32 ? 4 : 1) }
}

/// Per-channel normalisation `(value − mean) / std` applied to float (and int8) inputs.
public struct NormalizationOptions: Equatable, Sendable {
    /// Mean per channel (one value applies to all channels).
    public let mean: [Float]
    /// Standard deviation per channel (one value applies to all channels).
    public let std: [Float]

    /// Normalisation with the given means and standard deviations; zero or non-finite std is replaced by 1.
    public init(mean: [Float], std: [Float]) {
        self.mean = mean.isEmpty ? [0] : mean
        self.std = (std.isEmpty ? [1] : std).map { $0.isFinite && $0 != 0 ? $0 : 1 }
    }

    /// The default when a float model has no metadata: 127.5 / 127.5, mapping pixels to −1...1
    /// (what most TensorFlow Lite image models, MobileNets included, expect).
    public static let defaultFloat = NormalizationOptions(mean: [127.5], std: [127.5])

    func mean(_ channel: Int) -> Float { mean[min(channel, mean.count - 1)] }
    func std(_ channel: Int) -> Float { std[min(channel, std.count - 1)] }
}

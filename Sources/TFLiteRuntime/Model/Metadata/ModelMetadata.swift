/// The TensorFlow Lite metadata of a model (the `TFLITE_METADATA` buffer, FlatBuffer identifier `M001`).
///
/// Describes what the model does and how to feed it: names, per-tensor content (image properties,
/// bounding boxes), normalisation, score thresholds and the associated files (labels) that are
/// zipped after the model. Read it with ``Model/readMetadata()``; fields absent in the file are
/// nil or empty.
public struct ModelMetadata: Equatable, Sendable {
    /// The model's name.
    public var name: String?
    /// What the model does.
    public var description: String?
    /// The model version set by its authors.
    public var version: String?
    /// The model's author.
    public var author: String?
    /// Licenses that apply to the model.
    public var license: String?
    /// Minimum metadata parser version needed to understand every field.
    public var minParserVersion: String?
    /// Files attached to the whole model.
    public var associatedFiles: [AssociatedFile]
    /// Metadata per subgraph; the first is the main one.
    public var subgraphs: [SubgraphMetadata]

    /// Metadata with every field empty.
    public init() {
        associatedFiles = []
        subgraphs = []
    }
}

/// The metadata of one subgraph: its input and output tensors, in the subgraph's order.
public struct SubgraphMetadata: Equatable, Sendable {
    /// The subgraph's name.
    public var name: String?
    /// What the subgraph does.
    public var description: String?
    /// One entry per input tensor of the subgraph (may be fewer when the metadata is incomplete).
    public var inputTensors: [TensorMetadata] = []
    /// One entry per output tensor.
    public var outputTensors: [TensorMetadata] = []
    /// Files attached to the subgraph.
    public var associatedFiles: [AssociatedFile] = []
    /// Process units that act on several inputs (e.g. tokenizers).
    public var inputProcessUnits: [ProcessUnit] = []
    /// Process units that act on several outputs.
    public var outputProcessUnits: [ProcessUnit] = []

    /// Empty subgraph metadata.
    public init() {}
}

/// The metadata of one input or output tensor.
public struct TensorMetadata: Equatable, Sendable {
    /// The tensor's name in the metadata (may differ from the model's tensor name).
    public var name: String?
    /// What the tensor holds.
    public var description: String?
    /// Names of the tensor's dimensions.
    public var dimensionNames: [String] = []
    /// What kind of content the tensor holds.
    public var content: ContentProperties?
    /// Dimensions the content spans (e.g. 2...2 for boxes in `[1, N, 4]`); nil: all but batch.
    public var contentRange: ClosedRange<Int>?
    /// Processing to apply outside the graph (normalisation, thresholds, calibration).
    public var processUnits: [ProcessUnit] = []
    /// Per-channel maximum values, when given.
    public var statsMax: [Float] = []
    /// Per-channel minimum values, when given.
    public var statsMin: [Float] = []
    /// Files attached to this tensor (labels).
    public var associatedFiles: [AssociatedFile] = []

    /// Empty tensor metadata.
    public init() {}

    /// The normalisation options among the process units, if any.
    public var normalization: (mean: [Float], std: [Float])? {
        for unit in processUnits { if case .normalization(let mean, let std) = unit { return (mean, std) } }
        return nil
    }

    /// The recommended score threshold among the process units, if any.
    public var scoreThreshold: Float? {
        for unit in processUnits { if case .scoreThresholding(let value) = unit { return value } }
        return nil
    }

    /// The label file of `type` for `locale` (nil locale: the first one, as the metadata spec says).
    public func labelFile(_ type: AssociatedFile.FileType, locale: String? = nil) -> AssociatedFile? {
        let files = associatedFiles.filter { $0.type == type }
        if let locale, let match = files.first(where: { $0.locale == locale }) { return match }
        return files.first
    }
}

/// What an input or output tensor contains.
public enum ContentProperties: Equatable, Sendable {
    /// Generic features (e.g. class scores).
    case feature
    /// An image: colour space and, for dynamic shapes, the default size.
    case image(colorSpace: ColorSpace, defaultWidth: Int?, defaultHeight: Int?)
    /// Bounding boxes: element order, box type and whether coordinates are ratios or pixels.
    case boundingBox(index: [Int], type: BoundingBoxType, coordinateType: CoordinateType)
    /// Audio samples.
    case audio(sampleRate: Int, channels: Int)
    /// A content kind this reader does not know (the union's type number).
    case unknown(Int)

    /// The colour space of an image tensor.
    public enum ColorSpace: Int, Sendable {
        /// Not stated.
        case unknown = 0
        /// Red, green, blue.
        case rgb = 1
        /// One luminance channel.
        case grayscale = 2
    }

    /// How the four numbers of a box are arranged.
    public enum BoundingBoxType: Int, Sendable {
        /// Not stated.
        case unknown = 0
        /// left, top, right, bottom (reordered by `index`).
        case boundaries = 1
        /// left, top, width, height.
        case upperLeft = 2
        /// centre x, centre y, width, height.
        case center = 3
    }

    /// Units of box coordinates.
    public enum CoordinateType: Int, Sendable {
        /// 0...1 relative to the input size.
        case ratio = 0
        /// Input pixels.
        case pixel = 1
    }
}

/// A processing step described by the metadata.
public enum ProcessUnit: Equatable, Sendable {
    /// `(x − mean) / std` per channel (a single value applies to all channels).
    case normalization(mean: [Float], std: [Float])
    /// Sigmoid score calibration with the parameters in an associated file.
    case scoreCalibration(transformation: Int, defaultScore: Float)
    /// Results below this score are low confidence.
    case scoreThresholding(globalThreshold: Float)
    /// A text tokenizer or other unit this runtime does not interpret (the union's type number).
    case other(Int)
}

/// A file packed with the model (in the zip archive after the FlatBuffer), e.g. a labels file.
public struct AssociatedFile: Equatable, Sendable {
    /// The kinds of associated files.
    public enum FileType: Int, Sendable {
        /// Not stated.
        case unknown = 0
        /// Human-readable descriptions.
        case descriptions = 1
        /// One label per element of an axis (classifier scores).
        case tensorAxisLabels = 2
        /// One label per value in the tensor (detected class ids).
        case tensorValueLabels = 3
        /// Score calibration parameters (CSV).
        case tensorAxisScoreCalibration = 4
        /// A vocabulary.
        case vocabulary = 5
        /// A ScaNN index.
        case scannIndexFile = 6
    }

    /// The file's name inside the archive.
    public var name: String
    /// What the file is.
    public var description: String?
    /// The file's kind (unknown kinds read as `.unknown`).
    public var type: FileType
    /// The language of labels, e.g. `"en"`.
    public var locale: String?
    /// The file's version.
    public var version: String?

    /// An associated file description.
    public init(name: String, description: String? = nil, type: FileType, locale: String? = nil, version: String? = nil)
    {
        self.name = name
        self.description = description
        self.type = type
        self.locale = locale
        self.version = version
    }
}

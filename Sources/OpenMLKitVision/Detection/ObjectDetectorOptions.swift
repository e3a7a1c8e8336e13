import OpenMLKit

/// Options of an ``ObjectDetector`` without a custom classifier (ML Kit's `ObjectDetectorOptions`).
///
/// `ObjectDetectorOptions()` uses the built-in localizer (``SaliencyLocalizer``): class-agnostic
/// objects, no labels, as ML Kit's default detector without coarse classification. ML Kit's coarse
/// classifier (five categories such as "Fashion good" or "Food") does not exist here, so
/// ``shouldEnableClassification`` leaves labels empty; use ``CustomObjectDetectorOptions`` with a
/// classifier, or a detection model, for labels.
/// `ObjectDetectorOptions(localModel:)` runs a detection model that ends in
/// `TFLite_Detection_PostProcess` (SSD, EfficientDet-Lite, AutoML Vision Edge exports) and labels
/// objects with the model's classes. In ``DetectorMode/stream`` mode (the default) objects get
/// tracking IDs.
public final class ObjectDetectorOptions {
    /// The detection model; nil: the built-in localizer.
    public let localModel: CustomLocalModel?
    /// Minimum score of returned objects; nil: the metadata's score threshold, else 0.5 (a model),
    /// or the built-in localizer's own threshold.
    public var scoreThreshold: Float?
    /// The most objects returned (nil: as many as the model reports; 5 for the built-in localizer,
    /// ML Kit's maximum).
    public var maxResultCount: Int?
    /// A labels file to use instead of the labels packed with the model. When neither this nor the
    /// model gives labels, a `dict.txt` beside the model (an AutoML export) is used.
    public var labelsPath: String?
    /// An AutoML `tflite_metadata.json`; nil: the one beside the model, if any.
    public var autoMLMetadataPath: String?
    /// How the image is fitted to the model's input (default: stretched, as ML Kit does).
    public var scaleMode: ScaleMode = .stretch
    /// How pixels are sampled when the image is scaled to the model's input (not an ML Kit option).
    /// ``ResizeMethod/area`` (the default) averages the pixels each input pixel covers, as iOS's
    /// Core Image and vImage filter before shrinking; ``ResizeMethod/bilinear`` matches the
    /// TensorFlow Lite Task Library byte for byte.
    public var resizeMethod: ResizeMethod = .area
    /// ``DetectorMode/stream`` (ML Kit's default) treats calls as frames of one video: objects get
    /// tracking IDs, and a stateful model's state outputs are fed back as its state inputs.
    /// ``DetectorMode/singleImage`` gives no tracking IDs and starts every call from zero state.
    public var detectorMode: DetectorMode = .stream
    /// Interpreter threads (nil: the runtime's default).
    public var threadCount: Int?
    /// ML Kit's switch between the most prominent object (false, the default) and up to five
    /// objects (true), for the built-in localizer; ``maxResultCount``, when set, decides instead.
    /// A detection model's objects are limited by ``maxResultCount`` alone.
    public var shouldEnableMultipleObjects = false
    /// ML Kit's switch for its coarse classifier, which OpenMLKit does not have: objects found by
    /// the built-in localizer stay unlabelled either way (a detection model's objects always carry
    /// its classes). Kept so that ML Kit code compiles and reads the same.
    public var shouldEnableClassification = false

    /// The default threshold when neither the options nor the metadata give one.
    public static let defaultScoreThreshold: Float = 0.5

    /// Options for the detection model `localModel`.
    public init(localModel: CustomLocalModel) {
        self.localModel = localModel
    }

    /// Options for ML Kit's `LocalModel` as the detection model.
    public convenience init(localModel: LocalModel) {
        self.init(localModel: localModel.customLocalModel)
    }

    /// Options for the built-in localizer (no model).
    public init() {
        self.localModel = nil
    }
}

/// ML Kit's name of ``DetectorMode``.
public typealias ObjectDetectorMode = DetectorMode

/// Whether a detector treats calls as frames of one video (ML Kit's `ObjectDetectorMode`).
public enum DetectorMode: Sendable {
    /// Consecutive frames of a stream.
    case stream
    /// Unrelated single images.
    case singleImage
}

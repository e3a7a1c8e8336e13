import OpenMLKit

/// Options of an ``ObjectDetector`` running a detection model (standing in for ML Kit's built-in
/// detector, so that `ObjectDetectorOptions` keeps its ML Kit meaning) that ends in
/// `TFLite_Detection_PostProcess` (SSD, EfficientDet-Lite, AutoML Vision Edge exports).
public final class ObjectDetectorOptions {
    /// The detection model.
    public let localModel: CustomLocalModel
    /// Minimum score of returned objects; nil: the metadata's score threshold, else 0.5.
    public var scoreThreshold: Float?
    /// The most objects returned (nil: as many as the model reports).
    public var maxResultCount: Int?
    /// A labels file to use instead of the labels packed with the model. When neither this nor the
    /// model gives labels, a `dict.txt` beside the model (an AutoML export) is used.
    public var labelsPath: String?
    /// An AutoML `tflite_metadata.json`; nil: the one beside the model, if any.
    public var autoMLMetadataPath: String?
    /// How the image is fitted to the model's input (default: stretched, as ML Kit does).
    public var scaleMode: ScaleMode = .stretch
    /// ``DetectorMode/stream`` (ML Kit's default) feeds a stateful model's state outputs back as
    /// its state inputs from call to call; ``DetectorMode/singleImage`` starts every call from zeros.
    /// Models without state inputs behave the same in both modes. No tracking IDs are assigned yet.
    public var detectorMode: DetectorMode = .stream
    /// Interpreter threads (nil: the runtime's default).
    public var threadCount: Int?

    /// The default threshold when neither the options nor the metadata give one.
    public static let defaultScoreThreshold: Float = 0.5

    /// Options for `localModel`.
    public init(localModel: CustomLocalModel) {
        self.localModel = localModel
    }
}

/// Whether a detector treats calls as frames of one video (ML Kit's `ObjectDetectorMode`).
public enum DetectorMode: Sendable {
    /// Consecutive frames of a stream.
    case stream
    /// Unrelated single images.
    case singleImage
}

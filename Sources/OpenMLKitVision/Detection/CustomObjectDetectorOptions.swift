import Foundation
import OpenMLKit

/// Options of an ``ObjectDetector`` that classifies the objects it finds with a custom image
/// classifier (ML Kit's `CustomObjectDetectorOptions`).
///
/// ```swift
/// let options = CustomObjectDetectorOptions(localModel: LocalModel(path: "object_labeler.tflite"))
/// options.detectorMode = .singleImage
/// options.shouldEnableClassification = true
/// options.shouldEnableMultipleObjects = true
/// options.classificationConfidenceThreshold = NSNumber(value: 0.5)
/// options.maxPerObjectLabelCount = 3
/// let objectDetector = ObjectDetector.objectDetector(options: options)
/// ```
///
/// Objects are found by the built-in localizer (``SaliencyLocalizer``), or by a detection model
/// given as ``detectorModel``; each object's region is then cropped from the image and classified
/// by the custom model. The classifier must take an RGB image `[1, height, width, 3]` (uint8, int8,
/// or float32 with normalisation in its metadata) and output one score per class (`[1, N]`).
/// The options are checked when the detector is created.
public final class CustomObjectDetectorOptions {
    /// The bundled classifier; nil when the options were made from a remote model.
    public let localModel: CustomLocalModel?
    /// The hosted classifier; it must be downloaded before the detector is created.
    public let remoteModel: CustomRemoteModel?
    /// ``DetectorMode/stream`` (default: low latency, tracking IDs, labels smoothed over each
    /// object's track) or ``DetectorMode/singleImage`` (no tracking IDs).
    public var detectorMode: DetectorMode = .stream
    /// Up to five objects (``maximumObjectCount``); false (default): only the most prominent one.
    public var shouldEnableMultipleObjects = false
    /// Whether objects are classified with the custom model (default false: no labels).
    public var shouldEnableClassification = false
    /// Minimum label confidence, in 0...1; nil: the classifier metadata's score threshold, else 0.
    public var classificationConfidenceThreshold: NSNumber?
    /// The most labels per object, best first (default 10, at least 1).
    public var maxPerObjectLabelCount = 10

    /// A detection model (any model ``DetectionModel`` runs) used to find objects instead of the
    /// built-in localizer; its classes are ignored. An OpenMLKit extension.
    public var detectorModel: CustomLocalModel?
    /// A hosted detection model used as the localizer, as ``detectorModel`` (which wins when both
    /// are set); resolved through ``modelManager`` like ``remoteModel``, so download it first. An
    /// OpenMLKit extension.
    public var detectorRemoteModel: CustomRemoteModel?
    /// Settings of the built-in localizer (ignored with a detection model). An OpenMLKit extension.
    public var localizerConfiguration = SaliencyLocalizer.Configuration()
    /// How many candidate regions of the built-in localizer the classifier scores to rank several
    /// objects, in single-image mode with multiple objects and classification on (0: none, the
    /// classifier only labels the regions found). The best-fitting candidates are classified and
    /// the objects after the most prominent one (which stays what single-object mode reports) are
    /// chosen by fit × the classifier's confidence; each classified candidate costs one run of the
    /// classifier. Ignored in stream mode, with one object and with ``detectorModel``. Default
    /// ``defaultRankingCandidateCount``. An OpenMLKit extension.
    public var rankingCandidateCount = CustomObjectDetectorOptions.defaultRankingCandidateCount
    /// Settings of the stream-mode tracker (its label minimum is replaced by the detector's threshold). An
    /// OpenMLKit extension.
    public var trackerConfiguration = ObjectTracker.Configuration()
    /// A labels file used instead of the labels in the classifier's metadata.
    public var labelsPath: String?
    /// The model manager that resolves ``remoteModel`` (nil: `ModelManager.modelManager()`).
    public var modelManager: ModelManager?
    /// Interpreter threads for each model (nil: the runtime's default).
    public var threadCount: Int?
    /// How pixels are sampled when images and object crops are scaled to the models' inputs (not
    /// an ML Kit option): ``ResizeMethod/area`` by default, ``ResizeMethod/bilinear`` for LiteRT's.
    public var resizeMethod: ResizeMethod = .area

    /// The default ``rankingCandidateCount``, chosen on the annotated photos (recall against time
    /// per image, see `docs/LOCALIZER.md`).
    public static let defaultRankingCandidateCount = 10

    /// ML Kit's limit on objects per image.
    public static let maximumObjectCount = 5

    /// Options for the classifier bundled at `localModel`.
    public init(localModel: CustomLocalModel) {
        self.localModel = localModel
        self.remoteModel = nil
    }

    /// Options for ML Kit's `LocalModel` as the classifier (a model file or an AutoML manifest).
    public convenience init(localModel: LocalModel) {
        self.init(localModel: localModel.customLocalModel)
    }

    /// Options for the hosted classifier `remoteModel` (download it first with `ModelManager`).
    public init(remoteModel: CustomRemoteModel) {
        self.localModel = nil
        self.remoteModel = remoteModel
    }
}

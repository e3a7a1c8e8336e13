import Foundation
import OpenMLKit

/// Options of an ``ImageLabeler`` that runs a custom TensorFlow Lite classifier (ML Kit's
/// `CustomImageLabelerOptions`).
///
/// ```swift
/// let options = CustomImageLabelerOptions(localModel: LocalModel(path: modelPath))
/// options.confidenceThreshold = NSNumber(value: 0.5)
/// options.maxResultCount = 3
/// let imageLabeler = ImageLabeler.imageLabeler(options: options)
/// ```
public final class CustomImageLabelerOptions {
    /// The bundled model; nil when the options were made from a remote model.
    public let localModel: CustomLocalModel?
    /// The hosted model; it must be downloaded before the labeler is created.
    public let remoteModel: CustomRemoteModel?
    /// Minimum confidence of returned labels, in 0...1 (ML Kit's `NSNumber?`); nil: the model
    /// metadata's score threshold, else 0.
    public var confidenceThreshold: NSNumber?
    /// The maximum number of labels returned (ML Kit's default is 10).
    public var maxResultCount: Int = 10
    /// A labels file to use instead of the labels in the model's metadata.
    public var labelsPath: String?
    /// How the image is fitted to the model's input (ML Kit stretches it).
    public var scaleMode: ScaleMode = .stretch
    /// How pixels are sampled when the image is scaled to the model's input (not an ML Kit option).
    /// ``ResizeMethod/area`` (the default) averages the pixels each input pixel covers, as iOS's
    /// Core Image and vImage filter before shrinking; ``ResizeMethod/bilinear`` matches the
    /// TensorFlow Lite Task Library byte for byte.
    public var resizeMethod: ResizeMethod = .area
    /// Interpreter threads (nil: the runtime's default).
    public var threadCount: Int?
    /// The model manager that resolves ``remoteModel`` (nil: `ModelManager.modelManager()`).
    public var modelManager: ModelManager?

    /// Options for the bundled model `localModel`.
    public init(localModel: CustomLocalModel) {
        self.localModel = localModel
        self.remoteModel = nil
    }

    /// Options for ML Kit's `LocalModel` (a model file or an AutoML manifest).
    public convenience init(localModel: LocalModel) {
        self.init(localModel: localModel.customLocalModel)
    }

    /// Options for the hosted model `remoteModel` (ML Kit's `init(remoteModel:)`); download it
    /// first with `ModelManager`: a labeler made before that reports
    /// `ModelDownloadError.notDownloaded`.
    public init(remoteModel: CustomRemoteModel) {
        self.localModel = nil
        self.remoteModel = remoteModel
    }

    /// The confidence threshold as a float, or nil when unset.
    var confidenceThresholdValue: Float? { confidenceThreshold?.floatValue }

    /// The model file to load: the bundled one, or the downloaded version of the remote one.
    func resolvedLocalModel() throws -> CustomLocalModel {
        if let localModel { return localModel }
        guard let remoteModel else { throw VisionError.invalidOptions(detail: "the options have no model") }
        let manager = modelManager ?? .modelManager()
        guard let downloaded = manager.downloadedModel(remoteModel) else {
            throw ModelDownloadError.notDownloaded(remoteModel.name)
        }
        return CustomLocalModel(modelPath: downloaded.path)
    }
}

/// The AutoML labeler options of older ML Kit samples (`AutoMLImageLabelerOptions(localModel:)`);
/// an AutoML Vision Edge model is a custom classifier with its labels in the manifest's folder.
public typealias AutoMLImageLabelerOptions = CustomImageLabelerOptions

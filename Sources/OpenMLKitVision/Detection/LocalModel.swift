import OpenMLKit

/// A model file stored on the device, by ML Kit's name (`LocalModel`): a `.tflite` file, or an
/// AutoML Vision Edge manifest.
///
/// ```swift
/// let localModel = LocalModel(path: localModelFilePath)
/// let options = CustomObjectDetectorOptions(localModel: localModel)
/// ```
///
/// Every API that takes a `CustomLocalModel` also takes a `LocalModel` (ML Kit's vision APIs
/// and Firebase's interpreter had two classes; OpenMLKit keeps both names). Before OpenMLKit had
/// this class, `LocalModel` was a type alias of `CustomLocalModel`; it became a class of its own
/// because ML Kit's `init?(manifestPath:)` is failable while `CustomLocalModel`'s throws, and Swift
/// cannot give one class both.
public final class LocalModel: Sendable {
    /// The absolute path of the model file.
    public let path: String
    /// The AutoML manifest the model was made from; nil for a plain model file.
    public let manifestPath: String?
    /// The same model as a `CustomLocalModel`.
    public let customLocalModel: CustomLocalModel

    /// The model file at `path`; the file is read when a labeler or detector is created from it.
    public init(path: String) {
        customLocalModel = CustomLocalModel(modelPath: path)
        self.path = path
        manifestPath = nil
    }

    /// The AutoML Vision Edge model described by the `manifest.json` at `manifestPath`; nil when the
    /// manifest is missing or invalid (use `CustomLocalModel(manifestPath:)` to be told why).
    public init?(manifestPath: String) {
        guard let model = try? CustomLocalModel(manifestPath: manifestPath) else { return nil }
        customLocalModel = model
        path = model.modelPath
        self.manifestPath = manifestPath
    }
}

/// The AutoML labeler's model class of older ML Kit samples (`AutoMLImageLabelerLocalModel`).
public typealias AutoMLImageLabelerLocalModel = LocalModel
/// The AutoML model class of older Firebase ML Kit samples (`AutoMLLocalModel`). Its
/// `init?(manifestPath:)` is failable, as ML Kit's `LocalModel`'s (Firebase's was not).
public typealias AutoMLLocalModel = LocalModel

extension CustomLocalModel {
    /// The `.tflite` file at `path` (the spelling of ML Kit's `LocalModel(path:)`); it is read when
    /// a detector or labeler is created from it.
    public convenience init(path: String) {
        self.init(modelPath: path)
    }
}

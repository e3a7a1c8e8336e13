import OpenMLKit

/// A model file bundled with the app, by ML Kit's vision name (`LocalModel(path:)`).
///
/// The same type as ``CustomLocalModel``: a `.tflite` file, or an AutoML manifest through
/// `CustomLocalModel(manifestPath:)`.
public typealias LocalModel = CustomLocalModel

extension CustomLocalModel {
    /// The `.tflite` file at `path` (ML Kit's `LocalModel(path:)`); it is read when a detector or
    /// labeler is created from it.
    public convenience init(path: String) {
        self.init(modelPath: path)
    }
}

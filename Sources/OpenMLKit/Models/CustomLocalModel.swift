import Foundation

/// A model file shipped with the app (ML Kit's `CustomLocalModel`).
///
/// Either a `.tflite` file, or an AutoML Vision Edge manifest (`manifest.json` naming the model
/// file), as in ML Kit's legacy AutoML bundles.
public final class CustomLocalModel: Sendable {
    /// The path of the `.tflite` file.
    public let modelPath: String
    /// The manifest the model came from, when created with `init(manifestPath:)`.
    public let manifestPath: String?

    /// A model at `modelPath`. The file is read when an interpreter first uses it.
    public init(modelPath: String) {
        self.modelPath = modelPath
        self.manifestPath = nil
    }

    /// A model described by an AutoML `manifest.json` (`{"modelFile": "model.tflite", ...}`).
    ///
    /// - Throws: ``ModelInterpreterError/invalidManifest(path:reason:)`` when the manifest cannot be read.
    public init(manifestPath: String) throws {
        let url = URL(fileURLWithPath: manifestPath)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        } catch {
            throw ModelInterpreterError.invalidManifest(path: manifestPath, reason: error.localizedDescription)
        }
        guard let manifest = object as? [String: Any], let file = manifest["modelFile"] as? String, !file.isEmpty,
            !file.contains("..")
        else {
            throw ModelInterpreterError.invalidManifest(path: manifestPath, reason: "no \"modelFile\" entry")
        }
        self.modelPath = url.deletingLastPathComponent().appendingPathComponent(file).path
        self.manifestPath = manifestPath
    }
}

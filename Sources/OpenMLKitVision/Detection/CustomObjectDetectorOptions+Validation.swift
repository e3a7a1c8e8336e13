import Foundation
import OpenMLKit

extension CustomObjectDetectorOptions {
    /// The classification threshold the options ask for, checked to lie in 0...1.
    func checkedConfidenceThreshold() throws -> Float? {
        guard let number = classificationConfidenceThreshold else { return nil }
        let value = number.floatValue
        guard value.isFinite, (0...1).contains(value) else {
            throw VisionError.invalidOptions(
                detail: "classificationConfidenceThreshold must be in the range [0.0, 1.0], got \(number)")
        }
        return value
    }

    /// Checks the option values that do not need the model.
    func validate() throws {
        _ = try checkedConfidenceThreshold()
        guard maxPerObjectLabelCount >= 1 else {
            throw VisionError.invalidOptions(
                detail: "maxPerObjectLabelCount must be at least 1, got \(maxPerObjectLabelCount)")
        }
        guard rankingCandidateCount >= 0 else {
            throw VisionError.invalidOptions(
                detail: "rankingCandidateCount must not be negative, got \(rankingCandidateCount)")
        }
    }

    /// The classifier's file: the local model's, or the downloaded remote model's.
    ///
    /// - Throws: `ModelDownloadError.notDownloaded` when the remote model is not downloaded.
    func classifierModel() throws -> CustomLocalModel {
        if let localModel { return localModel }
        guard let remoteModel else {
            throw VisionError.invalidOptions(detail: "the options name neither a local nor a remote model")
        }
        let manager = modelManager ?? ModelManager.modelManager()
        return CustomLocalModel(modelPath: try manager.latestModelFilePath(remoteModel))
    }

    /// The detection model used as the localizer, if any: ``detectorModel``, else the downloaded
    /// ``detectorRemoteModel``.
    func localizerModel() throws -> CustomLocalModel? {
        if let detectorModel { return detectorModel }
        guard let detectorRemoteModel else { return nil }
        let manager = modelManager ?? ModelManager.modelManager()
        return CustomLocalModel(modelPath: try manager.latestModelFilePath(detectorRemoteModel))
    }

    /// Checks that `labeler`'s model can classify object crops, as ML Kit does when it loads a
    /// custom classifier.
    static func checkCompatibility(of labeler: ImageLabeler, path: String) throws {
        let format: InputImageFormat = labeler.inputFormat
        guard format.channels == 3 else {
            throw VisionError.unsupportedModel(
                detail:
                    "the custom classifier '\(path)' must take an RGB image: input shape [1, height, width, 3], got \(format.channels) channel(s)"
            )
        }
        if format.elementType == .float32, format.normalization == nil {
            throw VisionError.unsupportedModel(
                detail:
                    "the custom classifier '\(path)' has a float input but no NormalizationOptions in its metadata (mean and std are needed to feed it)"
            )
        }
    }
}

import Foundation
import OpenMLKit
import OpenMLKitVision

/// A localizer configuration to evaluate: the built-in localizer or a detection model, with or
/// without a classifier, as ``ObjectDetector``s in single-image mode (one for up to five objects,
/// one for the most prominent object).
public struct LocalizerUnderTest {
    /// A short description for reports.
    public let name: String
    /// Finds up to five objects.
    public let multiple: ObjectDetector
    /// Finds the most prominent object.
    public let single: ObjectDetector

    /// Detectors with `classifier` (a .tflite image classifier, or nil: ML Kit's base detector
    /// without one) and `localizerModel` (an SSD-style detection model used as class-agnostic
    /// localizer, or nil: the built-in localizer); with a classifier, `rankingCandidates` sets
    /// ``CustomObjectDetectorOptions/rankingCandidateCount`` (nil: its default).
    ///
    /// - Throws: what creating the detectors throws (unreadable or unsuitable models).
    public init(classifier: String?, localizerModel: String?, rankingCandidates: Int? = nil) throws {
        func make(_ multipleObjects: Bool) throws -> ObjectDetector {
            if let classifier {
                let options = CustomObjectDetectorOptions(localModel: LocalModel(path: classifier))
                options.detectorMode = .singleImage
                options.shouldEnableClassification = true
                options.shouldEnableMultipleObjects = multipleObjects
                options.detectorModel = localizerModel.map { CustomLocalModel(modelPath: $0) }
                if let rankingCandidates { options.rankingCandidateCount = rankingCandidates }
                return try ObjectDetector(options: options)
            }
            if let localizerModel {
                let options = ObjectDetectorOptions(localModel: CustomLocalModel(modelPath: localizerModel))
                options.detectorMode = .singleImage
                options.maxResultCount = multipleObjects ? CustomObjectDetectorOptions.maximumObjectCount : 1
                return try ObjectDetector(options: options)
            }
            let options = ObjectDetectorOptions()
            options.detectorMode = .singleImage
            options.maxResultCount = multipleObjects ? CustomObjectDetectorOptions.maximumObjectCount : 1
            return try ObjectDetector(options: options)
        }
        multiple = try make(true)
        single = try make(false)
        let localizer = localizerModel.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "built-in"
        let count = rankingCandidates ?? CustomObjectDetectorOptions.defaultRankingCandidateCount
        name =
            localizer
            + (classifier.map {
                " + classifier " + URL(fileURLWithPath: $0).lastPathComponent
                    + (localizerModel == nil ? " (\(count) candidates ranked)" : "")
            } ?? "")
    }

    /// Runs `benchmark` with these detectors; `onPhoto` gets each photo's objects.
    ///
    /// - Throws: what the benchmark throws.
    public func run(
        _ benchmark: LocalizationBenchmark,
        onPhoto: ((String, VisionImage, [DetectedObject]) throws -> Void)? = nil
    ) throws -> LocalizationBenchmark.Report {
        var last = [DetectedObject]()
        return try benchmark.run(
            multiple: { image in
                last = try multiple.results(in: image)
                return last.map(\.frame)
            },
            single: { image in
                last = try single.results(in: image)
                return last.map(\.frame)
            },
            onPhoto: { name, image, _ in try onPhoto?(name, image, last) })
    }
}

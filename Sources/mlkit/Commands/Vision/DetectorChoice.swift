import ArgumentParser
import Foundation
import OpenMLKit
import OpenMLKitVision

/// The detector options `detect` and `track` share: which models find and classify objects.
struct DetectorChoice: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A custom image classifier (.tflite, or hub:NAME for a model downloaded with `mlkit model download`) that labels each object.",
            valueName: "model"))
    var classifier: String?

    @Flag(help: "Up to 5 objects (default: only the most prominent one).")
    var multiple = false

    @Option(
        help:
            "Minimum label confidence in 0...1 with --classifier (default: the classifier metadata's threshold, else 0); without it, the minimum detection score.")
    var threshold: Float?

    @Option(help: "The most labels per object, with --classifier (default 10).")
    var maxLabels: Int?

    @Option(help: "A labels file for the classifier (or the detection model), instead of the model's own.")
    var labels: String?

    @Option(help: ResizeOption.help)
    var resize: ResizeOption = .area

    /// The custom-classifier options, or nil when no classifier was given.
    func customOptions(mode: DetectorMode, detector: String?) throws -> CustomObjectDetectorOptions? {
        guard let classifier else {
            if maxLabels != nil { throw CLIError("--max-labels needs --classifier") }
            return nil
        }
        let options: CustomObjectDetectorOptions
        if classifier.hasPrefix("hub:") {
            let name = String(classifier.dropFirst(4))
            options = CustomObjectDetectorOptions(
                remoteModel: CustomRemoteModel(remoteModelSource: HubModelSource(name: name)))
        } else {
            options = CustomObjectDetectorOptions(
                localModel: classifier.hasSuffix(".json")
                    ? try CustomLocalModel(manifestPath: classifier) : CustomLocalModel(path: classifier))
        }
        options.detectorMode = mode
        options.shouldEnableClassification = true
        options.shouldEnableMultipleObjects = multiple
        options.classificationConfidenceThreshold = threshold.map { NSNumber(value: $0) }
        if let maxLabels { options.maxPerObjectLabelCount = maxLabels }
        options.labelsPath = labels
        options.detectorModel = detector.map { CustomLocalModel(modelPath: $0) }
        options.resizeMethod = resize.method
        return options
    }

    /// Options without a classifier: a detection model with its own classes (every object it
    /// reports), or the built-in localizer (objects without labels; --multiple as with a classifier).
    func plainOptions(mode: DetectorMode, detector: String?) throws -> ObjectDetectorOptions {
        let options: ObjectDetectorOptions
        if let detector {
            options = ObjectDetectorOptions(
                localModel: detector.hasSuffix(".json")
                    ? try CustomLocalModel(manifestPath: detector) : CustomLocalModel(modelPath: detector))
        } else {
            options = ObjectDetectorOptions()
            options.maxResultCount = multiple ? CustomObjectDetectorOptions.maximumObjectCount : 1
        }
        options.scoreThreshold = threshold
        options.labelsPath = labels
        options.detectorMode = mode
        options.resizeMethod = resize.method
        return options
    }
}

/// One line of text per object: confidence, frame, tracking ID and labels.
func describe(_ object: DetectedObject) -> String {
    let f = object.frame
    var line = String(format: "x %.1f y %.1f w %.1f h %.1f", f.minX, f.minY, f.width, f.height)
    if let id = object.trackingIDValue { line = "#\(id)  " + line }
    let labels = object.labels.map {
        ($0.text.isEmpty ? "class \($0.index)" : $0.text) + " (\($0.index)) " + String(format: "%.3f", $0.confidence)
    }
    return line + (labels.isEmpty ? "  (no label)" : "  " + labels.joined(separator: ", "))
}

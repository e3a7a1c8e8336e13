import ArgumentParser
import Foundation
import OpenMLKit
import OpenMLKitVision

/// `mlkit detect IMAGE [--classifier M] [--model M]`: objects in one image (single-image mode).
struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Find objects in an image: with a custom classifier, a detection model, or the built-in localizer.",
        discussion: """
            With --classifier (ML Kit's object detection with a custom model), the built-in localizer finds \
            the most prominent object (--multiple: up to 5) and the classifier labels each one; --model then \
            replaces the built-in localizer with a detection model. With only --model, the detection model \
            (ending in TFLite_Detection_PostProcess: SSD, EfficientDet, AutoML Vision Edge) finds and labels \
            every object above --threshold. With neither, the built-in localizer's objects are printed \
            without labels. Single-image mode: no tracking IDs (see `mlkit track`). The image is turned \
            upright; frames are in pixels of the upright image.
            """
    )

    @Argument(help: "The image file (JPEG, PNG or BMP).")
    var image: String

    @Option(help: "A detection model (.tflite, or an AutoML manifest.json).")
    var model: String?

    @OptionGroup var choice: DetectorChoice

    @Option(help: "An AutoML Vision Edge tflite_metadata.json (default: the one beside the model, if any).")
    var automlMetadata: String?

    @Option(help: "The most objects to report (detection model only).")
    var max: Int?

    @OptionGroup var input: ImageInputOptions

    @Option(help: "Fit the image to the detection model's input: stretch (default, as ML Kit), center-crop or letterbox.")
    var scale: ScaleOption = .stretch

    @Flag(help: "Print JSON: {\"objects\": [{\"frame\", \"trackingID\", \"labels\"}]}.")
    var json = false

    @Option(help: "Write the image with boxes and labels drawn on it to this PNG file.")
    var output: String?

    @Option(
        help: ArgumentHelp(
            "Write the model input tensor's bytes to this file (for parity checks).", visibility: .hidden))
    var dumpInput: String?

    func run() throws {
        try reportingErrors {
            let detector: ObjectDetector
            var summary: String
            if let custom = try choice.customOptions(mode: .singleImage, detector: model) {
                if max != nil || automlMetadata != nil || dumpInput != nil {
                    throw CLIError("--max, --automl-metadata and --dump-input apply to a detection model without --classifier")
                }
                detector = try ObjectDetector(options: custom)
                let threshold = detector.classifier?.confidenceThreshold ?? 0
                summary = "label confidence ≥ \(threshold)"
            } else {
                let options = try choice.plainOptions(mode: .singleImage, detector: model)
                options.scaleMode = scale.mode
                options.autoMLMetadataPath = automlMetadata
                if let max { options.maxResultCount = max }
                detector = try ObjectDetector(options: options)
                summary = detector.detectionModel.map { "score ≥ \($0.scoreThreshold)" } ?? "built-in localizer"
            }
            let picture = try input.load(image)
            if let dumpInput, let model = detector.detectionModel {
                try ImagePreprocessor.data(
                    for: picture, format: model.inputFormat, scaleMode: scale.mode, resizeMethod: choice.resize.method
                ).data.write(to: URL(fileURLWithPath: dumpInput))
            }
            let objects = try detector.results(in: picture)
            if let output { try writeAnnotated(picture, objects, to: output) }
            if json {
                print(try VisionJSON.string(VisionJSON.Objects(objects: objects)))
                return
            }
            summary = "\(objects.count) object(s) (\(summary)) in \(picture.width)x\(picture.height) pixels"
            print(summary)
            for object in objects { print(describe(object)) }
        }
    }
}

/// Writes `image` with `objects` drawn on it as a PNG file.
func writeAnnotated(_ image: VisionImage, _ objects: [DetectedObject], to path: String) throws {
    var annotated = try AnnotatedImage(image)
    annotated.draw(objects)
    let data = try annotated.pngData()
    do {
        try data.write(to: URL(fileURLWithPath: path))
    } catch {
        throw CLIError("cannot write '\(path)': \(error.localizedDescription)")
    }
}

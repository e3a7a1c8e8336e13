import ArgumentParser
import Foundation
import OpenMLKit
import OpenMLKitVision

/// `mlkit detect IMAGE --model M`: objects a detection model finds, in the photo's pixels.
struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract:
            "Find objects in an image with a TensorFlow Lite detection model (SSD, EfficientDet, AutoML Vision Edge).",
        discussion: """
            The model must end in TFLite_Detection_PostProcess (boxes, classes, scores, count). The image \
            is turned upright and fitted to the model's input (--scale); frames are printed in pixels of the \
            upright image. Labels come from --labels, the model's metadata, an AutoML manifest, or a \
            dict.txt beside the model (an AutoML export, whose tflite_metadata.json is read too).
            """
    )

    @Argument(help: "The image file (JPEG, PNG or BMP).")
    var image: String

    @Option(help: "The .tflite model, or an AutoML manifest.json.")
    var model: String

    @Option(help: "A labels file (a leading 'background' or '???' line is skipped); overrides the model's labels.")
    var labels: String?

    @Option(help: "An AutoML Vision Edge tflite_metadata.json (default: the one beside the model, if any).")
    var automlMetadata: String?

    @Option(help: "Minimum score (default: the model metadata's threshold, else 0.5).")
    var threshold: Float?

    @Option(help: "The most objects to report.")
    var max: Int?

    @OptionGroup var input: ImageInputOptions

    @Option(help: "Fit the image to the input: stretch (default, as ML Kit), center-crop or letterbox.")
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
            let local =
                model.hasSuffix(".json")
                ? try CustomLocalModel(manifestPath: model) : CustomLocalModel(modelPath: model)
            let options = ObjectDetectorOptions(localModel: local)
            options.scoreThreshold = threshold
            options.labelsPath = labels
            options.scaleMode = scale.mode
            options.autoMLMetadataPath = automlMetadata
            options.maxResultCount = max
            let detector = try ObjectDetector(options: options)
            let picture = try input.load(image)
            if let dumpInput {
                try ImagePreprocessor.data(for: picture, format: detector.inputFormat, scaleMode: options.scaleMode)
                    .data.write(
                        to: URL(fileURLWithPath: dumpInput))
            }
            let objects = try detector.results(in: picture)
            if let output {
                var annotated = try AnnotatedImage(picture)
                annotated.draw(objects)
                do {
                    try annotated.pngData().write(to: URL(fileURLWithPath: output))
                } catch let error as VisionError {
                    throw error
                } catch {
                    throw CLIError("cannot write '\(output)': \(error.localizedDescription)")
                }
            }
            if json {
                print(try VisionJSON.string(VisionJSON.Objects(objects: objects)))
                return
            }
            print(
                "\(objects.count) object(s) with score ≥ \(detector.scoreThreshold) in \(picture.width)x\(picture.height) pixels"
            )
            for object in objects {
                let f = object.frame
                let label = object.labels.first
                let name = (label?.text.isEmpty ?? true) ? "class \(label?.index ?? -1)" : label!.text
                print(
                    String(
                        format: "%.3f  x %.1f y %.1f w %.1f h %.1f  ", label?.confidence ?? 0, f.minX, f.minY, f.width,
                        f.height)
                        + "\(name) (\(label?.index ?? -1))")
            }
        }
    }
}

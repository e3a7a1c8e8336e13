import ArgumentParser
import Foundation
import OpenMLKit
import OpenMLKitVision

/// `mlkit classify IMAGE --model M`: the labels an image classifier gives a photo, best first.
struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Label an image (JPEG, PNG, BMP) with a TensorFlow Lite image classifier.",
        discussion: """
            The image is turned upright (EXIF orientation), fitted to the model's input (--scale), \
            sampled with --resize (area averaging by default; bilinear reproduces LiteRT's Task Library) \
            and normalised as the model's metadata says. Labels come from --labels, \
            the model's metadata, or an AutoML manifest (pass manifest.json as --model).
            """
    )

    @Argument(help: "The image file (JPEG, PNG or BMP); with several, each result is printed on its own line.")
    var images: [String]

    @Option(help: "The .tflite model, or an AutoML manifest.json.")
    var model: String

    @Option(help: "A labels file (one label per line, or 'id label' lines); overrides the model's labels.")
    var labels: String?

    @Option(help: "How many labels to print at most.")
    var top: Int = 5

    @Option(help: "Minimum confidence (default: the model metadata's threshold, else 0).")
    var threshold: Float?

    @OptionGroup var input: ImageInputOptions

    @Option(help: "Fit the image to the input: stretch (default, as ML Kit), center-crop or letterbox.")
    var scale: ScaleOption = .stretch

    @Option(help: ResizeOption.help)
    var resize: ResizeOption = .area

    @Flag(
        help:
            "Print JSON: {\"labels\": [{\"text\", \"index\", \"confidence\"}]} (with several images, one object per line with an \"image\" key)."
    )
    var json = false

    @Option(
        help: ArgumentHelp(
            "Write the model input tensor's bytes for image i to DIR/i.bin (for parity checks).", visibility: .hidden))
    var dumpInputs: String?

    func validate() throws {
        guard top > 0 else { throw ValidationError("--top must be positive") }
        guard !images.isEmpty else { throw ValidationError("give at least one image") }
    }

    func run() throws {
        try reportingErrors {
            let local =
                model.hasSuffix(".json")
                ? try CustomLocalModel(manifestPath: model) : CustomLocalModel(modelPath: model)
            let options = CustomImageLabelerOptions(localModel: local)
            options.maxResultCount = top
            options.confidenceThreshold = threshold.map { NSNumber(value: $0) }
            options.labelsPath = labels
            options.scaleMode = scale.mode
            options.resizeMethod = resize.method
            let labeler = try ImageLabeler(options: options)
            for (i, image) in images.enumerated() {
                let picture = try input.load(image)
                if let dir = dumpInputs {
                    let input = try ImagePreprocessor.data(
                        for: picture, format: labeler.inputFormat, scaleMode: options.scaleMode,
                        resizeMethod: options.resizeMethod)
                    try input.data.write(to: URL(fileURLWithPath: dir).appendingPathComponent("\(i).bin"))
                }
                let results = try labeler.results(in: picture)
                if json {
                    print(
                        try images.count == 1
                            ? VisionJSON.string(VisionJSON.Labels(labels: results))
                            : VisionJSON.string(VisionJSON.ImageLabels(image: image, labels: results)))
                    continue
                }
                if images.count > 1 { print("\(image):") }
                if results.isEmpty { print("no label reached the threshold \(labeler.confidenceThreshold)") }
                for label in results {
                    let text = label.text.isEmpty ? "(class \(label.index))" : label.text
                    print(String(format: "%.4f  %4d  ", label.confidence, label.index) + text)
                }
            }
        }
    }
}

/// JSON shapes mirroring ML Kit's result objects.
enum VisionJSON {
    struct Labels: Encodable {
        let labels: [ImageLabel]
    }

    struct Objects: Encodable {
        let objects: [DetectedObject]
    }

    struct ImageLabels: Encodable {
        let image: String
        let labels: [ImageLabel]
    }

    static func string<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

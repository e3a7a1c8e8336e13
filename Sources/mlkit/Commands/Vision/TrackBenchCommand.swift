import ArgumentParser
import Foundation
import OpenMLKit
import OpenMLKitVision

/// `mlkit track-bench`: multi-object-tracking figures (MOTA, MOTP, IDF1, ID switches) of a
/// detector with tracking IDs on generated sequences with ground truth.
struct TrackBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "track-bench",
        abstract: "Score object tracking (MOTA, IDF1, ID switches) on generated video sequences with ground truth.",
        discussion: """
            Sequences are generated from the photos in --images: the camera panning over a photo (pan), photo \
            patches moving, crossing, leaving and re-entering (crossing), and both at once (mixed). The detector \
            runs on every frame in stream mode and is reset between sequences; its tracking IDs are scored \
            with CLEAR-MOT and IDF1 at IoU 0.5. 'oracle' feeds the ground truth, made noisy, through the \
            tracker alone. A model without tracking IDs is tracked with ObjectTracker. See docs/TRACKING.md.
            """
    )

    @Option(help: "The folder of photos the sequences are made from.")
    var images = "../shared/images"

    @Option(help: "A scenario to run: pan, crossing or mixed (repeatable; default: all).")
    var scenario: [String] = []

    @Option(help: "The system under test: built-in, oracle, or a detection model (.tflite).")
    var detector = "built-in"

    @Option(help: "Sequences per scenario.")
    var sequences = 4

    @Option(help: "Frames per sequence.")
    var frames = 60

    @Flag(
        help: "Print JSON: {detector, scenarios: [{scenario, metrics, millisecondsPerFrame, sequences}], total, ...}.")
    var json = false

    @Option(help: "Write every frame, with ground truth (thin white) and tracked boxes with their IDs, as PNG here.")
    var outputDir: String?

    func run() throws {
        try reportingErrors {
            let chosen = try scenario.map { name -> TrackingScenario in
                guard let value = TrackingScenario(rawValue: name.lowercased()) else {
                    throw CLIError(
                        "--scenario '\(name)' is not one of \(TrackingScenario.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                return value
            }
            guard sequences > 0, frames > 1 else {
                throw CLIError("--sequences must be positive and --frames at least 2")
            }
            guard FileManager.default.fileExists(atPath: images) else {
                throw CLIError("images folder '\(images)' does not exist (--images)")
            }
            let benchmark = TrackingBenchmark(
                generator: SequenceGenerator(imagesFolder: images, frameCount: frames),
                scenarios: chosen.isEmpty ? TrackingScenario.allCases : chosen, sequencesPerScenario: sequences)
            let writer = try outputDir.map { try FrameWriter(folder: $0) }
            let onFrame = writer.map { w in
                { (s: SyntheticSequence, f: SyntheticFrame, o: [DetectedObject]) in try w.write(s, f, o) }
            }

            let report: TrackingBenchmark.Report
            switch detector {
            case "oracle":
                report = try benchmark.runOracle(onFrame: onFrame)
            default:
                let objectDetector: ObjectDetector
                if detector == "built-in" {
                    // ML Kit's default detector: the built-in localizer, up to 5 objects, stream mode.
                    let builtIn = ObjectDetectorOptions()
                    builtIn.shouldEnableMultipleObjects = true
                    objectDetector = try ObjectDetector(options: builtIn)
                } else {
                    let options = ObjectDetectorOptions(localModel: CustomLocalModel(modelPath: detector))
                    options.detectorMode = .stream
                    objectDetector = try ObjectDetector(options: options)
                }
                // Stream mode: the detector assigns the tracking IDs itself (ObjectTracker).
                report = try benchmark.run(
                    detector: { try objectDetector.results(in: $0) }, reset: { try objectDetector.reset() },
                    onFrame: onFrame)
            }
            if json {
                print(
                    try VisionJSON.string(
                        Output(
                            detector: detector, frameWidth: benchmark.generator.width,
                            frameHeight: benchmark.generator.height, report: report)))
            } else {
                print("detector: \(detector)")
                print(Self.table(report))
            }
        }
    }

    /// The figures as a text table, one row per scenario and a total.
    static func table(_ report: TrackingBenchmark.Report) -> String {
        var lines = [
            "scenario   frames  GT boxes  GT tracks    MOTA    MOTP    IDF1  IDSW     FP     FN  precision  recall  ms/frame"
        ]
        func row(_ name: String, _ m: MOTMetrics, _ ms: Double) -> String {
            name.padding(toLength: 9, withPad: " ", startingAt: 0)
                + String(
                    format: " %7d %9d %10d %7.3f %7.3f %7.3f %5d %6d %6d %10.3f %7.3f %9.2f", m.frames,
                    m.groundTruthBoxes, m.groundTruthTracks, m.mota, m.motp, m.idf1, m.idSwitches, m.falsePositives,
                    m.misses, m.precision, m.recall, ms)
        }
        for s in report.scenarios { lines.append(row(s.scenario, s.metrics, s.millisecondsPerFrame)) }
        lines.append(row("total", report.total, report.millisecondsPerFrame))
        return lines.joined(separator: "\n")
    }

    /// The JSON document.
    struct Output: Encodable {
        let detector: String
        let frameWidth: Int
        let frameHeight: Int
        let report: TrackingBenchmark.Report
    }

    /// Writes annotated frames as `<folder>/<scenario>-<variant>/frame-NNN.png`.
    struct FrameWriter {
        let folder: URL

        init(folder path: String) throws {
            folder = URL(fileURLWithPath: path)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw CLIError("cannot create '\(path)': \(error.localizedDescription)")
            }
        }

        func write(_ sequence: SyntheticSequence, _ frame: SyntheticFrame, _ objects: [DetectedObject]) throws {
            var picture = try AnnotatedImage(frame.image)
            for object in frame.objects {
                picture.drawRect(
                    object.frame, color: object.isIgnored ? (120, 120, 120) : (255, 255, 255), thickness: 1)
            }
            picture.draw(objects)
            let subfolder = folder.appendingPathComponent(String(sequence.name.prefix { $0 != " " }))
            let file = subfolder.appendingPathComponent(String(format: "frame-%03d.png", frame.index))
            do {
                try FileManager.default.createDirectory(at: subfolder, withIntermediateDirectories: true)
                try picture.pngData().write(to: file)
            } catch let error as VisionError {
                throw error
            } catch {
                throw CLIError("cannot write '\(file.path)': \(error.localizedDescription)")
            }
        }
    }
}

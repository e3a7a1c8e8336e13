import ArgumentParser
import Foundation
import OpenMLKit
import OpenMLKitVision
import VisionEvaluation

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

    @Option(
        help:
            "The system under test: built-in, oracle, or a detection model (.tflite); repeat it for a row per localizer."
    )
    var detector: [String] = ["built-in"]

    @Option(help: "Sequences per scenario.")
    var sequences = 4

    @Option(help: "Frames per sequence.")
    var frames = 60

    @Option(help: "Sensor noise added to every generated frame (standard deviation in 8-bit levels; 0: none).")
    var noise = 0.0

    @Flag(
        help: "Print JSON: {detector, scenarios: [{scenario, metrics, millisecondsPerFrame, sequences}], total, ...}.")
    var json = false

    @Option(
        help:
            "Write every frame, with ground truth (thin white) and tracked boxes with their IDs, as PNG here (annotated video frames in annotated-<detector>/)."
    )
    var outputDir: String?

    @Option(
        help:
            "Also run each detector in stream mode over this folder of annotated video frames (with an image,xmin,ymin,xmax,ymax,label CSV) and report recall, precision and false boxes per frame."
    )
    var annotatedFrames: String?

    @Option(help: "Fail when a detector's recall on --annotated-frames is below this.")
    var minFrameRecall: Double?

    @Option(help: "Fail (exit 1) when a detector's total MOTA is below this.")
    var minMota: Double?

    @Option(help: "Fail when a detector's total IDF1 is below this.")
    var minIdf1: Double?

    @Option(help: "Fail when a detector has more identity switches than this in total.")
    var maxIdSwitches: Int?

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
                generator: SequenceGenerator(imagesFolder: images, frameCount: frames, noise: noise),
                scenarios: chosen.isEmpty ? TrackingScenario.allCases : chosen, sequencesPerScenario: sequences)
            guard !detector.isEmpty else { throw CLIError("--detector needs a value") }
            var outputs = [Output]()
            for name in detector {
                let report = try run(benchmark, detector: name)
                outputs.append(
                    Output(
                        detector: name, frameWidth: benchmark.generator.width, frameHeight: benchmark.generator.height,
                        report: report))
                if !json {
                    print("detector: \(name)")
                    print(Self.table(report))
                }
            }
            if json {
                print(try outputs.count == 1 ? VisionJSON.string(outputs[0]) : VisionJSON.string(outputs))
            } else if outputs.count > 1 {
                print(
                    "\nlocalizer" + "MOTA".leftPadded(33) + "precision".leftPadded(11) + "recall".leftPadded(8)
                        + "ms/frame".leftPadded(10))
                for o in outputs {
                    let m = o.report.total
                    print(
                        o.detector.padding(toLength: 34, withPad: " ", startingAt: 0)
                            + String(
                                format: "%8.3f %10.3f %7.3f %9.2f", m.mota, m.precision, m.recall,
                                o.report.millisecondsPerFrame))
                }
            }
            var failures = [String]()
            if let annotatedFrames {
                let video = try AnnotatedFrames(folder: annotatedFrames)
                print("\nannotated frames: \(annotatedFrames) (\(video.frames.count) frames, stream mode, IoU ≥ 0.5)")
                print(
                    "localizer" + "recall".leftPadded(33) + "precision".leftPadded(11) + "false/frame".leftPadded(13)
                        + "ms/frame".leftPadded(10))
                for name in detector where name != "oracle" {
                    let objectDetector = try Self.streamDetector(name)
                    // With --output-dir: every frame with its annotated boxes (white) and the reported ones.
                    let writer = try outputDir.map {
                        try FrameWriter(folder: $0 + "/annotated-" + URL(fileURLWithPath: name).lastPathComponent)
                    }
                    let report = try video.run(
                        detector: { try objectDetector.results(in: $0) }, reset: { try objectDetector.reset() },
                        onFrame: writer.map { w in
                            { file, image, objects in try w.write(file, image, truth: video.boxes[file] ?? [], objects)
                            }
                        })
                    print(
                        name.padding(toLength: 34, withPad: " ", startingAt: 0)
                            + String(
                                format: "%8.3f %10.3f %12.2f %9.2f", report.recall, report.precision,
                                report.falseBoxesPerFrame, report.millisecondsPerFrame))
                    if let minFrameRecall, report.recall < minFrameRecall {
                        failures.append(
                            "\(name): " + String(format: "frame recall %.3f < %.3f", report.recall, minFrameRecall))
                    }
                }
            }
            for o in outputs {
                let m = o.report.total
                if let minMota, m.mota < minMota {
                    failures.append("\(o.detector): " + String(format: "MOTA %.3f < %.3f", m.mota, minMota))
                }
                if let minIdf1, m.idf1 < minIdf1 {
                    failures.append("\(o.detector): " + String(format: "IDF1 %.3f < %.3f", m.idf1, minIdf1))
                }
                if let maxIdSwitches, m.idSwitches > maxIdSwitches {
                    failures.append("\(o.detector): \(m.idSwitches) identity switches > \(maxIdSwitches)")
                }
            }
            if !failures.isEmpty { throw CLIError("below threshold: " + failures.joined(separator: "; ")) }
        }
    }

    /// Runs one system under test over the benchmark.
    private func run(_ benchmark: TrackingBenchmark, detector: String) throws -> TrackingBenchmark.Report {
        let writer = try outputDir.map {
            try FrameWriter(
                folder: detector == self.detector.first
                    ? $0 : $0 + "/" + URL(fileURLWithPath: detector).lastPathComponent)
        }
        let onFrame = writer.map { w in
            { (s: SyntheticSequence, f: SyntheticFrame, o: [DetectedObject]) in try w.write(s, f, o) }
        }
        switch detector {
        case "oracle":
            return try benchmark.runOracle(onFrame: onFrame)
        default:
            let objectDetector = try Self.streamDetector(detector)
            // Stream mode: the detector assigns the tracking IDs itself (ObjectTracker).
            return try benchmark.run(
                detector: { try objectDetector.results(in: $0) }, reset: { try objectDetector.reset() },
                onFrame: onFrame)
        }
    }

    /// The detector `name` stands for, in stream mode: ML Kit's default (the built-in localizer, up
    /// to 5 objects) or a detection model.
    static func streamDetector(_ name: String) throws -> ObjectDetector {
        if name == "built-in" {
            let options = ObjectDetectorOptions()
            options.shouldEnableMultipleObjects = true
            return try ObjectDetector(options: options)
        }
        let options = ObjectDetectorOptions(localModel: CustomLocalModel(modelPath: name))
        options.detectorMode = .stream
        return try ObjectDetector(options: options)
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

    /// The JSON document (one per detector).
    struct Output: Encodable {
        let detector: String
        let frameWidth: Int
        let frameHeight: Int
        let report: TrackingBenchmark.Report
    }

    /// Writes annotated frames as `<folder>/<scenario>-<variant>/frame-NNN.png`, or video frames
    /// as `<folder>/<file>.png`.
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

        func write(_ name: String, _ image: VisionImage, truth: [CGRect], _ objects: [DetectedObject]) throws {
            var picture = try AnnotatedImage(image)
            for box in truth { picture.drawRect(box, color: (255, 255, 255), thickness: 1) }
            picture.draw(objects)
            let file = folder.appendingPathComponent(
                URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent + ".png")
            do {
                try picture.pngData().write(to: file)
            } catch let error as VisionError {
                throw error
            } catch {
                throw CLIError("cannot write '\(file.path)': \(error.localizedDescription)")
            }
        }
    }
}

extension String {
    /// The string right-aligned in `width` characters.
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

import ArgumentParser
import Foundation
import OpenMLKit
import OpenMLKitVision

/// `mlkit track FRAME...`: stream mode over a sequence of frames, with tracking IDs.
struct TrackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "track",
        abstract: "Detect and track objects over video frames (stream mode): every object keeps a tracking ID.",
        discussion: """
            Frames are image files, in the order given, or a video (--video, decoded with ffmpeg when it is \
            installed). Objects come from the built-in localizer, or --detector (a detection model); with \
            --classifier each object is labelled, and labels are smoothed over its track. By default every \
            frame is processed; --realtime FPS offers the frames at that rate to a frame processor that \
            drops the frames arriving while the detector is busy, as a live camera would. --json prints \
            one line per processed frame: {"frame": N, "objects": [...]}.
            """
    )

    @Argument(help: "The frames (JPEG, PNG or BMP files), in order.")
    var frames: [String] = []

    @Option(help: "A video file to read the frames from (needs ffmpeg on the PATH).")
    var video: String?

    @Option(help: "A detection model that finds the objects instead of the built-in localizer.")
    var detector: String?

    @OptionGroup var choice: DetectorChoice

    @Option(help: "Offer the frames at this many per second and drop those arriving while the detector is busy.")
    var realtime: Double?

    @Flag(help: "Print one JSON line per processed frame: {\"frame\": N, \"objects\": [...]}.")
    var json = false

    @Option(help: "Write each processed frame with boxes, tracking IDs and labels drawn to DIR/frame_NNNN.png.")
    var outputDir: String?

    func validate() throws {
        guard frames.isEmpty != (video == nil) else {
            throw ValidationError("give either frame files or --video, not both and not neither")
        }
        if let realtime, !(realtime > 0 && realtime.isFinite) {
            throw ValidationError("--realtime must be a positive number of frames per second")
        }
    }

    func run() throws {
        try reportingErrors {
            let objectDetector: ObjectDetector
            if let custom = try choice.customOptions(mode: .stream, detector: detector) {
                objectDetector = try ObjectDetector(options: custom)
            } else {
                objectDetector = try ObjectDetector(options: try choice.plainOptions(mode: .stream, detector: detector))
            }
            var extracted: URL?
            defer { extracted.map { try? FileManager.default.removeItem(at: $0) } }
            var paths = frames
            if let video {
                let folder = try VideoFrames.extract(video)
                extracted = folder
                paths = try VideoFrames.list(folder)
            }
            if let outputDir {
                do {
                    try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
                } catch {
                    throw CLIError("cannot create '\(outputDir)': \(error.localizedDescription)")
                }
            }
            let sink = TrackOutput(json: json, outputDir: outputDir)
            let statistics: FrameProcessor.Statistics
            if let realtime {
                statistics = try runRealtime(objectDetector, paths: paths, fps: realtime, sink: sink)
            } else {
                statistics = try runAll(objectDetector, paths: paths, sink: sink)
            }
            let summary = String(
                format: "%d frames: %d processed, %d dropped; %.1f frames/s, %.1f ms per frame; %d tracking ID(s)",
                statistics.submitted, statistics.processed, statistics.dropped, statistics.framesPerSecond,
                statistics.meanLatency * 1000, sink.identifiers.count)
            if json {
                FileHandle.standardError.write(Data((summary + "\n").utf8))
            } else {
                print(summary)
            }
            if let error = sink.firstError { throw error }
        }
    }

    /// Every frame, in order, timed.
    private func runAll(_ detector: ObjectDetector, paths: [String], sink: TrackOutput) throws -> FrameProcessor.Statistics {
        var statistics = FrameProcessor.Statistics()
        for (index, path) in paths.enumerated() {
            let image = try VisionImage(contentsOfFile: path)
            let begin = DispatchTime.now()
            let objects = try detector.results(in: image)
            statistics.totalLatency += Double(DispatchTime.now().uptimeNanoseconds - begin.uptimeNanoseconds) / 1e9
            try sink.emit(frame: index, image: image, objects: objects)
        }
        statistics.submitted = paths.count
        statistics.processed = paths.count
        // Frames per second of detection alone, not of decoding and writing files.
        statistics.elapsed = statistics.totalLatency
        return statistics
    }

    /// Frames offered at `fps` through a ``FrameProcessor``; late frames are dropped.
    private func runRealtime(_ detector: ObjectDetector, paths: [String], fps: Double, sink: TrackOutput) throws
        -> FrameProcessor.Statistics
    {
        // Decode first, so that the offered rate is not limited by the decoder.
        let images = try paths.map { try VisionImage(contentsOfFile: $0) }
        let processor = FrameProcessor(detector: detector) { result in
            sink.record(result, image: images[result.frameIndex])
        }
        let start = DispatchTime.now()
        for (index, image) in images.enumerated() {
            let due = start.uptimeNanoseconds + UInt64(Double(index) / fps * 1e9)
            let now = DispatchTime.now().uptimeNanoseconds
            if due > now { usleep(UInt32(min(Double(due - now) / 1000, 1e6))) }
            processor.submit(image)
        }
        processor.waitUntilIdle()
        return processor.statistics
    }
}

/// Prints and draws tracked frames; collects the tracking IDs seen.
final class TrackOutput: @unchecked Sendable {
    let json: Bool
    let outputDir: String?
    private(set) var identifiers = Set<Int>()
    private(set) var firstError: Error?
    private let lock = NSLock()

    init(json: Bool, outputDir: String?) {
        self.json = json
        self.outputDir = outputDir
    }

    struct Line: Encodable {
        let frame: Int
        let objects: [DetectedObject]
    }

    func emit(frame: Int, image: VisionImage, objects: [DetectedObject]) throws {
        lock.lock()
        defer { lock.unlock() }
        identifiers.formUnion(objects.compactMap(\.trackingIDValue))
        if json {
            print(try VisionJSON.string(Line(frame: frame, objects: objects)))
        } else {
            print("frame \(frame): \(objects.count) object(s)")
            for object in objects { print("  " + describe(object)) }
        }
        if let outputDir {
            try writeAnnotated(image, objects, to: outputDir + String(format: "/frame_%04d.png", frame))
        }
    }

    /// A frame processor's result: emitted, or its error kept for the exit status.
    func record(_ result: FrameProcessor.FrameResult, image: VisionImage) {
        do {
            if let error = result.error { throw error }
            try emit(frame: result.frameIndex, image: image, objects: result.objects ?? [])
        } catch {
            lock.lock()
            if firstError == nil { firstError = error }
            lock.unlock()
        }
    }
}

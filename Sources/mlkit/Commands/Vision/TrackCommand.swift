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
            Frames are image files, in the order given, or a video (--video, streamed from ffmpeg when it is \
            installed, upright as a player shows it). Objects come from the built-in localizer, or --detector \
            (a detection model); with --classifier each object is labelled, and labels are smoothed over its \
            track. By default every frame is processed; --realtime FPS offers the frames at that rate (--realtime \
            video: at the video's own timestamps) to a frame processor that drops the frames arriving while the \
            detector is busy, as a live camera would. --json prints one line per processed frame: \
            {"frame": N, "objects": [...]}, with "time" in seconds for a video.
            """
    )

    @Argument(help: "The frames (JPEG, PNG or BMP files), in order.")
    var frames: [String] = []

    @Option(help: "A video file to read the frames from (needs ffmpeg on the PATH).")
    var video: String?

    @Option(help: "A detection model that finds the objects instead of the built-in localizer.")
    var detector: String?

    @OptionGroup var choice: DetectorChoice

    @Option(
        help: ArgumentHelp(
            "Offer the frames at RATE per second, or with --video at their own timestamps ('video'), and drop those arriving while the detector is busy.",
            valueName: "RATE"))
    var realtime: RealtimeRate?

    @Option(help: "With --video: stop with an error when ffmpeg delivers nothing for this many seconds.")
    var videoTimeout: Double = 30

    @Flag(
        help:
            "Print one JSON line per processed frame: {\"frame\": N, \"objects\": [...]} (with --video also \"time\", in seconds)."
    )
    var json = false

    @Option(help: "Write each processed frame with boxes, tracking IDs and labels drawn to DIR/frame_NNNN.png.")
    var outputDir: String?

    func validate() throws {
        guard frames.isEmpty != (video == nil) else {
            throw ValidationError("give either frame files or --video, not both and not neither")
        }
        if realtime == .video && video == nil {
            throw ValidationError("--realtime video needs --video: image files carry no timestamps")
        }
        guard videoTimeout > 0 && videoTimeout.isFinite else {
            throw ValidationError("--video-timeout must be a positive number of seconds")
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
            if let outputDir {
                do {
                    try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
                } catch {
                    throw CLIError("cannot create '\(outputDir)': \(error.localizedDescription)")
                }
            }
            let source: FrameSource
            var stream: VideoFrameStream?
            // However the command ends, ffmpeg ends with it.
            defer { stream?.close() }
            if let video {
                let opened = try VideoFrameStream(path: video, stallTimeout: videoTimeout)
                stream = opened
                source = .video(opened)
            } else if realtime != nil {
                // Decoded first, so that the offered rate is not limited by the image decoder.
                source = .decoded(try frames.map { try VisionImage(contentsOfFile: $0) })
            } else {
                source = .files(frames)
            }
            let sink = TrackOutput(json: json, outputDir: outputDir)
            let statistics: FrameProcessor.Statistics
            if let realtime {
                statistics = try runRealtime(objectDetector, source: source, rate: realtime, sink: sink)
            } else {
                statistics = try runAll(objectDetector, source: source, sink: sink)
            }
            for warning in stream?.warnings ?? [] {
                FileHandle.standardError.write(Data(("warning: " + warning + "\n").utf8))
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
    private func runAll(_ detector: ObjectDetector, source: FrameSource, sink: TrackOutput) throws
        -> FrameProcessor.Statistics
    {
        var statistics = FrameProcessor.Statistics()
        var iterator = source.makeIterator()
        while let frame = try iterator.next() {
            let begin = DispatchTime.now()
            let objects = try detector.results(in: frame.image)
            statistics.totalLatency += Double(DispatchTime.now().uptimeNanoseconds - begin.uptimeNanoseconds) / 1e9
            try sink.emit(frame: frame.index, time: frame.time, image: frame.image, objects: objects)
            statistics.submitted += 1
        }
        statistics.processed = statistics.submitted
        // Frames per second of detection alone, not of decoding and writing files.
        statistics.elapsed = statistics.totalLatency
        return statistics
    }

    /// Frames offered at their due times through a ``FrameProcessor``; late frames are dropped.
    private func runRealtime(_ detector: ObjectDetector, source: FrameSource, rate: RealtimeRate, sink: TrackOutput)
        throws -> FrameProcessor.Statistics
    {
        // Only the frames being processed are kept for drawing; dropped ones are released at once.
        let pending = PendingFrames()
        let processor = FrameProcessor(detector: detector) { result in
            guard let frame = pending.take(result.frameIndex) else { return }
            sink.record(result, time: frame.time, image: frame.image)
        }
        defer { processor.waitUntilIdle() }
        var clock = RealtimeClock(rate: rate)
        var iterator = source.makeIterator()
        while let frame = try iterator.next() {
            let due = clock.due(frame)
            let now = DispatchTime.now().uptimeNanoseconds
            if due > now { usleep(UInt32(min(Double(due - now) / 1000, 1e6))) }
            pending.put(frame)
            if !processor.submit(frame.image) { _ = pending.take(frame.index) }
        }
        processor.waitUntilIdle()
        return processor.statistics
    }
}

/// Prints and draws tracked frames; collects the tracking IDs seen.
final class TrackOutput: @unchecked Sendable {
    let json: Bool
    let outputDir: String?
    /// The tracking IDs seen and the first error; its lock also keeps each frame's output whole.
    private let state = LockedBox((identifiers: Set<Int>(), firstError: (any Error)?.none))
    var identifiers: Set<Int> { state.withLockedValue { $0.identifiers } }
    var firstError: (any Error)? { state.withLockedValue { $0.firstError } }

    init(json: Bool, outputDir: String?) {
        self.json = json
        self.outputDir = outputDir
    }

    struct Line: Encodable {
        let frame: Int
        /// Seconds from the video's start; absent for image files.
        let time: Double?
        let objects: [DetectedObject]
    }

    func emit(frame: Int, time: Double?, image: VisionImage, objects: [DetectedObject]) throws {
        try state.withLockedValue { state in
            state.identifiers.formUnion(objects.compactMap(\.trackingIDValue))
            if json {
                print(try VisionJSON.string(Line(frame: frame, time: time, objects: objects)))
            } else {
                print("frame \(frame)\(time.map { String(format: " (%.3f s)", $0) } ?? ""): \(objects.count) object(s)")
                for object in objects { print("  " + describe(object)) }
            }
            // Line by line even into a pipe, so that a reader of a long video sees each frame as it is done.
            fflush(nil)  // all C streams: `stdout` itself is a global Swift 6 will not touch
            if let outputDir {
                try writeAnnotated(image, objects, to: outputDir + String(format: "/frame_%04d.png", frame))
            }
        }
    }

    /// A frame processor's result: emitted, or its error kept for the exit status.
    func record(_ result: FrameProcessor.FrameResult, time: Double?, image: VisionImage) {
        do {
            if let error = result.error { throw error }
            try emit(frame: result.frameIndex, time: time, image: image, objects: result.objects ?? [])
        } catch {
            state.withLockedValue { if $0.firstError == nil { $0.firstError = error } }
        }
    }
}

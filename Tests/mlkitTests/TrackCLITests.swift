import Foundation
import Testing

/// `mlkit detect --classifier` (single-image mode) and `mlkit track` (stream mode), run as the real binary.
@Suite("mlkit detect with a classifier, and track", .enabled(if: CLITests.hasSharedModels, "../shared/models is not beside the checkout"))
struct TrackCLITests {
    static let labeler = VisionCLITests.model("mlkit_object_labeler.tflite")

    @Test("detect --classifier: the prominent object with the classifier's labels, no tracking ID; --output draws it")
    func detectWithClassifier() throws {
        let dir = try CLITests.temporaryDirectory()
        let png = dir.appendingPathComponent("cat.png")
        let result = try CLITests.run([
            "detect", VisionCLITests.image("cat.bmp"), "--classifier", Self.labeler, "--max-labels", "2", "--json",
            "--output", png.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let objects = try #require(json["objects"] as? [[String: Any]])
        #expect(objects.count == 1)
        let object = try #require(objects.first)
        #expect(object["trackingID"] is NSNull)
        let labels = try #require(object["labels"] as? [[String: Any]])
        #expect(labels.count >= 1 && labels.count <= 2)
        #expect(labels.first?["text"] as? String == "Cat")
        #expect(try Data(contentsOf: png).prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))

        let multiple = try CLITests.run([
            "detect", VisionCLITests.image("cats_and_dogs.jpg"), "--classifier", Self.labeler, "--multiple",
            "--threshold", "0.5",
        ])
        #expect(multiple.status == 0, "\(multiple.stderr)")
        #expect(multiple.stdout.contains("label confidence ≥ 0.5"))
        let count = Int(multiple.stdout.split(separator: " ").first ?? "") ?? 0
        #expect(count >= 2 && count <= 5, "\(multiple.stdout)")
    }

    @Test("detect refuses bad options with one error line")
    func detectErrors() throws {
        let threshold = try CLITests.run([
            "detect", VisionCLITests.image("cat.bmp"), "--classifier", Self.labeler, "--threshold", "1.5",
        ])
        #expect(threshold.status == 1)
        #expect(threshold.stderr.contains("classificationConfidenceThreshold must be in the range [0.0, 1.0]"))
        let labels = try CLITests.run(["detect", VisionCLITests.image("cat.bmp"), "--max-labels", "3"])
        #expect(labels.status == 1 && labels.stderr.contains("--max-labels needs --classifier"))
        let gray = try CLITests.run([
            "detect", VisionCLITests.image("cat.bmp"), "--classifier", VisionCLITests.model("stop_sign_int8.tflite"),
        ])
        #expect(gray.status == 1 && gray.stderr.contains("RGB"))
    }

    @Test("track --json: one line per frame with tracking IDs; --output-dir writes a PNG per frame")
    func trackFrames() throws {
        let dir = try CLITests.temporaryDirectory()
        let frames = (1...3).map { VisionCLITests.image(String(format: "traffic_frames/%04d.bmp", $0)) }
        let result = try CLITests.run(
            ["track"] + frames + ["--classifier", Self.labeler, "--json", "--output-dir", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        for (index, line) in lines.enumerated() {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(json["frame"] as? Int == index)
            let objects = try #require(json["objects"] as? [[String: Any]])
            #expect(objects.count <= 1)
            #expect(objects.allSatisfy { $0["trackingID"] is Int })
        }
        #expect(result.stderr.contains("3 frames: 3 processed, 0 dropped"))
        let written = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(written == ["frame_0000.png", "frame_0001.png", "frame_0002.png"])
    }

    @Test("track with a detection model: its labelled objects get tracking IDs; --realtime reports dropped frames")
    func trackRealtime() throws {
        let frames = (1...3).map { VisionCLITests.image(String(format: "traffic_frames/%04d.bmp", $0)) }
        let result = try CLITests.run(
            ["track"] + frames + [
                "--detector", VisionCLITests.model("traffic_model.tflite"), "--labels",
                VisionCLITests.model("traffic_label_map.pbtxt"), "--threshold", "0.2", "--realtime", "1000",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        // Frames 1 ms apart: the first is processed, and at least one arrives while it still runs.
        let summary = try #require(result.stdout.split(separator: "\n").last.map(String.init))
        #expect(summary.hasPrefix("3 frames: "), "\(summary)")
        #expect(!summary.contains(" 0 dropped"), "\(summary)")
        #expect(result.stdout.contains("frame 0: "))
    }

    @Test("track needs frames or a video; --video needs ffmpeg or decodes the clip")
    func trackInput() throws {
        let none = try CLITests.run(["track"])
        #expect(none.status != 0 && none.stderr.contains("give either frame files or --video"))
        let video = VisionCLITests.image("traffic_frames.mp4")
        let result = try CLITests.run(["track", "--video", video, "--json"])
        let hasFFmpeg = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/ffmpeg") }
        if hasFFmpeg {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").count >= 3)
        } else {
            #expect(result.status == 1 && result.stderr.contains("--video needs ffmpeg on the PATH"))
        }
    }
}

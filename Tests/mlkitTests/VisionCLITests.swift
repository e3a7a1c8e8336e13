import Foundation
import Testing

/// `mlkit classify`, `mlkit detect` and the metadata part of `mlkit inspect`, run as the real binary.
@Suite("mlkit vision commands", .enabled(if: CLITests.hasSharedModels, "../shared/models is not beside the checkout"))
struct VisionCLITests {
    static let images = CLITests.sharedModels.deletingLastPathComponent().appendingPathComponent("images")
    static func model(_ name: String) -> String { CLITests.sharedModels.appendingPathComponent(name).path }
    static func image(_ name: String) -> String { images.appendingPathComponent(name).path }

    @Test("classify --json prints labels best first with text, index and confidence")
    func classifyJSON() throws {
        let result = try CLITests.run([
            "classify", Self.image("daisy.jpeg"), "--model", Self.model("automl_ic_flowers_metadata.tflite"), "--json",
            "--top", "3",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let labels = try #require(json["labels"] as? [[String: Any]])
        #expect(labels.count == 3)
        let confidences = labels.compactMap { $0["confidence"] as? Double }
        #expect(confidences == confidences.sorted(by: >))
        #expect(labels.allSatisfy { $0["text"] is String && $0["index"] is Int })
    }

    @Test("classify reads labels from --labels and from an AutoML manifest")
    func classifyLabels() throws {
        let cup = try CLITests.run([
            "classify", Self.image("burger.jpg"), "--model", Self.model("cup_model.tflite"),
            "--labels", Self.model("cup_labels.txt"), "--json",
        ])
        #expect(cup.status == 0, "\(cup.stderr)")
        #expect(cup.stdout.contains("\"text\":\"mug\"") && cup.stdout.contains("\"text\":\"Bottle\""))
        let manifest = try CLITests.run([
            "classify", Self.image("roses.jpeg"), "--model", Self.model("mlkit_automl_flowers/manifest.json"), "--top",
            "1",
        ])
        #expect(manifest.status == 0, "\(manifest.stderr)")
        #expect(
            manifest.stdout.contains("roses") || manifest.stdout.contains("daisy") || manifest.stdout.contains("tulips")
                || manifest.stdout.contains("dandelion") || manifest.stdout.contains("sunflowers"))
    }

    @Test("A corrupt image is one error line and exit status 1")
    func corruptImage() throws {
        let dir = try CLITests.temporaryDirectory()
        let bad = dir.appendingPathComponent("bad.jpg")
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Self.image("tulips.jpeg")))
        try jpeg.prefix(jpeg.count / 3).write(to: bad)
        let result = try CLITests.run([
            "classify", bad.path, "--model", Self.model("automl_ic_flowers_metadata.tflite"),
        ])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: corrupt JPEG image"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("detect --json and --output: frames in pixels, a PNG of the photo's size")
    func detect() throws {
        let dir = try CLITests.temporaryDirectory()
        let png = dir.appendingPathComponent("out.png")
        let result = try CLITests.run([
            "detect", Self.image("img_meal_two.jpg"), "--model", Self.model("automl_od_salad_320.tflite"), "--json",
            "--output", png.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let objects = try #require(json["objects"] as? [[String: Any]])
        #expect(!objects.isEmpty)
        for object in objects {
            let frame = try #require(object["frame"] as? [String: Double])
            #expect(frame["x"]! >= 0 && frame["x"]! + frame["width"]! <= 800.0001)
            #expect(frame["y"]! >= 0 && frame["y"]! + frame["height"]! <= 600.0001)
            #expect(object.keys.contains("trackingID") && object["trackingID"] is NSNull)
            #expect((object["labels"] as? [[String: Any]])?.first?["text"] as? String != nil)
        }
        let bytes = [UInt8](try Data(contentsOf: png))
        #expect(bytes.count > 1000 && bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // IHDR width and height, big-endian at offsets 16 and 20.
        func be32(_ o: Int) -> Int { bytes[o..<(o + 4)].reduce(0) { $0 << 8 | Int($1) } }
        #expect(be32(16) == 800 && be32(20) == 600)
    }

    @Test("inspect prints the TFLite metadata and packed files")
    func inspectMetadata() throws {
        let text = try CLITests.run(["inspect", Self.model("mlkit_object_labeler.tflite")])
        #expect(text.status == 0)
        #expect(text.stdout.contains("TFLite metadata:"))
        #expect(text.stdout.contains("score threshold 0.35"))
        #expect(text.stdout.contains("probability-labels-en.txt (TENSOR_AXIS_LABELS, locale en)"))
        let json = try CLITests.run([
            "inspect", Self.model("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_metadata.tflite"), "--json",
        ])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let meta = try #require(report["tflite_metadata"] as? [String: Any])
        #expect((meta["packed_files"] as? [[String: Any]])?.first?["name"] as? String == "labelmap.txt")
    }

    @Test("detect --scale letterbox keeps frames on the photo; an unknown --scale is a usage error")
    func letterbox() throws {
        let result = try CLITests.run([
            "detect", Self.image("cats_and_dogs.jpg"), "--model",
            Self.model("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_metadata.tflite"), "--scale", "letterbox", "--json",
            "--threshold", "0.3",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        for object in try #require(json["objects"] as? [[String: Any]]) {
            let frame = try #require(object["frame"] as? [String: Double])
            #expect(frame["y"]! >= 0 && frame["y"]! + frame["height"]! <= 600.0001)
        }
        let bad = try CLITests.run([
            "detect", Self.image("cats_and_dogs.jpg"), "--model", Self.model("automl_od_salad_320.tflite"), "--scale",
            "zoom",
        ])
        #expect(bad.status != 0)
    }
}

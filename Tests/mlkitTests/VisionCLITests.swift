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

    @Test("--resize: area is the default, bilinear gives another input tensor, an unknown method is a usage error")
    func resize() throws {
        let dir = try CLITests.temporaryDirectory()
        let model = Self.model("mobilenet_v2_1.0_224_quant.tflite")
        var inputs = [String: Data]()
        for method in ["default", "area", "bilinear"] {
            let folder = dir.appendingPathComponent(method)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let flag = method == "default" ? [] : ["--resize", method]
            let result = try CLITests.run(
                ["classify", Self.image("bird.jpg"), "--model", model, "--dump-inputs", folder.path] + flag)
            #expect(result.status == 0, "\(result.stderr)")
            inputs[method] = try Data(contentsOf: folder.appendingPathComponent("0.bin"))
        }
        // bird.jpg is 2000×1508: shrunk about 9× to 224×224, where the two samplings must differ.
        #expect(inputs["default"]?.count == 224 * 224 * 3)
        #expect(inputs["default"] == inputs["area"])
        #expect(inputs["bilinear"] != inputs["area"])
        let dump = dir.appendingPathComponent("detect.bin")
        let detect = try CLITests.run([
            "detect", Self.image("bird.jpg"), "--model",
            Self.model("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_metadata.tflite"), "--resize", "bilinear",
            "--dump-input", dump.path,
        ])
        #expect(detect.status == 0, "\(detect.stderr)")
        #expect(try Data(contentsOf: dump).count == 300 * 300 * 3)
        let bad = try CLITests.run(["classify", Self.image("bird.jpg"), "--model", model, "--resize", "nearest"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--resize"))
    }

    @Test("--raw reads camera bytes and --orientation turns them: the same top label as the photo")
    func rawAndOrientation() throws {
        let dir = try CLITests.temporaryDirectory()
        let model = Self.model("mobilenet_v2_1.0_224_quant.tflite")
        let photo = try CLITests.run([
            "classify", Self.image("grace_hopper.bmp"), "--model", model, "--json", "--top", "1",
        ])
        #expect(photo.status == 0, "\(photo.stderr)")
        // grace_hopper.bmp is 512x600, 24-bit bottom-up: rebuild its pixels as a 90°-turned gray+RGB frame.
        let bmp = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.image("grace_hopper.bmp"))))
        let offset = Int(bmp[10]) | Int(bmp[11]) << 8
        let (w, h) = (512, 600)
        // Stored frame = photo rotated 90° counter-clockwise, so `right` shows it upright.
        var frame = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let source = offset + (h - 1 - y) * w * 3 + x * 3
                let (sx, sy) = (y, w - 1 - x)  // stored size h x w
                let target = (sy * h + sx) * 3
                (frame[target], frame[target + 1], frame[target + 2]) = (bmp[source + 2], bmp[source + 1], bmp[source])
            }
        }
        let raw = dir.appendingPathComponent("frame.rgb")
        try Data(frame).write(to: raw)
        let turned = try CLITests.run([
            "classify", raw.path, "--raw", "\(h)x\(w):rgb8", "--orientation", "right", "--model", model, "--json",
            "--top", "1",
        ])
        #expect(turned.status == 0, "\(turned.stderr)")
        #expect(turned.stdout == photo.stdout)
        let bad = try CLITests.run(["classify", raw.path, "--raw", "\(h)x\(w + 1):rgb8", "--model", model])
        #expect(bad.status == 1 && bad.stderr.hasPrefix("error: invalid pixel buffer"))
    }
}

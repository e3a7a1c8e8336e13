import Foundation
import OpenMLKit
import TFLiteRuntime
import Testing

@testable import OpenMLKitVision

/// The classifier and detector on the published models and photos.
@Suite("Image labeler and object detector", .enabled(if: TestImages.hasShared, "../shared is not beside the checkout"))
struct ModelTaskTests {
    func photo(_ name: String) throws -> VisionImage {
        try VisionImage(contentsOfFile: TestImages.images.appendingPathComponent(name).path)
    }

    func model(_ name: String) -> CustomLocalModel {
        CustomLocalModel(modelPath: TestImages.models.appendingPathComponent(name).path)
    }

    /// The same photo stored rotated/mirrored, tagged with the orientation that shows it upright.
    func reoriented(_ image: VisionImage, _ orientation: ImageOrientation) throws -> VisionImage {
        let upright = try AnnotatedImage(image)
        let stored = TestImages.stored(
            upright.pixels, width: upright.width, height: upright.height, orientation: orientation)
        return VisionImage(
            buffer: try PixelBuffer(bytes: stored.pixels, width: stored.width, height: stored.height, format: .rgb8),
            orientation: orientation)
    }

    @Test("Labels come from metadata, top-K is sorted, the threshold filters")
    func labeler() throws {
        let options = CustomImageLabelerOptions(localModel: model("mobilenet_v1_0.25_224_quant_metadata.tflite"))
        options.maxResultCount = 5
        let labeler = try ImageLabeler(options: options)
        #expect(labeler.labels.count == 1001)
        let labels = try labeler.results(in: try photo("burger.jpg"))
        #expect(labels.count == 5)
        #expect(zip(labels, labels.dropFirst()).allSatisfy { $0.confidence >= $1.confidence })
        let scores = try labeler.scores(in: try photo("burger.jpg"))
        #expect(
            labels[0].index == scores.indices.max { scores[$0] < scores[$1] || (scores[$0] == scores[$1] && $0 > $1) })
        #expect(labels[0].text == labeler.labels[labels[0].index])
        options.confidenceThreshold = NSNumber(value: labels[0].confidence)
        let strict = try ImageLabeler(options: options).results(in: try photo("burger.jpg"))
        #expect(strict.allSatisfy { $0.confidence >= labels[0].confidence } && strict.first == labels[0])
    }

    @Test("The metadata threshold applies when none is set; locales prefer English")
    func metadataThreshold() throws {
        let labeler = try ImageLabeler(
            options: CustomImageLabelerOptions(localModel: model("mlkit_object_labeler.tflite")))
        #expect(labeler.confidenceThreshold == 0.35)
        #expect(labeler.labels.count == 631)
        let results = try labeler.results(in: try photo("cat.bmp"))
        #expect(results.allSatisfy { $0.confidence >= 0.35 })
    }

    @Test("A rotated or mirrored photo gets the same top label")
    func labelerOrientation() throws {
        let labeler = try ImageLabeler(
            options: CustomImageLabelerOptions(localModel: model("mobilenet_v2_1.0_224_quant.tflite")))
        let upright = try photo("grace_hopper.bmp")
        let expected = try labeler.results(in: upright).first?.index
        for orientation in ImageOrientation.allCases {
            #expect(
                try labeler.results(in: try reoriented(upright, orientation)).first?.index == expected, "\(orientation)"
            )
        }
    }

    @Test("Detector: boxes inside the photo, labels from the packed dict, same objects on rotated input")
    func detector() throws {
        let detector = try DetectionModel(
            options: ObjectDetectorOptions(localModel: model("automl_od_salad_320.tflite")))
        #expect(detector.labels[0] == "Cheese")  // dict.txt starts with "background", written b'Cheese'
        let upright = try photo("img_meal_one.jpg")
        let objects = try detector.results(in: upright)
        #expect(!objects.isEmpty)
        for object in objects {
            #expect(object.frame.minX >= 0 && object.frame.maxX <= Double(upright.width) + 1e-9)
            #expect(object.frame.minY >= 0 && object.frame.maxY <= Double(upright.height) + 1e-9)
            #expect(object.labels[0].confidence >= 0.5 && !object.labels[0].text.isEmpty)
        }
        for orientation in [ImageOrientation.right, .leftMirrored, .down] {
            let turned = try detector.results(in: try reoriented(upright, orientation))
            let best = try #require(turned.first, "\(orientation)")
            #expect(best.labels[0].index == objects[0].labels[0].index)
            let dx = abs(best.frame.minX - objects[0].frame.minX) + abs(best.frame.maxX - objects[0].frame.maxX)
            let dy = abs(best.frame.minY - objects[0].frame.minY) + abs(best.frame.maxY - objects[0].frame.maxY)
            #expect(dx + dy < 4, "\(orientation): \(best.frame) vs \(objects[0].frame)")
        }
    }

    @Test("A classifier is not a detector, and a detector or pose model is not a classifier")
    func wrongModel() throws {
        for name in ["automl_od_salad_320.tflite", "movenet_single_pose_lightning_ptq.tflite"] {
            #expect(throws: VisionError.self, "\(name)") {
                try ImageLabeler(options: CustomImageLabelerOptions(localModel: model(name)))
            }
        }
        #expect(throws: VisionError.self) {
            try ObjectDetector(
                options: ObjectDetectorOptions(localModel: model("mobilenet_v1_0.25_224_quant_metadata.tflite")))
        }
    }

    @Test("The asynchronous process(_:completion:) spellings give the synchronous results")
    func asynchronous() async throws {
        let image = try photo("img_meal_three.jpg")
        let singleImage = ObjectDetectorOptions(localModel: model("automl_od_salad_320.tflite"))
        singleImage.detectorMode = .singleImage
        let detector = try ObjectDetector.objectDetector(options: singleImage)
        let expected = try detector.results(in: image)
        let objects: [DetectedObject] = try await withCheckedThrowingContinuation { continuation in
            detector.process(image) { objects, error in
                if let objects {
                    continuation.resume(returning: objects)
                } else {
                    continuation.resume(throwing: error!)
                }
            }
        }
        #expect(objects == expected)
        let labeler = ImageLabeler.imageLabeler(
            options: CustomImageLabelerOptions(localModel: model("automl_ic_flowers_metadata.tflite")))
        let labels: [ImageLabel] = try await withCheckedThrowingContinuation { continuation in
            labeler.process(image) { labels, error in
                if let labels { continuation.resume(returning: labels) } else { continuation.resume(throwing: error!) }
            }
        }
        #expect(labels == (try labeler.results(in: image)))
    }

    @Test("Label files: plain lines, numbered lines, AutoML bytes spelling")
    func labelMaps() {
        #expect(LabelMap(text: "a\nb\n\n").labels == [0: "a", 1: "b"])
        #expect(LabelMap(text: "0 mug\n1 Bottle\n").labels == [0: "mug", 1: "Bottle"])
        #expect(LabelMap(text: "background\nb'Cheese'\n").shifted(by: 1).labels == [0: "Cheese"])
        #expect(
            LabelMap(text: "tench, Tinca tinca\r\ngoldfish\r\n").labels == [0: "tench, Tinca tinca", 1: "goldfish"])
    }
}

@Suite("AutoML Vision Edge export folder", .enabled(if: TestImages.hasShared, "../shared is not beside the checkout"))
struct AutoMLExportTests {
    /// A folder laid out like an AutoML export: model.tflite (a link), dict.txt, tflite_metadata.json.
    func exportFolder(maxDetections: Int, inputShape: [Int] = [1, 300, 300, 3]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("automl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: dir.appendingPathComponent("model.tflite"),
            withDestinationURL: TestImages.models.appendingPathComponent("coco_ssd_mobilenet_v1_detect.tflite"))
        try FileManager.default.copyItem(
            at: TestImages.models.appendingPathComponent("coco_ssd_mobilenet_v1_labelmap.txt"),
            to: dir.appendingPathComponent("dict.txt"))
        let json = """
            {"inferenceType": "QUANTIZED_UINT8", "inputShape": \(inputShape), "inputTensor": "normalized_input_image_tensor",
             "maxDetections": \(maxDetections),
             "outputTensorRepresentation": ["bounding_boxes", "class_labels", "class_confidences", "num_of_boxes"],
             "outputTensors": ["TFLite_Detection_PostProcess", "TFLite_Detection_PostProcess:1",
                               "TFLite_Detection_PostProcess:2", "TFLite_Detection_PostProcess:3"]}
            """
        try Data(json.utf8).write(to: dir.appendingPathComponent("tflite_metadata.json"))
        return dir
    }

    @Test("dict.txt and tflite_metadata.json beside the model: labels, detection cap, shape check")
    func exportForm() throws {
        let dir = try exportFolder(maxDetections: 2)
        let options = ObjectDetectorOptions(
            localModel: CustomLocalModel(modelPath: dir.appendingPathComponent("model.tflite").path))
        options.scoreThreshold = 0
        let detector = try DetectionModel(options: options)
        #expect(detector.maxDetections == 2)
        #expect(detector.labels[0] == "person")  // "???" line skipped
        let objects = try detector.results(
            in: try VisionImage(contentsOfFile: TestImages.images.appendingPathComponent("cats_and_dogs.jpg").path))
        #expect(objects.count == 2)
        #expect(objects.allSatisfy { !$0.labels[0].text.isEmpty })
        let wrong = try exportFolder(maxDetections: 10, inputShape: [1, 320, 320, 3])
        #expect(throws: VisionError.self) {
            try ObjectDetector(
                options: ObjectDetectorOptions(
                    localModel: CustomLocalModel(modelPath: wrong.appendingPathComponent("model.tflite").path)))
        }
    }
}

@Suite(
    "Stateful detector (AutoML Video traffic model)",
    .enabled(if: TestImages.hasShared, "../shared is not beside the checkout"))
struct StatefulDetectorTests {
    func frames() throws -> [VisionImage] {
        try (1...2).map {
            try VisionImage(
                contentsOfFile: TestImages.images.appendingPathComponent(String(format: "traffic_frames/%04d.bmp", $0))
                    .path)
        }
    }

    func detector(_ mode: DetectorMode) throws -> DetectionModel {
        let options = ObjectDetectorOptions(
            localModel: CustomLocalModel(
                modelPath: TestImages.models.appendingPathComponent("traffic_model.tflite").path))
        options.labelsPath = TestImages.models.appendingPathComponent("traffic_label_map.pbtxt").path
        options.scoreThreshold = 0.2
        options.detectorMode = mode
        return try DetectionModel(options: options)
    }

    @Test("State inputs are paired with state outputs; stream, single-image and reset runs agree from a zero state")
    func stream() throws {
        let frames = try frames()
        let stream = try detector(.stream)
        let single = try detector(.singleImage)
        #expect(stream.labels[0] == "sedan" && stream.labels[2] == "large_veh_bus")  // pbtxt ids 1...3 are classes 0...2
        let streamed = try frames.map { try stream.results(in: $0) }
        let separate = try frames.map { try single.results(in: $0) }
        // The LSTM state inputs 1 and 2 are fed from outputs 4 and 5 (same shape and type).
        #expect(stream.statePairs.map(\.input) == [1, 2] && stream.statePairs.map(\.output) == [4, 5])
        // Started from zeros this model's state stays zero (LiteRT agrees: its lstm_c/lstm_h outputs
        // for frame 1 are all 0), so both modes must give the same objects here.
        #expect(streamed == separate)
        try stream.resetState()
        #expect(try frames.map { try stream.results(in: $0) } == streamed)
        #expect(
            streamed.joined().allSatisfy { ["sedan", "pickup_suv_van", "large_veh_bus"].contains($0.labels[0].text) })
    }

    @Test("label_map.pbtxt parsing: display names preferred, quotes of both kinds")
    func pbtxt() {
        let text = """
            item { name: "/m/01" id: 1 display_name: "Sedan car" }
            item {
              id: 2
              name: 'truck'
            }
            """
        #expect(LabelMap(text: text).labels == [1: "Sedan car", 2: "truck"])
    }
}

@Suite("Score calibration")
struct ScoreCalibrationTests {
    @Test("Sigmoid calibration per class, minimum scores and default scores")
    func calibration() throws {
        let csv = "1.0,2.0,-1.0\n\n0.5,1.0,0.0,0.3\n"
        let identity = try ScoreCalibration(csv: csv, transformation: 0, defaultScore: 0.05)
        #expect(abs(identity.calibrate(0.5, index: 0) - 1 / (1 + exp(-(2 * 0.5 - 1)))) < 1e-6)
        #expect(identity.calibrate(0.9, index: 1) == 0.05)  // empty line
        #expect(identity.calibrate(0.2, index: 2) == 0.05)  // not above min_score 0.3
        #expect(abs(identity.calibrate(0.4, index: 2) - 0.5 / (1 + exp(-0.4))) < 1e-6)
        #expect(identity.calibrate(0.4, index: 7) == 0.05)  // no line for the class
        let logistic = try ScoreCalibration(csv: csv, transformation: 2, defaultScore: 0)
        // With slope 1 and offset 0 the inverse logistic and the sigmoid cancel: 0.5 * x.
        #expect(abs(logistic.calibrate(0.8, index: 2) - 0.4) < 1e-6)
        #expect(throws: VisionError.self) { try ScoreCalibration(csv: "1,2\n", transformation: 0, defaultScore: 0) }
        #expect(throws: VisionError.self) { try ScoreCalibration(csv: "1,2,x\n", transformation: 0, defaultScore: 0) }
    }
}

import Foundation
import OpenMLKit
import Testing

@testable import OpenMLKitVision

/// A detection model as the class-agnostic localizer of the custom-classifier detector.
@Suite(
    "Detection model as localizer",
    .enabled(if: TestImages.hasShared, "../shared is not beside the checkout"))
struct LocalizationModelTests {
    static let classifier = TestImages.models.appendingPathComponent("mlkit_object_labeler.tflite").path
    static let ssd = TestImages.models.appendingPathComponent(
        "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_metadata.tflite"
    ).path

    @Test("A hosted localizer model that is not downloaded is a typed error when the detector is made")
    func remoteNotDownloaded() throws {
        let options = CustomObjectDetectorOptions(localModel: LocalModel(path: Self.classifier))
        options.detectorRemoteModel = CustomRemoteModel(name: "not-downloaded-localizer")
        options.modelManager = ModelManager(
            configuration: .init(
                hubURL: nil,
                cacheDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("loc-\(UUID())")))
        #expect(throws: ModelDownloadError.notDownloaded("not-downloaded-localizer")) {
            _ = try ObjectDetector(options: options)
        }
    }

    @Test("A local detection model finds the separate animals")
    func localModel() throws {
        let options = CustomObjectDetectorOptions(localModel: LocalModel(path: Self.classifier))
        options.detectorModel = CustomLocalModel(modelPath: Self.ssd)
        options.detectorMode = .singleImage
        options.shouldEnableClassification = true
        options.shouldEnableMultipleObjects = true
        let detector = try ObjectDetector(options: options)
        let objects = try detector.results(
            in: VisionImage(contentsOfFile: TestImages.images.appendingPathComponent("pets.jpg").path))
        // The two dogs of pets.jpg (annotated in tools/localization-set): measured IoU 0.85 on average.
        let dogs = [CGRect(x: 108, y: 15, width: 154, height: 280), CGRect(x: 345, y: 165, width: 150, height: 200)]
        for dog in dogs {
            let match = objects.first { Self.iou($0.frame, dog) >= 0.5 }
            #expect(match != nil, "\(dog) not found in \(objects.map(\.frame))")
        }
    }

    static func iou(_ a: CGRect, _ b: CGRect) -> Double {
        let i = a.intersection(b)
        guard !i.isNull, i.width > 0 else { return 0 }
        return i.width * i.height / (a.width * a.height + b.width * b.height - i.width * i.height)
    }
}

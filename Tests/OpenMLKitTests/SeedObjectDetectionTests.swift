import Foundation
import ModelHub
import OpenMLKit
import OpenMLKitVision
import Testing

/// The code of ML Kit's object detection guide with a custom classifier (seed 004), as an app
/// would write it, against a real hub: the bundled classifier until the hosted one is downloaded,
/// then the hosted one.
@Suite("Seed code: object detection with a hosted classifier")
struct SeedObjectDetectionTests {
    static let photo = Shared.models.deletingLastPathComponent().appendingPathComponent("images/cat.bmp").path

    @Test func localUntilDownloadedThenRemote() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let env = try await HubAndManager()
        defer { Task { await env.stop() } }
        _ = try await env.admin.publish(
            name: "object_labeler", fileURL: Shared.model("mlkit_object_labeler.tflite"))
        // The app's shared manager would be configured once; here the test's own manager stands in.
        let modelManager = env.manager

        // --- seed: configure the models ---
        let localModel = LocalModel(path: Shared.model("mobilenet_v1_0.25_224_quant_metadata.tflite").path)
        let firebaseModelSource = FirebaseModelSource(name: "object_labeler")
        let remoteModel = CustomRemoteModel(remoteModelSource: firebaseModelSource)

        func makeOptions() -> CustomObjectDetectorOptions {
            // --- seed: remote model when downloaded, else the bundled one ---
            var options: CustomObjectDetectorOptions!
            if modelManager.isModelDownloaded(remoteModel) {
                options = CustomObjectDetectorOptions(remoteModel: remoteModel)
            } else {
                options = CustomObjectDetectorOptions(localModel: localModel)
            }
            options.modelManager = modelManager
            options.detectorMode = .singleImage
            options.shouldEnableClassification = true
            options.shouldEnableMultipleObjects = true
            options.classificationConfidenceThreshold = NSNumber(value: 0.5)
            options.maxPerObjectLabelCount = 3
            return options
        }

        // A remote model that is not downloaded cannot be used directly.
        let early = CustomObjectDetectorOptions(remoteModel: remoteModel)
        early.modelManager = modelManager
        #expect(throws: ModelDownloadError.notDownloaded("object_labeler")) { try ObjectDetector(options: early) }

        let image = try VisionImage(contentsOfFile: Self.photo)
        let before = makeOptions()
        #expect(before.localModel != nil)
        let bundled = try ObjectDetector.objectDetector(options: before).results(in: image)
        // The bundled ImageNet classifier has 1001 classes; the hosted labeler 631.
        #expect(!bundled.isEmpty && bundled.allSatisfy { $0.trackingID == nil && $0.labels.count <= 3 })

        // --- seed: download ---
        let conditions = ModelDownloadConditions(allowsCellularAccess: true, allowsBackgroundDownloading: true)
        _ = try await modelManager.downloadModel(remoteModel, conditions: conditions)

        let after = makeOptions()
        #expect(after.remoteModel == remoteModel)
        let objectDetector = ObjectDetector.objectDetector(options: after)
        let objects = try objectDetector.results(in: image)
        #expect(!objects.isEmpty && objects.count <= 5)
        for object in objects {
            #expect(object.trackingID == nil)
            #expect(object.labels.count <= 3)
            #expect(object.labels.allSatisfy { $0.confidence >= 0.5 && $0.index < 631 })
        }
        #expect(objects.first?.labels.first?.text == "Cat")
    }
}

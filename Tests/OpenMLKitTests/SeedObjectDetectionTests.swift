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

    /// The guide's remaining patterns: ML Kit's notification names, `process` with a completion
    /// handler (and its `async` variant), `results(in:)` in a `do`/`catch`, and the loop over
    /// objects reading `frame`, `trackingID` and each label's text, confidence and index.
    @Test func notificationsProcessAndTheResultLoop() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let env = try await HubAndManager()
        defer { Task { await env.stop() } }
        // Its own name: the other seed test's manager posts notifications for "object_labeler".
        _ = try await env.admin.publish(name: "live_object_labeler", fileURL: Shared.model("mlkit_object_labeler.tflite"))
        let remoteModel = CustomRemoteModel(remoteModelSource: FirebaseModelSource(name: "live_object_labeler"))

        // --- seed: observe .mlkitModelDownloadDidSucceed / ...DidFail ---
        let events = LineBox()
        let succeeded = NotificationCenter.default.addObserver(
            forName: .mlkitModelDownloadDidSucceed, object: nil, queue: nil
        ) { notification in
            guard let userInfo = notification.userInfo,
                let model = userInfo[ModelDownloadUserInfoKey.remoteModel.rawValue] as? RemoteModel,
                model.name == "live_object_labeler"
            else { return }
            events.append("succeeded")
        }
        let failed = NotificationCenter.default.addObserver(
            forName: .mlkitModelDownloadDidFail, object: nil, queue: nil
        ) { notification in
            guard let userInfo = notification.userInfo,
                let model = userInfo[ModelDownloadUserInfoKey.remoteModel.rawValue] as? RemoteModel,
                model.name == "live_object_labeler"
            else { return }
            events.append("failed: \(userInfo[ModelDownloadUserInfoKey.error.rawValue] ?? "")")
        }
        defer {
            NotificationCenter.default.removeObserver(succeeded)
            NotificationCenter.default.removeObserver(failed)
        }
        env.manager.download(remoteModel, conditions: ModelDownloadConditions(allowsCellularAccess: true, allowsBackgroundDownloading: true))
        for _ in 0..<400 where events.lines.isEmpty { try await Task.sleep(nanoseconds: 25_000_000) }
        #expect(events.lines == ["succeeded"])

        // --- seed: live detection and tracking options, then the detector ---
        let options = CustomObjectDetectorOptions(remoteModel: remoteModel)
        options.modelManager = env.manager
        options.shouldEnableClassification = true
        options.maxPerObjectLabelCount = 3
        let objectDetector = ObjectDetector.objectDetector(options: options)
        let image = try VisionImage(contentsOfFile: Self.photo)

        // --- seed: process(_:completion:) ---
        let viaCompletion: [Object] = try await withCheckedThrowingContinuation { continuation in
            objectDetector.process(image) { objects, error in
                guard error == nil, let objects = objects, !objects.isEmpty else {
                    return continuation.resume(throwing: error ?? VisionError.invalidOptions(detail: "no objects"))
                }
                continuation.resume(returning: objects)
            }
        }
        // Stream mode: the same object keeps its ID on the next frames.
        let viaAsync = try await objectDetector.process(image)

        // --- seed: results(in:) in a do/catch ---
        var objects: [Object]
        do {
            objects = try objectDetector.results(in: image)
        } catch let error {
            Issue.record("results(in:) failed: \(error)")
            return
        }

        // --- seed: the result loop ---
        for object in objects {
            let frame = object.frame
            let trackingID = object.trackingID
            let description = object.labels.enumerated().map { (index, label) in
                "Label \(index): \(label.text), \(label.confidence), \(label.index)"
            }.joined(separator: "\n")
            #expect(frame.width > 0 && frame.height > 0)
            #expect(trackingID != nil)
            #expect(description.hasPrefix("Label 0: Cat"), "\(description)")
        }
        #expect(objects.count == 1 && viaCompletion.count == 1 && viaAsync.count == 1)
        #expect(Set([viaCompletion[0].trackingID, viaAsync[0].trackingID, objects[0].trackingID]).count == 1)
    }
}

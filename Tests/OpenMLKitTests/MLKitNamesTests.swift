import Dispatch
import Foundation
import ModelHub
import OpenMLKit
import OpenMLKitVision
import TFLiteRuntime
import Testing

/// ML Kit's and TensorFlowLiteSwift's names and shapes that OpenMLKit added for migrating code:
/// each is exercised for what it does, not only for compiling.
@Suite("ML Kit and TensorFlowLiteSwift names")
struct MLKitNamesTests {
    static let images = Shared.models.deletingLastPathComponent().appendingPathComponent("images")
    static let classifier = Shared.model("mobilenet_v1_0.25_224_quant_metadata.tflite").path
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TFLiteRuntimeTests/Fixtures/ops")

    @Test("ML Kit's notification names observe the same notifications as Firebase's")
    func notificationNames() {
        #expect(Notification.Name.mlkitModelDownloadDidSucceed == .firebaseMLModelDownloadDidSucceed)
        #expect(Notification.Name.mlkitModelDownloadDidFail == .firebaseMLModelDownloadDidFail)
    }

    @Test("LocalModel: path, and a failable manifest initializer")
    func localModel() throws {
        try #require(Shared.available, "../shared/models is missing")
        let file = LocalModel(path: Self.classifier)
        #expect(file.path == Self.classifier && file.manifestPath == nil)
        let manifest = Shared.model("mlkit_automl_flowers/manifest.json").path
        let automl = try #require(AutoMLLocalModel(manifestPath: manifest))
        #expect(automl.path == Shared.model("mlkit_automl_flowers/model.tflite").path)
        #expect(automl.manifestPath == manifest)
        #expect(LocalModel(manifestPath: Shared.model("mlkit_automl_flowers/dict.txt").path) == nil)
        #expect(LocalModel(manifestPath: "/nonexistent/manifest.json") == nil)
        // AutoML labels come from the manifest's folder.
        let labeler = try ImageLabeler(options: AutoMLImageLabelerOptions(localModel: automl))
        #expect(labeler.labels.count == 5)
    }

    @Test("ImageLabeler.imageLabeler(options:) does not throw; process reports the model's problem")
    func labelerFactoryReportsLater() async throws {
        let broken = ImageLabeler.imageLabeler(options: CustomImageLabelerOptions(localModel: LocalModel(path: "/nonexistent.tflite")))
        #expect(broken.loadError != nil && broken.inputFormat == nil && broken.labels.count == 0)
        let image = VisionImage(
            buffer: try PixelBuffer(
                bytes: [UInt8](repeating: 9, count: 12), width: 2, height: 2, format: .rgb8,
                planes: [.init(offset: 0, bytesPerRow: 6)]))
        let reported: String? = await withCheckedContinuation { continuation in
            broken.process(image) { labels, error in
                continuation.resume(returning: labels == nil ? error.map { "\($0)" } : nil)
            }
        }
        #expect(reported != nil)
        await #expect(throws: (any Error).self) { try await broken.process(image) }
    }

    @Test("CustomImageLabelerOptions: NSNumber threshold, maxResultCount, and a remote model from a real hub")
    func labelerOptions() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let image = try VisionImage(contentsOfFile: Self.images.appendingPathComponent("burger.jpg").path)
        let local = CustomImageLabelerOptions(localModel: LocalModel(path: Self.classifier))
        local.maxResultCount = 3
        let all = try await ImageLabeler.imageLabeler(options: local).process(image)
        #expect(all.count == 3 && all[0].confidence >= all[2].confidence)
        local.confidenceThreshold = NSNumber(value: all[0].confidence)
        let strict = try await ImageLabeler.imageLabeler(options: local).process(image)
        #expect(strict.map(\.index) == [all[0].index])

        let env = try await HubAndManager()
        defer { Task { await env.stop() } }
        _ = try await env.admin.publish(name: "labeler", fileURL: URL(fileURLWithPath: Self.classifier))
        let remoteModel = CustomRemoteModel(name: "labeler")
        let remote = CustomImageLabelerOptions(remoteModel: remoteModel)
        remote.modelManager = env.manager
        remote.maxResultCount = 3
        await #expect(throws: ModelDownloadError.notDownloaded("labeler")) {
            try await ImageLabeler.imageLabeler(options: remote).process(image)
        }
        _ = try await env.manager.downloadModel(remoteModel)
        #expect(try await ImageLabeler.imageLabeler(options: remote).process(image) == all)
    }

    /// Stands in for a UIKit view controller: main-actor isolated, setting its own properties
    /// from results, as the guides' completion handlers do.
    @MainActor final class ViewController {
        var labels: [ImageLabel] = []
        var objects: [Object] = []
        var status = ""

        func classifyAndDetect(_ path: String, labeler: ImageLabeler, detector: ObjectDetector) async {
            do {
                labels = try await labeler.process(try VisionImage(contentsOfFile: path))
                objects = try await detector.process(try VisionImage(contentsOfFile: path))
                status = "done"
            } catch {
                status = "failed: \(error)"
            }
        }
    }

    @Test("Swift 6: a main-actor view controller sets its own properties from the async variants")
    @MainActor func mainActorViewController() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let image = Self.images.appendingPathComponent("cat.bmp").path
        let labeler = ImageLabeler.imageLabeler(options: CustomImageLabelerOptions(localModel: LocalModel(path: Self.classifier)))
        let options = ObjectDetectorOptions()
        options.detectorMode = .singleImage
        options.shouldEnableMultipleObjects = true
        let controller = ViewController()
        await controller.classifyAndDetect(image, labeler: labeler, detector: try ObjectDetector(options: options))
        #expect(controller.status == "done")
        #expect(!controller.labels.isEmpty && !controller.objects.isEmpty)
    }

    @Test("Linux completions run on CompletionQueue.queue, which can be chosen")
    func completionQueue() async throws {
        try #require(!completionsAreMainActorHere)
        let key = DispatchSpecificKey<String>()
        let chosen = DispatchQueue(label: "test.completions")
        chosen.setSpecific(key: key, value: "chosen")
        let previous = CompletionQueue.queue
        CompletionQueue.queue = chosen
        defer { CompletionQueue.queue = previous }
        let interpreter = ModelInterpreter.modelInterpreter(localModel: CustomLocalModel(modelPath: "/nonexistent.tflite"))
        let ran: String? = await withCheckedContinuation { continuation in
            interpreter.inputIndex(opName: "x") { _, _ in continuation.resume(returning: DispatchQueue.getSpecific(key: key)) }
        }
        #expect(ran == "chosen")
        CompletionQueue.queue = CompletionQueue.defaultQueue
        let onDefault: String? = await withCheckedContinuation { continuation in
            interpreter.inputIndex(opName: "x") { _, _ in continuation.resume(returning: DispatchQueue.getSpecific(key: key)) }
        }
        #expect(onDefault == nil)
    }

    @Test("Object.trackingID is an NSNumber in stream mode, nil for single images; multiple objects on request")
    func objectShape() throws {
        try #require(Shared.available, "../shared/models is missing")
        let image = try VisionImage(contentsOfFile: Self.images.appendingPathComponent("cats_and_dogs.jpg").path)
        let stream = ObjectDetectorOptions()
        stream.detectorMode = ObjectDetectorMode.stream
        stream.shouldEnableMultipleObjects = true
        let tracked: [Object] = try ObjectDetector(options: stream).results(in: image)
        #expect(!tracked.isEmpty && tracked.allSatisfy { $0.trackingID?.intValue == $0.trackingIDValue && $0.trackingID != nil })
        let single = ObjectDetectorOptions()
        single.detectorMode = .singleImage
        let one = try ObjectDetector(options: single).results(in: image)
        #expect(one.count == 1 && one[0].trackingID == nil)
        single.shouldEnableMultipleObjects = true
        single.shouldEnableClassification = true
        let several = try ObjectDetector(options: single).results(in: image)
        // Stream mode reports fewer regions of one photo than single-image mode (it drops regions far
        // weaker than the best, and tracks need confirming: docs/LOCALIZER.md); both at most 5.
        #expect(several.count >= tracked.count && several.count <= 5)
        #expect(several.allSatisfy { $0.labels.isEmpty }, "no coarse classifier: labels stay empty")
    }

    @Test("TensorFlowLiteSwift: delegates run on the CPU, InterpreterOptions, and its error cases")
    func tensorFlowLiteShapes() throws {
        let path = Self.fixtures.appendingPathComponent("activations/model.tflite").path
        let plain = try Interpreter(modelPath: path)
        #expect(throws: InterpreterError.invokeInterpreterRequired) { try plain.output(at: 0) }
        try plain.allocateTensors()
        let input = Data((0..<48).flatMap { withUnsafeBytes(of: Float($0) / 7 - 3) { Array($0) } })
        try plain.copy(input, toInputAt: 0)
        try plain.invoke()
        var options = Interpreter.Options()
        options.threadCount = nil
        let delegates: [Delegate] = [MetalDelegate(), try #require(CoreMLDelegate())]
        let delegated = try Interpreter(modelPath: path, options: options, delegates: delegates)
        try delegated.allocateTensors()
        try delegated.copy(input, toInputAt: 0)
        try delegated.invoke()
        for index in 0..<plain.outputTensorCount {
            #expect(try delegated.output(at: index).data == plain.output(at: index).data)
        }
        #expect(MetalDelegate().options.waitType == .passive && CoreMLDelegate()?.options.enabledDevices == .neuralEngine)

        // More activation memory than the runtime allows: TensorFlowLiteSwift's failedToAllocateTensors.
        let huge = try Interpreter(modelPath: path)
        try huge.resizeInput(at: 0, to: [2, 3, 1 << 26])
        #expect(throws: InterpreterError.failedToAllocateTensors) { try huge.allocateTensors() }
    }

    @Test("SignatureRunner: allocateTensorsRequired before tensors have memory")
    func signatureRunnerErrors() throws {
        let interpreter = try Interpreter(modelPath: Self.fixtures.appendingPathComponent("small_cnn/model.tflite").path)
        let runner = try interpreter.signatureRunner(with: "serving_default")
        #expect(throws: SignatureRunnerError.allocateTensorsRequired) { try runner.output(named: "output_0") }
        #expect(throws: SignatureRunnerError.allocateTensorsRequired) { try runner.input(named: "keras_tensor") }
        try runner.allocateTensors()
        #expect(try runner.input(named: "keras_tensor").shape == [1, 16, 16, 3])
    }
}

/// Whether this build gives completion handlers main-actor isolation (Apple platforms).
let completionsAreMainActorHere: Bool = {
    #if canImport(Darwin) || OPENMLKIT_MAIN_ACTOR_COMPLETIONS
    return true
    #else
    return false
    #endif
}()

import Foundation
import ModelHub
import OpenMLKit
import OpenMLKitVision
import TensorFlowLite
import Testing

/// The patterns of ML Kit's AutoML object detection guide (seed 003), written afresh: a hosted
/// AutoML model downloaded with `ModelManager`, its file found with `getLatestModelFilePath`, run
/// with TensorFlowLiteSwift's `Interpreter` (`import TensorFlowLite`), and its three outputs read
/// as the guide reads them (boxes, classes, scores). The guide indexes the boxes as
/// `boundingBoxes[k * i]`; the boxes of detection `i` are at `4 * i ..< 4 * i + 4`, used here.
@Suite("Seed code: AutoML object detection with TensorFlowLiteSwift")
struct SeedAutoMLDetectionTests {
    static let model = Shared.model("automl_od_salad_320.tflite")
    static let photo = Shared.models.deletingLastPathComponent().appendingPathComponent("images/img_meal_one.jpg")

    /// Reads `count` Float32 values out of `tensor`, as the guide's `copyBytes(to:)` does.
    static func floats(_ tensor: Tensor, count: Int) -> [Float32] {
        let buffer = UnsafeMutableBufferPointer<Float32>.allocate(capacity: count)
        defer { buffer.deallocate() }
        let copied = tensor.data.copyBytes(to: buffer) / MemoryLayout<Float32>.size
        return Array(buffer.prefix(copied))
    }

    @Test func hostedModelThroughTheInterpreter() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let env = try await HubAndManager()
        defer { Task { await env.stop() } }
        _ = try await env.admin.publish(name: "salad", fileURL: Self.model)
        let manager = env.manager

        // --- seed: the remote model, its download, and the notification that says it arrived ---
        let remoteModel = CustomRemoteModel(name: "salad")
        let arrived = LineBox()
        let observer = NotificationCenter.default.addObserver(
            forName: .firebaseMLModelDownloadDidSucceed, object: nil, queue: nil
        ) { notification in
            guard let userInfo = notification.userInfo,
                let model = userInfo[ModelDownloadUserInfoKey.remoteModel.rawValue] as? RemoteModel,
                model.name == "salad"
            else { return }
            arrived.append(model.name)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        #expect(!manager.isModelDownloaded(remoteModel))
        let progress = manager.download(
            remoteModel, conditions: ModelDownloadConditions(allowsCellularAccess: true, allowsBackgroundDownloading: true))
        for _ in 0..<400 where arrived.lines.isEmpty { try await Task.sleep(nanoseconds: 25_000_000) }
        #expect(arrived.lines == ["salad"] && progress.fractionCompleted == 1)

        // --- seed: the downloaded file if there is one, else the bundled one ---
        var modelPath: String?
        if manager.isModelDownloaded(remoteModel) {
            modelPath = await withCheckedContinuation { continuation in
                manager.getLatestModelFilePath(remoteModel) { path, error in
                    continuation.resume(returning: error == nil ? path : nil)
                }
            }
        } else {
            modelPath = Self.model.path
        }
        let path = try #require(modelPath)
        #expect(path != Self.model.path && FileManager.default.contentsEqual(atPath: path, andPath: Self.model.path))

        // --- seed: the interpreter, the 320×320 RGB input, and the three outputs ---
        let interpreter = try Interpreter(modelPath: path)
        try interpreter.allocateTensors()
        let input = try interpreter.input(at: 0)
        #expect(input.shape.dimensions == [1, 320, 320, 3] && input.dataType == .uInt8)
        let format = try InputImageFormat(tensor: input, normalization: nil)
        let image = try VisionImage(contentsOfFile: Self.photo.path)
        let inputData = try ImagePreprocessor.data(for: image, format: format).data
        try interpreter.copy(inputData, toInputAt: 0)
        try interpreter.invoke()
        let count = try interpreter.output(at: 1).shape.dimensions.last ?? 0
        let boundingBoxes = Self.floats(try interpreter.output(at: 0), count: 4 * count)
        let labels = Self.floats(try interpreter.output(at: 1), count: count)
        let probabilities = Self.floats(try interpreter.output(at: 2), count: count)
        #expect(count > 0 && boundingBoxes.count == 4 * count && probabilities.count == count)

        // The same model through the ObjectDetector API gives the same best object.
        let options = ObjectDetectorOptions(localModel: LocalModel(path: path))
        options.detectorMode = .singleImage
        options.scoreThreshold = 0
        let objects = try ObjectDetector(options: options).results(in: image)
        let best = try #require(probabilities.indices.max { probabilities[$0] < probabilities[$1] })
        let top = try #require(objects.first)
        #expect(abs(top.labels[0].confidence - probabilities[best]) < 1e-5)
        #expect(top.labels[0].index == Int(labels[best]))
        // Boxes are [top, left, bottom, right] in 0...1 of the (stretched) input.
        let box = Array(boundingBoxes[(4 * best)..<(4 * best + 4)])
        let width = Float(image.width)
        let height = Float(image.height)
        #expect(abs(Float(top.frame.minY) - box[0] * height) < 1.5 && abs(Float(top.frame.minX) - box[1] * width) < 1.5)
        #expect(abs(Float(top.frame.maxY) - box[2] * height) < 1.5 && abs(Float(top.frame.maxX) - box[3] * width) < 1.5)
    }
}

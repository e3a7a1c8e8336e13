import Foundation
import ModelHub
import OpenMLKit
import Testing

/// The code of ML Kit's custom-model guide (seeds 000–002), as an app would write it, running
/// against a real hub and a real model. Where the guide uses UIKit/CoreGraphics to get pixels,
/// the test reads a BMP by hand; the guide's pixel loop swaps rows and columns
/// (`4 * (col * width + row)`), which this code does not copy.
@Suite("Seed code: the ML Kit guide's snippets", .serialized)
final class SeedCodeTests: @unchecked Sendable {
    var interpreter: ModelInterpreter?
    var downloaded = false
    var failure: Error?

    static let goldens = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Goldens/seed_classification.json")
    static let images = Shared.models.deletingLastPathComponent().appendingPathComponent("images")

    @Test func remoteOrLocalWithNotificationsThenClassify() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let env = try await HubAndManager()
        defer { Task { await env.stop() } }
        let modelFile = Shared.model("mobilenet_v1_0.25_224_float_metadata.tflite")
        _ = try await env.admin.publish(name: "your_remote_model", fileURL: modelFile)
        // An app configures the shared manager once (Firebase did this from its plist).
        ModelManager.modelManager().configuration = env.manager.configuration

        // --- seed: configure the models ---
        let remoteModel = CustomRemoteModel(
            name: "your_remote_model"  // The name you assigned when publishing.
        )
        let modelPath = modelFile.path
        let localModel = CustomLocalModel(modelPath: modelPath)

        // --- seed: before the download, the bundled model is used ---
        if ModelManager.modelManager().isModelDownloaded(remoteModel) {
            interpreter = ModelInterpreter.modelInterpreter(remoteModel: remoteModel)
        } else {
            interpreter = ModelInterpreter.modelInterpreter(localModel: localModel)
        }
        #expect(!ModelManager.modelManager().isModelDownloaded(remoteModel))

        // --- seed: observe the download notifications ---
        let succeeded = NotificationCenter.default.addObserver(
            forName: .firebaseMLModelDownloadDidSucceed, object: nil, queue: nil
        ) { [weak self] notification in
            guard let strongSelf = self, let userInfo = notification.userInfo,
                let model = userInfo[ModelDownloadUserInfoKey.remoteModel.rawValue] as? RemoteModel,
                model.name == "your_remote_model"
            else { return }
            // The model was downloaded and is available on the device
            strongSelf.downloaded = true
        }
        let failed = NotificationCenter.default.addObserver(
            forName: .firebaseMLModelDownloadDidFail, object: nil, queue: nil
        ) { [weak self] notification in
            guard let strongSelf = self, let userInfo = notification.userInfo,
                let model = userInfo[ModelDownloadUserInfoKey.remoteModel.rawValue] as? RemoteModel,
                model.name == "your_remote_model"
            else { return }
            strongSelf.failure = userInfo[ModelDownloadUserInfoKey.error.rawValue] as? Error
        }
        defer {
            NotificationCenter.default.removeObserver(succeeded)
            NotificationCenter.default.removeObserver(failed)
        }

        // --- seed: start the download ---
        let downloadConditions = ModelDownloadConditions(
            allowsCellularAccess: true,
            allowsBackgroundDownloading: true
        )
        let downloadProgress = ModelManager.modelManager().download(
            remoteModel,
            conditions: downloadConditions
        )
        for _ in 0..<200 where !downloaded && failure == nil { try await Task.sleep(nanoseconds: 25_000_000) }
        #expect(downloaded)
        #expect(failure == nil)
        #expect(downloadProgress.fractionCompleted == 1)

        // --- seed: after the download, the hosted model is used ---
        if ModelManager.modelManager().isModelDownloaded(remoteModel) {
            interpreter = ModelInterpreter.modelInterpreter(remoteModel: remoteModel)
        } else {
            interpreter = ModelInterpreter.modelInterpreter(localModel: localModel)
        }
        let chosen = try #require(interpreter)
        let downloadedPath = try ModelManager.modelManager().latestModelFilePath(remoteModel)

        // --- seed: input and output formats ---
        let ioOptions = ModelInputOutputOptions()
        do {
            try ioOptions.setInputFormat(index: 0, type: .float32, dimensions: [1, 224, 224, 3])
            try ioOptions.setOutputFormat(index: 0, type: .float32, dimensions: [1, 1001])
        } catch let error as NSError {
            Issue.record("Failed to set input or output format with error: \(error.localizedDescription)")
        }

        let labels = try String(contentsOf: Shared.model("imagenet_labels.txt"), encoding: .utf8)
            .components(separatedBy: "\n")
        let golden = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.goldens)) as! [String: Any]
        for case let expected as [String: Any] in golden["cases"] as! [Any] {
            let image = try BMPImage(contentsOf: Self.images.appendingPathComponent(expected["image"] as! String))

            // --- seed: scale the image's colour values into a Data of Float32 ---
            let inputs = ModelInputs()
            var inputData = Data()
            for row in 0..<224 {
                for col in 0..<224 {
                    let x = (col * 2 + 1) * image.width / (2 * 224)
                    let y = (row * 2 + 1) * image.height / (2 * 224)
                    let (red, green, blue) = image.pixel(x: x, y: y)
                    // This model takes values in [-1, 1] (its metadata: mean 127.5, std 127.5).
                    var normalized = [
                        (Float32(red) - 127.5) / 127.5, (Float32(green) - 127.5) / 127.5,
                        (Float32(blue) - 127.5) / 127.5,
                    ]
                    inputData.append(Data(bytes: &normalized, count: 3 * MemoryLayout<Float32>.size))
                }
            }
            try inputs.addInput(inputData)

            // --- seed: run and read [[NSNumber]] ---
            let probabilities: [NSNumber] = try await withCheckedThrowingContinuation { continuation in
                chosen.run(inputs: inputs, options: ioOptions) { outputs, error in
                    guard error == nil, let outputs = outputs else {
                        return continuation.resume(throwing: error ?? ModelInterpreterError.modelFailed("no outputs"))
                    }
                    let output = try? outputs.output(index: 0) as? [[NSNumber]]
                    continuation.resume(returning: output?[0] ?? [])
                }
            }
            #expect(chosen.modelPath == downloadedPath)
            #expect(probabilities.count == 1001)

            // --- seed: map the probabilities to labels; compare with LiteRT on the same pixels ---
            let ranked = probabilities.indices.sorted { probabilities[$0].floatValue > probabilities[$1].floatValue }
            let reference = expected["top5"] as! [[String: Any]]
            for (rank, entry) in reference.enumerated() {
                let index = entry["index"] as! Int
                #expect(ranked[rank] == index, "\(expected["image"]!): rank \(rank) is \(labels[ranked[rank]]), LiteRT says \(labels[index])")
                #expect(labels[index] == entry["label"] as! String)
                #expect(abs(probabilities[index].doubleValue - (entry["score"] as! Double)) < 1e-4)
            }
        }

        // The fallback in one call, and the error when only a remote model exists and it is gone.
        let oneCall = ModelInterpreter.modelInterpreter(remoteModel: remoteModel, localModel: localModel)
        try ModelManager.modelManager().deleteDownloadedModel(remoteModel)
        let onlyRemote = ModelInterpreter.modelInterpreter(remoteModel: remoteModel)
        let inputs = ModelInputs()
        try inputs.addInput(Data(count: 224 * 224 * 3 * 4))
        #expect(throws: ModelInterpreterError.modelNotDownloaded(name: "your_remote_model")) {
            _ = try onlyRemote.runSynchronously(inputs: inputs, options: ioOptions)
        }
        _ = try oneCall.runSynchronously(inputs: inputs, options: ioOptions)
        #expect(oneCall.modelPath == localModel.modelPath)
        ModelManager.modelManager().configuration = .fromEnvironment()
    }
}

/// The pixels of an uncompressed 24-bit BMP (what the guide gets from a CGContext).
struct BMPImage {
    let width: Int
    let height: Int
    private let bytes: [UInt8]
    private let offset: Int
    private let rowBytes: Int
    private let bottomUp: Bool

    init(contentsOf url: URL) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        func int32(_ at: Int) -> Int {
            Int(Int32(bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24))
        }
        guard bytes.count > 54, bytes[0] == 0x42, bytes[1] == 0x4D, bytes[28] == 24, int32(30) == 0 else {
            throw CocoaError(.fileReadCorruptFile)
        }
        let signedHeight = int32(22)
        self.bytes = bytes
        offset = int32(10)
        width = int32(18)
        height = abs(signedHeight)
        bottomUp = signedHeight > 0
        rowBytes = (width * 3 + 3) / 4 * 4
        guard width > 0, offset + rowBytes * height <= bytes.count else { throw CocoaError(.fileReadCorruptFile) }
    }

    /// (red, green, blue) at column `x`, row `y` counted from the top.
    func pixel(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        let row = bottomUp ? height - 1 - y : y
        let at = offset + row * rowBytes + x * 3
        return (bytes[at + 2], bytes[at + 1], bytes[at])
    }
}

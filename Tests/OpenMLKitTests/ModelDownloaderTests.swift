import Foundation
import ModelHub
@testable import OpenMLKit
import Testing

/// Firebase ML Model Downloader's API over a real hub: what each download type does with and
/// without the model on the device, the model's fields, listing, deleting, and the errors.
@Suite("Firebase ModelDownloader against a real hub", .serialized)
struct ModelDownloaderTests {
    static let first = Shared.model("mobilenet_v1_0.25_128_quant.tflite")
    static let second = Shared.model("mobilenet_v1_0.25_224_quant_metadata.tflite")
    static let third = Shared.model("mobilenet_v1_0.25_224_quant_no_subgraph_metadata.tflite")

    static func sha256(_ url: URL) throws -> String { try ModelStore.sha256(of: url) }
    static func size(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? -1
    }

    /// Requests the hub answered for model files (not version checks).
    static func fileDownloads(_ env: HubAndManager) -> Int {
        env.accessLog.filter { $0.contains("/download") }.count
    }

    @Test("latestModel, localModel and localModelUpdateInBackground, with and without a model on disk")
    func downloadTypes() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let env = try await HubAndManager()
        defer { Task { await env.stop() } }
        let downloader = ModelDownloader(modelManager: env.manager)
        let conditions = ModelDownloadConditions(allowsCellularAccess: true, allowsBackgroundDownloading: true)
        _ = try await env.admin.publish(name: "flowers", fileURL: Self.first)

        // Nothing on disk: localModel behaves as latestModel and downloads.
        let fetched = try await downloader.getModel(name: "flowers", downloadType: .localModel, conditions: conditions)
        #expect(fetched.name == "flowers")
        #expect(fetched.hash == (try Self.sha256(Self.first)))
        #expect(fetched.size == (try Self.size(Self.first)))
        #expect(FileManager.default.contentsEqual(atPath: fetched.path, andPath: Self.first.path))

        // A newer version on the hub; localModel keeps the one on disk and asks the hub nothing.
        _ = try await env.admin.publish(name: "flowers", fileURL: Self.second)
        let before = env.accessLog.count
        let local = try await downloader.getModel(name: "flowers", downloadType: .localModel, conditions: conditions)
        #expect(local == fetched)
        #expect(env.accessLog.count == before, "localModel contacted the hub: \(env.accessLog.suffix(3))")

        // localModelUpdateInBackground: the model on disk now, the new version afterwards.
        let recorder = NotificationRecorder(name: "flowers")
        let now = try await downloader.getModel(
            name: "flowers", downloadType: .localModelUpdateInBackground, conditions: conditions)
        #expect(now.hash == (try Self.sha256(Self.first)))
        for _ in 0..<400 where recorder.successCount == 0 && recorder.failures.isEmpty {
            try await Task.sleep(nanoseconds: 25_000_000)
        }
        #expect(recorder.successCount == 1 && recorder.failures.isEmpty)
        let updated = try await downloader.getModel(name: "flowers", downloadType: .localModel, conditions: conditions)
        #expect(updated.hash == (try Self.sha256(Self.second)))

        // latestModel: the hub's current version, and no transfer when the device has it.
        _ = try await env.admin.publish(name: "flowers", fileURL: Self.third)
        let latest = try await downloader.getModel(name: "flowers", downloadType: .latestModel, conditions: conditions)
        #expect(latest.hash == (try Self.sha256(Self.third)))
        let transfers = Self.fileDownloads(env)
        let again = try await downloader.getModel(name: "flowers", downloadType: .latestModel, conditions: conditions)
        #expect(again == latest)
        #expect(Self.fileDownloads(env) == transfers)

        // Nothing on disk: localModelUpdateInBackground downloads before answering.
        _ = try await env.admin.publish(name: "daisies", fileURL: Self.second)
        let fresh = try await downloader.getModel(
            name: "daisies", downloadType: .localModelUpdateInBackground, conditions: conditions)
        #expect(fresh.hash == (try Self.sha256(Self.second)))
        #expect(env.manager.isModelDownloaded(CustomRemoteModel(name: "daisies")))
    }

    @Test("completion handlers: Result, progress in 0...1 ending at 1, list and delete")
    func completionHandlers() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let env = try await HubAndManager()
        defer { Task { await env.stop() } }
        let downloader = ModelDownloader(modelManager: env.manager)
        _ = try await env.admin.publish(name: "roses", fileURL: Self.first)
        let fractions = LineBox()
        let result: Result<CustomModel, DownloadError> = await withCheckedContinuation { continuation in
            downloader.getModel(
                name: "roses", downloadType: .latestModel, conditions: ModelDownloadConditions(),
                progressHandler: { fractions.append("\($0)") }
            ) { continuation.resume(returning: $0) }
        }
        let model = try result.get()
        #expect(model.path.hasSuffix(".tflite"))
        let values = fractions.lines.compactMap(Float.init)
        #expect(!values.isEmpty && values.allSatisfy { (0...1).contains($0) } && values.last == 1, "\(values)")

        let listed: Result<Set<CustomModel>, DownloadedModelError> = await withCheckedContinuation { continuation in
            downloader.listDownloadedModels { continuation.resume(returning: $0) }
        }
        #expect(try listed.get() == [model])
        let deleted: Result<Void, DownloadedModelError> = await withCheckedContinuation { continuation in
            downloader.deleteDownloadedModel(name: "roses") { continuation.resume(returning: $0) }
        }
        #expect(throws: Never.self) { try deleted.get() }
        #expect(!FileManager.default.fileExists(atPath: model.path))
        #expect(try await downloader.listDownloadedModels().isEmpty)
        await #expect(throws: DownloadedModelError.notFound) { try await downloader.deleteDownloadedModel(name: "roses") }
    }

    @Test("Firebase's error cases: not found, empty name, invalid name, no hub, metered network")
    func errors() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let env = try await HubAndManager(network: .metered)
        defer { Task { await env.stop() } }
        let downloader = ModelDownloader(modelManager: env.manager)
        let any = ModelDownloadConditions()
        await #expect(throws: DownloadError.notFound) {
            try await downloader.getModel(name: "nothing_here", downloadType: .latestModel, conditions: any)
        }
        await #expect(throws: DownloadError.emptyModelName) {
            try await downloader.getModel(name: "", downloadType: .localModel, conditions: any)
        }
        await #expect(throws: DownloadError.invalidArgument) {
            try await downloader.getModel(name: "../etc", downloadType: .latestModel, conditions: any)
        }
        _ = try await env.admin.publish(name: "tulips", fileURL: Self.first)
        await #expect(throws: DownloadError.failedPrecondition) {
            try await downloader.getModel(
                name: "tulips", downloadType: .latestModel, conditions: ModelDownloadConditions(allowsCellularAccess: false))
        }
        let unconfigured = ModelDownloader(
            modelManager: ModelManager(configuration: .init(hubURL: nil, cacheDirectory: env.cache)))
        await #expect(throws: DownloadError.failedPrecondition) {
            try await unconfigured.getModel(name: "tulips", downloadType: .latestModel, conditions: any)
        }
        #expect(DownloadError.notFound.localizedDescription.contains("no model"))
    }
}

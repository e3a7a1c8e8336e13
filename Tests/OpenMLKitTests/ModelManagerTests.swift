import Foundation
import ModelHub
import OpenMLKit
import TFLiteRuntime
import Testing

@Suite("ModelManager against a real hub", .serialized)
struct ModelManagerTests {
    let v1File = Shared.model("mobilenet_v1_0.25_128_quant.tflite")
    let v2File = Shared.model("mobilenet_v1_0.25_224_quant_metadata.tflite")

    @Test func downloadVerifyUpdateAndNotModified() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let env = try await HubAndManager()
        defer { Task { await env.stop() } }
        let model = CustomRemoteModel(name: "classifier")
        let notes = NotificationRecorder(name: "classifier")
        #expect(!env.manager.isModelDownloaded(model))
        #expect(throws: ModelDownloadError.notDownloaded("classifier")) { try env.manager.latestModelFilePath(model) }

        let v1 = try await env.admin.publish(name: "classifier", fileURL: v1File)
        let first = try await env.manager.downloadModel(model)
        #expect(first.version == 1)
        #expect(first.sha256 == v1.sha256)
        #expect(env.manager.isModelDownloaded(model))
        #expect(try Data(contentsOf: URL(fileURLWithPath: first.path)) == Data(contentsOf: v1File))
        #expect(try env.manager.latestModelFilePath(model) == first.path)

        // Current: the hub answers 304 and nothing is downloaded again.
        let again = try await env.manager.downloadModel(model)
        #expect(again == first)
        #expect(env.accessLog.contains { $0.contains("GET /v1/models/classifier/latest 304 ") })
        #expect(env.accessLog.filter { $0.contains("/download") }.count == 1)

        // A new version on the hub is picked up by the next download; the old file goes.
        let v2 = try await env.admin.publish(name: "classifier", fileURL: v2File)
        let second = try await env.manager.downloadModel(model)
        #expect(second.version == 2)
        #expect(second.sha256 == v2.sha256)
        #expect(try env.manager.latestModelFilePath(model) == second.path)
        #expect(!FileManager.default.fileExists(atPath: first.path))
        #expect(env.manager.downloadedModels().map(\.name) == ["classifier"])

        // The seeds' completion-style path lookup.
        let path: String? = await withCheckedContinuation { continuation in
            env.manager.getLatestModelFilePath(model) { path, _ in continuation.resume(returning: path) }
        }
        #expect(path == second.path)
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(notes.successCount == 3)
        #expect(notes.failures.isEmpty)

        try env.manager.deleteDownloadedModel(model)
        #expect(!env.manager.isModelDownloaded(model))
    }

    @Test func corruptedDownloadKeepsThePreviousModel() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let env = try await HubAndManager()
        defer { Task { await env.stop() } }
        let model = CustomRemoteModel(name: "guarded")
        let notes = NotificationRecorder(name: "guarded")
        _ = try await env.admin.publish(name: "guarded", fileURL: v1File)
        let installed = try await env.manager.downloadModel(model)
        let blobsBefore = Set(try env.blobFiles())

        // Version 2 is published, then its stored bytes are damaged (a flipped byte on the hub's disk).
        let v2 = try await env.admin.publish(name: "guarded", fileURL: v2File)
        let newBlob = try #require(Set(try env.blobFiles()).subtracting(blobsBefore).first)
        var bytes = try Data(contentsOf: newBlob)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: newBlob)

        await #expect(throws: ModelDownloadError.self) { _ = try await env.manager.downloadModel(model) }
        do {
            _ = try await env.manager.downloadModel(model)
        } catch let error as ModelDownloadError {
            guard case .integrityCheckFailed(let name, let expected, _) = error else {
                Issue.record("expected an integrity failure, got \(error)")
                return
            }
            #expect(name == "guarded")
            #expect(expected == v2.sha256)
        }
        // The working version 1 is still the installed one, intact.
        #expect(env.manager.downloadedModel(model) == installed)
        #expect(try sha256Hex(of: URL(fileURLWithPath: try env.manager.latestModelFilePath(model))) == installed.sha256)
        #expect(!FileManager.default.fileExists(atPath: env.cache.appendingPathComponent("models/guarded/partial.tflite").path))
        try await Task.sleep(nanoseconds: 50_000_000)
        let failures = notes.failures
        #expect(failures.count == 2)
        #expect(failures.allSatisfy { $0.1 is ModelDownloadError })
    }

    @Test func interruptedDownloadResumesWithRange() async throws {
        try #require(Shared.available, "../shared/models is missing")
        // 200 KB/s: the 0.5 MB model takes ~2.5 s, long enough to stop it in the middle.
        let env = try await HubAndManager(downloadBytesPerSecond: 200_000)
        defer { Task { await env.stop() } }
        let model = CustomRemoteModel(name: "slow")
        let published = try await env.admin.publish(name: "slow", fileURL: v1File)
        let progress = env.manager.download(model, conditions: ModelDownloadConditions())
        // Two requests while it runs share one transfer.
        #expect(env.manager.download(model, conditions: ModelDownloadConditions()) === progress)
        let partial = env.cache.appendingPathComponent("models/slow/partial.tflite")
        var waited = 0
        while progress.completedUnitCount < 100_000 && waited < 100 {
            try await Task.sleep(nanoseconds: 50_000_000)
            waited += 1
        }
        progress.cancel()
        await #expect(throws: ModelDownloadError.cancelled) { _ = try await env.manager.downloadModel(model) }
            // (the cancelled transfer is still the shared one, so this waits for it and sees the cancellation)
        let kept = try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber
        let keptBytes = try #require(kept?.int64Value)
        #expect(keptBytes >= 100_000 && keptBytes < published.size, "kept \(keptBytes) of \(published.size) bytes")
        #expect(!env.manager.isModelDownloaded(model))

        let installed = try await env.manager.downloadModel(model)
        #expect(installed.sha256 == published.sha256)
        #expect(try sha256Hex(of: URL(fileURLWithPath: installed.path)) == published.sha256)
        // The hub logs a request once its answer has ended (or broken off), which may be a moment
        // after the client has what it needs.
        for _ in 0..<100 where env.accessLog.filter({ $0.contains("/download") }).count < 2 {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let resumes = env.accessLog.filter { $0.contains("/download ") && $0.contains(" range=bytes=") }
        #expect(resumes.count == 1, "access log: \(env.accessLog)")
        if let resume = resumes.first,
            let start = resume.components(separatedBy: "range=bytes=").last?.split(separator: "-").first
        {
            #expect(Int64(start)! >= keptBytes - 0 && Int64(start)! <= keptBytes, "\(resume) after keeping \(keptBytes)")
            #expect(resume.contains("/download 206 "))
        }
        #expect(env.accessLog.filter { $0.contains("/download") }.count == 2)
    }

    @Test func conditionsAreEnforced() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let env = try await HubAndManager(network: .metered)
        defer { Task { await env.stop() } }
        _ = try await env.admin.publish(name: "cond", fileURL: v1File)
        // The hub logs a request once its answer has ended, which may be a moment after the client
        // has it (CI once read an empty log here): wait for the publish's line first.
        for _ in 0..<100 where env.accessLog.isEmpty {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let model = CustomRemoteModel(name: "cond")
        await #expect(throws: ModelDownloadError.self) {
            _ = try await env.manager.downloadModel(model, conditions: ModelDownloadConditions(allowsCellularAccess: false))
        }
        env.manager.applicationState = .background
        await #expect(throws: ModelDownloadError.self) {
            _ = try await env.manager.downloadModel(model, conditions: ModelDownloadConditions(allowsBackgroundDownloading: false))
        }
        #expect(
            env.accessLog.count == 1 && env.accessLog[0].contains("POST /v1/models/cond/versions 201 "),
            "nothing may reach the hub when conditions forbid it: \(env.accessLog)")
        let installed = try await env.manager.downloadModel(
            model, conditions: ModelDownloadConditions(allowsCellularAccess: true, allowsBackgroundDownloading: true))
        #expect(installed.version == 1)
    }

    @Test func groupsAndInstallationsFollowTheRollout() async throws {
        try #require(Shared.available, "../shared/models is missing")
        let beta = try await HubAndManager(groups: ["beta"])
        defer { Task { await beta.stop() } }
        _ = try await beta.admin.publish(name: "ab", fileURL: v1File)
        _ = try await beta.admin.publish(name: "ab", fileURL: v2File)
        _ = try await beta.admin.setRollout(HubRollout(rules: [.group("beta", version: 2)], defaultVersion: 1), for: "ab")
        #expect(try await beta.manager.downloadModel(CustomRemoteModel(name: "ab")).version == 2)
        let everyoneElse = ModelManager(
            configuration: .init(
                hubURL: beta.hub.url, cacheDirectory: beta.cache.appendingPathComponent("other"),
                networkMonitor: FixedNetwork(kind: .unmetered)))
        #expect(try await everyoneElse.downloadModel(CustomRemoteModel(name: "ab")).version == 1)
        // The installation ID is stable for a cache.
        #expect(try beta.manager.installationID() == beta.manager.installationID())
    }

    @Test func errorsNameTheProblem() async throws {
        let offline = ModelManager(
            configuration: .init(hubURL: URL(string: "http://127.0.0.1:9")!, cacheDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("openmlkit-offline-\(UUID())"), networkMonitor: FixedNetwork(kind: .unmetered)))
        await #expect(throws: ModelDownloadError.self) { _ = try await offline.downloadModel(CustomRemoteModel(name: "x")) }
        await #expect(throws: ModelDownloadError.invalidModelName("../etc")) {
            _ = try await offline.downloadModel(CustomRemoteModel(name: "../etc"))
        }
        let unconfigured = ModelManager(configuration: .init(hubURL: nil, cacheDirectory: FileManager.default.temporaryDirectory))
        await #expect(throws: ModelDownloadError.hubNotConfigured) { _ = try await unconfigured.downloadModel(CustomRemoteModel(name: "x")) }
        if Shared.available {
            let env = try await HubAndManager()
            defer { Task { await env.stop() } }
            await #expect(throws: ModelDownloadError.modelNotFound("no model named 'missing'")) {
                _ = try await env.manager.downloadModel(CustomRemoteModel(name: "missing"))
            }
        }
    }

    @Test func networkClassification() {
        let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
        #expect(SystemNetworkMonitor.classify(routeTable: header + "eth0\t00000000\t0102A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n") == .unmetered)
        #expect(SystemNetworkMonitor.classify(routeTable: header + "wwan0\t00000000\t0102A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n") == .metered)
        #expect(SystemNetworkMonitor.classify(routeTable: header + "eth0\t0002A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n") == .unknown)
        #expect(SystemNetworkMonitor(environment: ["OPENMLKIT_NETWORK": "metered"]).currentNetwork() == .metered)
        #expect(SystemNetworkMonitor(environment: [:], routeTablePath: "/nonexistent").currentNetwork() == .unknown)
    }
}

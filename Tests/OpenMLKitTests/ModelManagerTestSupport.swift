import Foundation
import ModelHub
import OpenMLKit

/// A real hub on a loopback port plus a manager with its own cache, for one test.
final class HubAndManager: @unchecked Sendable {
    static let token = "manager-test-token"
    let hubDirectory: URL
    let cache: URL
    let hub: RunningHub
    let manager: ModelManager

    init(downloadBytesPerSecond: Int? = nil, network: NetworkKind = .unmetered, groups: [String] = []) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("openmlkit-manager-\(UUID().uuidString)")
        hubDirectory = base.appendingPathComponent("hub")
        cache = base.appendingPathComponent("cache")
        var log: (@Sendable (String) -> Void)?
        let box = LineBox()
        log = { box.append($0) }
        self.box = box
        hub = try await HubServer(
            configuration: HubConfiguration(
                dataDirectory: hubDirectory, port: 0, adminToken: Self.token,
                downloadBytesPerSecond: downloadBytesPerSecond, accessLog: log)
        ).start()
        manager = ModelManager(
            configuration: .init(
                hubURL: hub.url, cacheDirectory: cache, userGroups: groups, networkMonitor: FixedNetwork(kind: network)))
    }

    private let box: LineBox
    var accessLog: [String] { box.lines }
    var admin: ModelHubClient { ModelHubClient(baseURL: hub.url, adminToken: Self.token) }

    func stop() async { await hub.stop() }

    /// The hub's stored file for the only blob of the latest publish (for corrupting it on purpose).
    func blobFiles() throws -> [URL] {
        let blobs = hubDirectory.appendingPathComponent("blobs")
        return try FileManager.default.contentsOfDirectory(at: blobs, includingPropertiesForKeys: [.contentModificationDateKey])
    }
}

final class LineBox: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ line: String) { lock.withLock { storage.append(line) } }
    var lines: [String] { lock.withLock { storage } }
}

/// A network monitor that reports a fixed network kind (injected, as apps may do).
struct FixedNetwork: NetworkMonitor {
    let kind: NetworkKind
    func currentNetwork() -> NetworkKind { kind }
}

enum Shared {
    static let models = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/models")
    static func model(_ name: String) -> URL { models.appendingPathComponent(name) }
    static var available: Bool { FileManager.default.fileExists(atPath: model("mobilenet_v1_0.25_128_quant.tflite").path) }
}

/// Collects the download notifications posted for one model name.
final class NotificationRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var observers: [NSObjectProtocol] = []
    private(set) var succeeded: [String] = []
    private(set) var failed: [(String, Error?)] = []

    init(name: String) {
        observers.append(
            NotificationCenter.default.addObserver(forName: .firebaseMLModelDownloadDidSucceed, object: nil, queue: nil) {
                [weak self] note in
                guard let model = note.userInfo?[ModelDownloadUserInfoKey.remoteModel.rawValue] as? RemoteModel,
                    model.name == name
                else { return }
                self?.lock.withLock { self?.succeeded.append(model.name) }
            })
        observers.append(
            NotificationCenter.default.addObserver(forName: .firebaseMLModelDownloadDidFail, object: nil, queue: nil) {
                [weak self] note in
                guard let model = note.userInfo?[ModelDownloadUserInfoKey.remoteModel.rawValue] as? RemoteModel,
                    model.name == name
                else { return }
                let error = note.userInfo?[ModelDownloadUserInfoKey.error.rawValue] as? Error
                self?.lock.withLock { self?.failed.append((model.name, error)) }
            })
    }

    var successCount: Int { lock.withLock { succeeded.count } }
    var failures: [(String, Error?)] { lock.withLock { failed } }

    deinit { for observer in observers { NotificationCenter.default.removeObserver(observer) } }
}

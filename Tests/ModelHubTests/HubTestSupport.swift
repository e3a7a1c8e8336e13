import Foundation
import ModelHub
import OpenMLKit
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Real published models from ../shared/models (tests that need them skip with a message when absent).
enum SharedModels {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/models")

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }
    static var available: Bool { FileManager.default.fileExists(atPath: url("mobilenet_v1_0.25_128_quant.tflite").path) }
}

/// A hub on a loopback port with its own data directory and an access log the test can read.
final class TestHub: @unchecked Sendable {
    static let adminToken = "test-admin-token"
    let directory: URL
    let running: RunningHub
    private let log: LogLines

    var url: URL { running.url }
    var admin: ModelHubClient { ModelHubClient(baseURL: url, appKey: appKey, adminToken: Self.adminToken) }
    var reader: ModelHubClient { ModelHubClient(baseURL: url, appKey: appKey) }
    let appKey: String?

    init(appKey: String? = nil, maxUploadBytes: Int64 = 64 << 20, downloadBytesPerSecond: Int? = nil, directory: URL? = nil)
        async throws
    {
        let directory = try directory ?? temporaryDirectory("hub")
        let log = LogLines()
        let server = try HubServer(
            configuration: HubConfiguration(
                dataDirectory: directory, port: 0, adminToken: Self.adminToken, appKey: appKey,
                maxUploadBytes: maxUploadBytes, downloadBytesPerSecond: downloadBytesPerSecond,
                accessLog: { log.append($0) }))
        self.directory = directory
        self.appKey = appKey
        self.log = log
        self.running = try await server.start()
    }

    var accessLog: [String] { log.lines }

    func stop() async { await running.stop() }

    /// Sends a raw request and returns status, headers and body.
    func send(
        _ path: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
    ) async throws -> (Int, [String: String], Data) {
        var request = URLRequest(url: URL(string: url.absoluteString + path)!)
        request.httpMethod = method
        request.cachePolicy = .reloadIgnoringLocalCacheData
        for (key, value) in headers { request.setValue(value, forHTTPHeaderField: key) }
        request.httpBody = body
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                let http = response as! HTTPURLResponse
                var fields = [String: String]()
                for (key, value) in http.allHeaderFields { fields["\(key)".lowercased()] = "\(value)" }
                continuation.resume(returning: (http.statusCode, fields, data ?? Data()))
            }.resume()
        }
    }
}

final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ line: String) { lock.withLock { storage.append(line) } }
    var lines: [String] { lock.withLock { storage } }
}

func temporaryDirectory(_ label: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("openmlkit-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

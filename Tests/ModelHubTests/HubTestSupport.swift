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

    init(
        appKey: String? = nil, maxUploadBytes: Int64 = 64 << 20, downloadBytesPerSecond: Int? = nil, directory: URL? = nil,
        configure: (inout HubConfiguration) -> Void = { _ in }
    ) async throws {
        let directory = try directory ?? temporaryDirectory("hub")
        let log = LogLines()
        var configuration = HubConfiguration(
            dataDirectory: directory, port: 0, adminToken: Self.adminToken, appKey: appKey,
            maxUploadBytes: maxUploadBytes, downloadBytesPerSecond: downloadBytesPerSecond,
            accessLog: { log.append($0) })
        configure(&configuration)
        let server = try HubServer(configuration: configuration)
        self.directory = directory
        self.appKey = appKey
        self.log = log
        self.running = try await server.start()
    }

    var accessLog: [String] { log.lines }
    var server: HubServer { running.server }
    var blobsDirectory: URL { running.server.configuration.effectiveBlobsDirectory }

    /// Waits up to `seconds` for `condition` (access-log lines and download counts are written a
    /// moment after the answer).
    func eventually(_ seconds: Double = 5, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return try await condition()
    }

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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to the hub, for what URLSession will not send: slow or malformed
/// requests, connections that never send anything.
final class RawSocket: @unchecked Sendable {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends bytes; false when the hub has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Everything the hub sends until it closes (or 10 s pass).
    func readAll() -> String {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Sends `text` every `interval` seconds until the hub closes the connection; the seconds that
    /// took, or nil when it was still open after `limit`. Blocks: call it through `onOwnThread`.
    func secondsUntilClosed(sending text: String, every interval: Double, giveUpAfter limit: Double) -> Double? {
        let started = Date()
        while Date().timeIntervalSince(started) < limit {
            usleep(useconds_t(interval * 1e6))
            if !send(text) { return Date().timeIntervalSince(started) }
        }
        return nil
    }

    /// Whether the hub has already closed the connection (end-of-file or reset), without waiting.
    func isClosedNow() -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK))
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Whether the hub has closed the connection (a read returns end-of-file within `seconds`).
    func isClosedByPeer(within seconds: Int) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var byte: UInt8 = 0
        while true {
            let n = recv(fd, &byte, 1, 0)
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
    }
}

/// Runs blocking socket work on a thread of its own, so that a busy test pool (other suites run
/// at the same time) cannot delay it, nor it them.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

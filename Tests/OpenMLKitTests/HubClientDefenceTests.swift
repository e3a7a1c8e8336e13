import Foundation
import ModelHub
import OpenMLKit
import Testing

/// The client against hubs that misbehave on purpose (D3, D4, D5, D10 of issue 14): every case
/// here failed, hung or leaked before the client went through `HubTransfer`.
@Suite("Hub client against hostile servers", .serialized)
struct HubClientDefenceTests {
    static let digest = String(repeating: "ab", count: 32)

    static func versionJSON(name: String = "m", size: Int64 = 1000, sha256: String = digest) -> String {
        #"{"name":"\#(name)","version":1,"size":\#(size),"sha256":"\#(sha256)","publishedAt":"2026-01-01T00:00:00Z"}"#
    }

    func makeManager(_ url: URL, limits: HubTransferLimits = .download, keys: [ModelSigningPublicKey] = []) -> (ModelManager, URL) {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("openmlkit-rogue-\(UUID().uuidString)")
        let manager = ModelManager(
            configuration: .init(
                hubURL: url, appKey: "secret-app-key", cacheDirectory: cache, networkMonitor: FixedNetwork(kind: .unmetered),
                downloadLimits: limits, requestLimits: HubTransferLimits(timeout: 5, minimumBytesPerSecond: 0),
                trustedSigningKeys: keys))
        return (manager, cache)
    }

    // D3: credentials never follow a redirect to another origin; changes never follow redirects.
    @Test func credentialsStayWithTheirOrigin() async throws {
        let elsewhere = try RogueHTTPServer { _, connection in
            connection.respond(status: "200 OK", json: #"{"models":[]}"#)
        }
        defer { elsewhere.stop() }
        let hub = try RogueHTTPServer { request, connection in
            if request.path.hasPrefix("/v1/models/same") {
                connection.respond(status: "200 OK", json: #"{"models":[]}"#)
            } else if request.path == "/v1/models" && request.headers["x-hop"] == nil {
                connection.respond(status: "302 Found", headers: ["Location": "/v1/models/same"], body: [])
            } else {
                connection.respond(
                    status: "307 Temporary Redirect", headers: ["Location": elsewhere.url.absoluteString + request.path], body: [])
            }
        }
        defer { hub.stop() }

        // A redirect within the hub's origin is followed, credentials included.
        let reader = ModelHubClient(baseURL: hub.url, appKey: "secret-app-key")
        #expect(try await reader.listModels().isEmpty)

        // To another origin: refused, and the other server never sees the key or the token.
        let admin = ModelHubClient(baseURL: hub.url, appKey: "secret-app-key", adminToken: "secret-admin-token")
        await #expect(throws: ModelDownloadError.self) { _ = try await admin.model(named: "m") }
        do {
            _ = try await admin.model(named: "m")
        } catch let error as ModelDownloadError {
            guard case .redirectRefused(let message) = error else { Issue.record("got \(error)"); return }
            #expect(message.contains("another origin"))
        }
        await #expect(throws: ModelDownloadError.self) { try await admin.deleteModel(named: "m") }
        await #expect(throws: ModelDownloadError.self) {
            _ = try await admin.setRollout(HubRollout(), for: "m")
        }
        for request in elsewhere.requests {
            #expect(request.headers["authorization"] == nil, "the admin token reached another origin")
            #expect(request.headers["x-app-key"] == nil, "the app key reached another origin")
        }
        // Publish and delete are never redirected, not even within the origin.
        let sameOrigin = try RogueHTTPServer { request, connection in
            connection.respond(status: "307 Temporary Redirect", headers: ["Location": "/v1/other"], body: [])
        }
        defer { sameOrigin.stop() }
        let changer = ModelHubClient(baseURL: sameOrigin.url, adminToken: "secret-admin-token")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rogue-\(UUID()).tflite")
        try Data(repeating: 1, count: 100).write(to: file)
        await #expect(throws: ModelDownloadError.self) { _ = try await changer.publish(name: "m", fileURL: file) }
        await #expect(throws: ModelDownloadError.self) { try await changer.deleteModel(named: "m") }
        #expect(sameOrigin.requests.allSatisfy { !$0.path.hasPrefix("/v1/other") }, "a change followed a redirect")
    }

    // D4: a trickle is given up by the minimum rate; a stall by the deadline; plain messages.
    @Test func slowHubsTimeOut() async throws {
        let trickle = try RogueHTTPServer { request, connection in
            if request.path.contains("/latest") {
                connection.respond(status: "200 OK", json: Self.versionJSON())
                return
            }
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n")
            for _ in 0..<200 {
                guard connection.write([0]) else { return }
                Thread.sleep(forTimeInterval: 0.3)
            }
        }
        defer { trickle.stop() }
        let (manager, cache) = makeManager(trickle.url, limits: HubTransferLimits(timeout: 60, minimumBytesPerSecond: 1024, rateWindow: 2))
        let start = Date()
        do {
            _ = try await manager.downloadModel(CustomRemoteModel(name: "m"))
            Issue.record("a trickling download succeeded")
        } catch let error as ModelDownloadError {
            guard case .timedOut = error else { Issue.record("got \(error)"); return }
            let text = error.localizedDescription
            #expect(text.contains("bytes/s") && !text.contains("NSURLErrorDomain"), "\(text)")
        }
        #expect(Date().timeIntervalSince(start) < 30, "the trickle lasts 60 s; the rate check cuts it after its 2 s window")
        // The bytes received so far are kept for resuming.
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent("models/m/partial.tflite").path))

        let (deadlined, _) = makeManager(trickle.url, limits: HubTransferLimits(timeout: 2, minimumBytesPerSecond: 0))
        let started = Date()
        await #expect(throws: ModelDownloadError.self) { _ = try await deadlined.downloadModel(CustomRemoteModel(name: "m")) }
        #expect(Date().timeIntervalSince(started) < 30, "the trickle lasts 60 s; the deadline is 2 s")
    }

    // D5: no more bytes than the version has reach the disk; answers about versions are capped.
    @Test func oversizedAnswersStopAtTheAnnouncedSize() async throws {
        let flood = try RogueHTTPServer { request, connection in
            if request.path.contains("/latest") {
                connection.respond(status: "200 OK", json: Self.versionJSON(size: 1000))
            } else if request.headers["x-case"] == nil && request.path.contains("chunked") == false {
                // Announces and sends 50 MiB for a version of 1,000 bytes.
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(50 << 20)\r\nConnection: close\r\n\r\n")
                let block = [UInt8](repeating: 7, count: 1 << 16)
                for _ in 0..<800 where connection.write(block) {}
            }
        }
        defer { flood.stop() }
        let (manager, cache) = makeManager(flood.url)
        await #expect(throws: ModelDownloadError.self) { _ = try await manager.downloadModel(CustomRemoteModel(name: "m")) }
        let partial = cache.appendingPathComponent("models/m/partial.tflite")
        let size = (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.intValue ?? 0
        #expect(size <= 1000, "wrote \(size) bytes for a 1,000-byte version")

        // Without Content-Length (close-delimited): stopped at the version's size as well.
        let unannounced = try RogueHTTPServer { request, connection in
            if request.path.contains("/latest") {
                connection.respond(status: "200 OK", json: Self.versionJSON(size: 1000))
            } else {
                connection.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
                let block = [UInt8](repeating: 7, count: 1 << 16)
                for _ in 0..<800 where connection.write(block) {}
            }
        }
        defer { unannounced.stop() }
        let (second, secondCache) = makeManager(unannounced.url)
        do {
            _ = try await second.downloadModel(CustomRemoteModel(name: "m"))
            Issue.record("an oversized download succeeded")
        } catch let error as ModelDownloadError {
            guard case .oversizedAnswer = error else { Issue.record("got \(error)"); return }
        }
        let secondPartial = secondCache.appendingPathComponent("models/m/partial.tflite").path
        let secondSize = (try? FileManager.default.attributesOfItem(atPath: secondPartial)[.size] as? NSNumber)?.intValue ?? 0
        #expect(secondSize <= 1000)

        // A 200 MB "version" answer is cut at the client's cap instead of filling memory.
        let huge = try RogueHTTPServer { _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
            let block = [UInt8](repeating: 0x20, count: 1 << 16)
            for _ in 0..<3200 where connection.write(block) {}
        }
        defer { huge.stop() }
        let client = ModelHubClient(baseURL: huge.url, maximumAnswerBytes: 1 << 20)
        do {
            _ = try await client.latestVersion(of: "m", installationID: nil)
            Issue.record("a 200 MB answer was accepted")
        } catch let error as ModelDownloadError {
            guard case .oversizedAnswer = error else { Issue.record("got \(error)"); return }
        }
    }

    // D10: messages say what is wrong, and never print a binary body.
    @Test func hubErrorsReadPlainly() async throws {
        let odd = try RogueHTTPServer { request, connection in
            switch request.path {
            case let path where path.contains("/negative/"):
                connection.respond(status: "200 OK", json: Self.versionJSON(name: "negative", size: -5))
            case let path where path.contains("/renamed/"):
                connection.respond(status: "200 OK", json: Self.versionJSON(name: "other"))
            case let path where path.contains("/binary/"):
                connection.respond(status: "500 Internal Server Error", body: [0, 1, 2, 3, 0xff, 0xfe, 0, 7, 8, 0, 0, 0])
            default:
                connection.respond(status: "502 Bad Gateway", headers: ["Content-Type": "text/html"], body: Array("<html><body>\n<h1>502 Bad Gateway</h1>\n</body></html>".utf8))
            }
        }
        defer { odd.stop() }
        let (manager, _) = makeManager(odd.url)
        func message(_ name: String) async -> String {
            do {
                _ = try await manager.downloadModel(CustomRemoteModel(name: name))
                return "no error"
            } catch { return error.localizedDescription }
        }
        let negative = await message("negative")
        #expect(negative.contains("impossible size of -5 bytes"), "\(negative)")
        let renamed = await message("renamed")
        #expect(renamed.contains("asked for 'renamed'") && renamed.contains("'other'"), "\(renamed)")
        let binary = await message("binary")
        #expect(binary.contains("not text") && !binary.contains("\u{0}"), "\(binary)")
        let html = await message("gateway")
        #expect(html.contains("502") && html.contains("non-JSON") && !html.contains("\n"), "\(html)")
    }
}

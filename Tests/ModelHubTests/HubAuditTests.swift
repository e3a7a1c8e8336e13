import Foundation
import ModelHub
import OpenMLKit
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Defects found by an adversarial audit of the hub, each reproduced against a real hub on
/// loopback with raw sockets (what URLSession will not do: stop reading, cut an upload short).
@Suite("ModelHub audit: slow readers, cut uploads, chunked bodies", .serialized)
struct HubAuditTests {
    let small = SharedModels.url("mobilenet_v1_0.25_128_quant.tflite")

    /// A valid model of about 20 MiB: a real model followed by zeros (the verifier accepts bytes
    /// no table points at). Large enough that no kernel socket buffer holds the whole answer.
    func largeModel() throws -> URL {
        let url = try temporaryDirectory("large").appendingPathComponent("large.tflite")
        var bytes = try Data(contentsOf: small)
        bytes.append(Data(count: 20 << 20))
        try bytes.write(to: url)
        return url
    }

    /// A hub with a 1-second idle timeout serving `largeModel()` as version 1 of "large"; the
    /// caller stops the hub and removes the file's directory.
    func hubServingLargeModel() async throws -> (TestHub, URL, HubModelVersion) {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub { $0.idleTimeout = .seconds(1) }
        do {
            let file = try largeModel()
            return (hub, file, try await hub.admin.publish(name: "large", fileURL: file))
        } catch {
            await hub.stop()
            throw error
        }
    }

    // The idle timeout used to start when a download's end was queued, while most of the file was
    // still waiting to be sent: a client reading steadily but slower than the file's size per idle
    // timeout lost the rest of the file (a clean close after a fraction of Content-Length).
    @Test func slowButSteadyDownloadIsNotCutByTheIdleTimeout() async throws {
        let (hub, file, version) = try await hubServingLargeModel()
        defer { Task { await hub.stop() } }
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }

        let socket = try RawSocket(port: hub.running.port)
        socket.send("GET /v1/models/large/versions/1/download HTTP/1.1\r\nHost: x\r\n\r\n")
        // About 4 MiB/s, in small steps, so the window never stays closed for the idle timeout.
        let (head, bodyBytes) = socket.readAnswer(bytesPerStep: 64 * 1024, pause: 0.015)
        #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
        #expect(bodyBytes == version.size, "a steady reader got \(bodyBytes) of \(version.size) bytes")
    }

    // Without a deadline on answers, a client that never reads would hold its connection (and the
    // open file) for ever once the idle timeout no longer cuts answers: the kernel now drops it.
    @Test func clientThatStopsReadingIsDropped() async throws {
        let (hub, file, version) = try await hubServingLargeModel()
        defer { Task { await hub.stop() } }
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }

        let socket = try RawSocket(port: hub.running.port)
        socket.send("GET /v1/models/large/versions/1/download HTTP/1.1\r\nHost: x\r\n\r\n")
        // Zero-window probes back off (0.2, 0.6, 1.4, 3 s...): the kernel gives up within a few seconds.
        try await Task.sleep(nanoseconds: 8_000_000_000)
        // Reading now gets what sat in the socket buffers, then the end: the hub let go.
        let (_, bodyBytes) = socket.readAnswer(bytesPerStep: 1 << 20, pause: 0)
        #expect(bodyBytes < version.size, "a client that read nothing for 8 s still got the whole file")
        // The access log said "200 21497118 B 1.6 ms" when the file region was queued; its line
        // now comes when the answer breaks off, and says so (bytes sent unknown: 0, as the fast path).
        let logged = await hub.eventually(5) {
            hub.accessLog.contains {
                $0.contains("/v1/models/large/versions/1/download 200 0 B") && $0.contains("broken off")
            }
        }
        #expect(logged, "\(hub.accessLog.filter { $0.contains("download") })")
    }

    // Hummingbird takes a request stream that stops for the body's end, so an upload cut off by
    // the client (all but its last byte, or a chunked body without its last chunk) was checked
    // and published as if it were complete; an upload reset by the client counted as "storage".
    @Test func cutOffUploadsPublishNothing() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        let bytes = [UInt8](try Data(contentsOf: small))
        let auth = "Authorization: Bearer \(TestHub.adminToken)\r\n"

        let declared = try RawSocket(port: hub.running.port)
        declared.send("POST /v1/models/cut/versions HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: \(bytes.count)\r\n\r\n")
        declared.send(bytes: Array(bytes.dropLast()))
        declared.closeWriting()

        // Every byte of the file, but the chunked body never ends.
        let chunked = try RawSocket(port: hub.running.port)
        chunked.send("POST /v1/models/cut/versions HTTP/1.1\r\nHost: x\r\n\(auth)Transfer-Encoding: chunked\r\n\r\n")
        chunked.send(String(bytes.count, radix: 16) + "\r\n")
        chunked.send(bytes: bytes)
        chunked.send("\r\n")
        chunked.closeWriting()

        // Half the file, then a reset: the client's fault, not a storage failure.
        do {
            let reset = try RawSocket(port: hub.running.port)
            reset.send("POST /v1/models/cut/versions HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: \(bytes.count)\r\n\r\n")
            reset.send(bytes: Array(bytes.prefix(bytes.count / 2)))
            try await Task.sleep(nanoseconds: 200_000_000)
            reset.resetOnClose()
        }

        let allRefused = await hub.eventually(10) {
            let text = String(decoding: hub.server.metrics.exposition(), as: UTF8.self)
            return text.contains(#"modelhub_uploads_rejected_total{reason="bad_request"} 3"#)
        }
        let metrics = String(decoding: hub.server.metrics.exposition(), as: UTF8.self)
        #expect(allRefused, "\(metrics.split(separator: "\n").filter { $0.contains("rejected") })")
        #expect(!metrics.contains(#"reason="storage""#), "a client's reset was counted as a storage failure")
        await #expect(throws: ModelDownloadError.self) { _ = try await hub.reader.model(named: "cut") }
        let staging = hub.directory.appendingPathComponent("staging")
        #expect(try FileManager.default.contentsOfDirectory(atPath: staging.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: hub.blobsDirectory.path).isEmpty)

        // A complete chunked upload still publishes.
        let complete = try RawSocket(port: hub.running.port)
        complete.send("POST /v1/models/whole/versions HTTP/1.1\r\nHost: x\r\n\(auth)Transfer-Encoding: chunked\r\n\r\n")
        complete.send(String(bytes.count, radix: 16) + "\r\n")
        complete.send(bytes: bytes)
        complete.send("\r\n0\r\n\r\n")
        let (head, _) = complete.readAnswer(bytesPerStep: 1 << 16, pause: 0)
        #expect(head.hasPrefix("HTTP/1.1 201"), "\(head)")
    }

    // A chunked rollout over the 1 MiB limit was a 500 ("unexpected failure" in the log).
    @Test func oversizedChunkedRolloutIs413() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        _ = try await hub.admin.publish(name: "m", fileURL: small)
        let socket = try RawSocket(port: hub.running.port)
        socket.send(
            "PUT /v1/models/m/rollout HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(TestHub.adminToken)\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        let chunk = String(repeating: " ", count: 0x10000)
        for _ in 0..<24 where socket.send("10000\r\n\(chunk)\r\n") {}
        socket.send("0\r\n\r\n")
        let answer = socket.readAll()
        #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(200))")
        #expect(answer.contains(#""status":413"#))
    }
}

extension RawSocket {
    /// Sends raw bytes; false when the hub has closed the connection.
    @discardableResult
    func send(bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    /// Makes the close (at deinit) a reset (RST) instead of an orderly end.
    func resetOnClose() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// Ends the request side of the connection (the client is done sending, or gives up).
    func closeWriting() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads one answer, `bytesPerStep` at a time with `pause` seconds between steps, until the
    /// body has its `Content-Length` or the hub closes; returns the head and the body bytes read.
    func readAnswer(bytesPerStep: Int, pause: Double) -> (head: String, bodyBytes: Int64) {
        var start = [UInt8]()  // until the head is complete
        var head: String?
        var length: Int64?
        var body: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: bytesPerStep)
        while true {
            if let length, body >= length { break }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            if head == nil {
                start.append(contentsOf: buffer[0..<n])
                if let end = start.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                    head = String(decoding: start[..<end], as: UTF8.self)
                    body = Int64(start.count - end)
                    length = head?.lowercased().components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int64($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                }
            } else {
                body += Int64(n)
            }
            if pause > 0 { Thread.sleep(forTimeInterval: pause) }
        }
        return (head ?? String(decoding: start, as: UTF8.self), body)
    }
}

/// Every answer forbids content sniffing and active content, whichever part of the hub produced it.
@Suite("ModelHub security headers")
struct HubSecurityHeaderTests {
    @Test func everyKindOfAnswerCarriesThem() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        _ = try await hub.admin.publish(name: "m", fileURL: SharedModels.url("mobilenet_v1_0.25_128_quant.tflite"))
        let auth = ["Authorization": "Bearer \(TestHub.adminToken)"]
        let requests: [(String, String, [String: String])] = [
            ("/v1/health", "GET", [:]),  // a route
            ("/v1/models/m/versions/1/download", "GET", ["Range": "bytes=0-9"]),  // the full download route
            ("/v1/models/m/versions/1/download", "GET", [:]),  // the full route (it fills the version cache)
            ("/v1/models/m/versions/1/download", "GET", [:]),  // the download fast path (served from the cache)
            ("/v1/models/m/versions/1/download", "HEAD", [:]),
            ("/v2/nothing", "GET", [:]),  // 404 from the router
            ("/v1/models/m/versions/1/download", "POST", auth),  // 405
            ("/metrics", "GET", [:]),  // 401
            ("/v1/models/..", "GET", [:]),  // 400 from a handler
        ]
        for (path, method, headers) in requests {
            let (status, fields, _) = try await hub.send(path, method: method, headers: headers)
            #expect(fields["x-content-type-options"] == "nosniff", "\(method) \(path) → \(status)")
            #expect(fields["content-security-policy"] == "default-src 'none'; frame-ancestors 'none'", "\(method) \(path) → \(status)")
        }
        // The HTTP parser's refusal, written by the connection handler.
        let raw = try RawSocket(port: hub.running.port)
        raw.send("NOT HTTP AT ALL \u{1}\u{2}\r\n\r\n")
        let answer = raw.readAll().lowercased()
        #expect(answer.hasPrefix("http/1.1 400") && answer.contains("x-content-type-options: nosniff\r\n"), "\(answer)")
    }
}

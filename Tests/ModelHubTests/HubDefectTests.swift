import Foundation
import ModelHub
import OpenMLKit
import Testing

/// Issue 14's server defects, each reproduced against a real hub on loopback.
@Suite("ModelHub defects under attack and faults", .serialized)
struct HubDefectTests {
    let small = SharedModels.url("mobilenet_v1_0.25_128_quant.tflite")
    let auth = ["Authorization": "Bearer \(TestHub.adminToken)"]

    // D1: the data directory belongs to one process; a second server touches nothing.
    @Test func secondServerOnOneDataDirectoryIsRefused() async throws {
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        let inFlight = hub.directory.appendingPathComponent("staging/upload-in-flight")
        try Data("partial".utf8).write(to: inFlight)
        #expect(throws: HubStartupError.dataDirectoryInUse) {
            _ = try HubServer(configuration: HubConfiguration(dataDirectory: hub.directory, port: 0, adminToken: "t"))
        }
        #expect(FileManager.default.fileExists(atPath: inFlight.path), "the second server emptied the first one's staging")
        #expect(!HubStartupError.dataDirectoryInUse.localizedDescription.contains(hub.directory.path))
        let (health, _, _) = try await hub.send("/v1/health")
        #expect(health == 200)
    }

    // D2: slow headers, idle connections and trickled bodies are cut; health stays responsive.
    // Each wait runs on a thread of its own (`onOwnThread`), not the test pool, and each bound is
    // several times the hub's limit: the defects these catch never close at all, or wait a minute.
    @Test func slowAndIdleConnectionsAreClosed() async throws {
        let hub = try await TestHub {
            $0.headerTimeout = .seconds(1)
            $0.idleTimeout = .seconds(1)
            $0.minBodyBytesPerSecond = 1000
        }
        defer { Task { await hub.stop() } }
        let port = hub.running.port
        let slow = try RawSocket(port: port)
        slow.send("GET /v1/health HTTP/1.1\r\nHost: x\r\n")
        let closedAfter = await onOwnThread { slow.secondsUntilClosed(sending: "X-Slow: 1\r\n", every: 0.2, giveUpAfter: 12) }
        #expect(closedAfter != nil, "a connection sending headers slowly stayed open (header timeout 1 s)")

        let idle = try RawSocket(port: port)
        #expect(await onOwnThread { idle.isClosedByPeer(within: 10) }, "an idle connection stayed open (timeout 1 s)")

        // An upload trickling far below the minimum rate is cut off.
        let trickle = try RawSocket(port: port)
        trickle.send("POST /v1/models/m/versions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(TestHub.adminToken)\r\nContent-Length: 100000\r\n\r\n")
        let cutAfter = await onOwnThread { trickle.secondsUntilClosed(sending: "x", every: 0.25, giveUpAfter: 12) }
        #expect(cutAfter != nil, "a trickled upload stayed open")
    }

    // D2: 50 idle connections against a limit of 20: the longest-idle ones make room. The timeouts
    // are a minute, so without eviction health would wait for one to expire (or be refused).
    @Test func idleConnectionsMakeRoom() async throws {
        let hub = try await TestHub {
            $0.headerTimeout = .seconds(60)
            $0.idleTimeout = .seconds(60)
            $0.maxConnections = 20
        }
        defer { Task { await hub.stop() } }
        let crowd = try (0..<50).map { _ in try RawSocket(port: hub.running.port) }
        let clock = Date()
        let (health, _, _) = try await hub.send("/v1/health")
        #expect(health == 200)
        #expect(Date().timeIntervalSince(clock) < 30, "health waited behind idle connections")
        // 51 connections against 20 places: at least 31 of the crowd were closed.
        let closed = await onOwnThread { () -> Int in
            let started = Date()
            var count = 0
            repeat {
                count = crowd.filter { $0.isClosedNow() }.count
                if count >= 31 { break }
                usleep(100_000)
            } while Date().timeIntervalSince(started) < 10
            return count
        }
        #expect(closed >= 31, "only \(closed) of 50 idle connections were closed to make room for 20")
    }

    // D3 server side, D12: the Bearer scheme is case-insensitive.
    @Test func bearerSchemeIsCaseInsensitive() async throws {
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        for scheme in ["bearer", "BEARER", "Bearer"] {
            let (status, _, _) = try await hub.send("/metrics", headers: ["Authorization": "\(scheme) \(TestHub.adminToken)"])
            #expect(status == 200, "scheme \(scheme)")
        }
        let (wrong, _, _) = try await hub.send("/metrics", headers: ["Authorization": "Basic \(TestHub.adminToken)"])
        #expect(wrong == 401)
    }

    // D6: unreferenced blobs past the grace period go; young ones and referenced ones stay.
    @Test func orphanedBlobsAreRemoved() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub { $0.orphanGracePeriod = .seconds(60) }
        defer { Task { await hub.stop() } }
        _ = try await hub.admin.publish(name: "kept", fileURL: small)
        let blobs = hub.blobsDirectory
        let referenced = try FileManager.default.contentsOfDirectory(atPath: blobs.path)
        #expect(referenced.count == 1)
        let old = Date().addingTimeInterval(-3600)
        for name in referenced {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: blobs.appendingPathComponent(name).path)
        }
        let orphan = UUID().uuidString.lowercased(), young = UUID().uuidString.lowercased()
        try Data("left by a crash".utf8).write(to: blobs.appendingPathComponent(orphan))
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: blobs.appendingPathComponent(orphan).path)
        try Data("another replica's publish in progress".utf8).write(to: blobs.appendingPathComponent(young))
        #expect(await hub.server.removeOrphanedBlobs() == 1)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: blobs.path))
        #expect(left == Set(referenced + [young]))
        let (status, _, body) = try await hub.send("/v1/models/kept/versions/1/download")
        let original = try Data(contentsOf: small)
        #expect(status == 200 && body == original)
    }

    // D7, D11: every error is the JSON shape; HEAD works; a wrong method is 405 with Allow.
    @Test func everyErrorIsJSON() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        let v1 = try await hub.admin.publish(name: "m", fileURL: small)
        func isJSONError(_ body: Data, _ status: Int) -> Bool {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                let error = object["error"] as? [String: Any]
            else { return false }
            return (error["status"] as? Int) == status && (error["message"] as? String)?.isEmpty == false
        }
        let (unknown, _, unknownBody) = try await hub.send("/v2/nothing")
        #expect(unknown == 404 && isJSONError(unknownBody, 404))
        let (wrongMethod, headers, wrongBody) = try await hub.send("/v1/models/m/versions/1/download", method: "POST", headers: auth)
        #expect(wrongMethod == 405 && isJSONError(wrongBody, 405))
        #expect(headers["allow"] == "GET, HEAD")
        let (deleteVersions, deleteHeaders, _) = try await hub.send("/v1/models/m/versions", method: "DELETE", headers: auth)
        #expect(deleteVersions == 405 && deleteHeaders["allow"] == "POST")

        let bigRollout = Data(repeating: 0x20, count: 2 << 20)
        let (tooLarge, _, tooLargeBody) = try await hub.send("/v1/models/m/rollout", method: "PUT", headers: auth, body: bigRollout)
        #expect(tooLarge == 413 && isJSONError(tooLargeBody, 413))

        let raw = try RawSocket(port: hub.running.port)
        raw.send("NOT HTTP AT ALL \u{1}\u{2}\r\n\r\n")
        let answer = raw.readAll()
        #expect(answer.hasPrefix("HTTP/1.1 400"))
        if let body = answer.components(separatedBy: "\r\n\r\n").last { #expect(isJSONError(Data(body.utf8), 400), "\(answer)") }

        // A storage failure is a JSON 500 that names no server path.
        try FileManager.default.removeItem(at: hub.directory.appendingPathComponent("staging"))
        let (storage, _, storageBody) = try await hub.send(
            "/v1/models/m/versions", method: "POST", headers: auth, body: try Data(contentsOf: small))
        #expect(storage == 500 && isJSONError(storageBody, 500))
        #expect(!String(decoding: storageBody, as: UTF8.self).contains(hub.directory.path))

        let (head, headHeaders, headBody) = try await hub.send("/v1/models/m/versions/1/download", method: "HEAD")
        #expect(head == 200 && headBody.isEmpty)
        #expect(headHeaders["content-length"] == String(v1.size))
        #expect(headHeaders["etag"] == v1.entityTag)
        let (headMissing, _, _) = try await hub.send("/v1/models/m/versions/9/download", method: "HEAD")
        #expect(headMissing == 404)
    }

    // D8: a rollout may have at most --max-rollout-rules rules.
    @Test func rolloutRulesAreCapped() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub { $0.maxRolloutRules = 100 }
        defer { Task { await hub.stop() } }
        _ = try await hub.admin.publish(name: "m", fileURL: small)
        let many = HubRollout(rules: (0..<101).map { .group("g\($0)", version: 1) })
        await #expect(throws: ModelDownloadError.server(status: 422, message: "the rollout has 101 rules; this hub accepts at most 100")) {
            _ = try await hub.admin.setRollout(many, for: "m")
        }
        let allowed = HubRollout(rules: (0..<100).map { .group("g\($0)", version: 1) })
        #expect(try await hub.admin.setRollout(allowed, for: "m").rollout.rules.count == 100)
    }

    // D9: a download racing a delete gets either the whole file or a clean 404, never 200 and
    // a short body.
    @Test func downloadRacingDeleteIsConsistent() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        let bytes = try Data(contentsOf: small)
        var outcomes = [Int: Int]()
        for round in 0..<40 {
            _ = try await hub.admin.publish(name: "race", fileURL: small)
            async let download = hub.send("/v1/models/race/versions/\(1)/download")
            if round % 2 == 0 { try? await Task.sleep(nanoseconds: UInt64(round % 5) * 200_000) }
            try await hub.admin.deleteModel(named: "race")
            let (status, _, body) = try await download
            outcomes[status, default: 0] += 1
            if status == 200 { #expect(body == bytes, "round \(round): 200 with \(body.count) of \(bytes.count) bytes") }
            else { #expect(status == 404, "round \(round): \(status)") }
        }
        #expect(outcomes.values.reduce(0, +) == 40)
    }

    // Watching it: access log (text and JSON, trusted proxies), metrics, download counts.
    @Test func accessLogMetricsAndDownloadCounts() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub {
            $0.logFormat = .json
            $0.trustedProxies = ["127.0.0.1"]
            $0.downloadCountInterval = .milliseconds(100)
        }
        defer { Task { await hub.stop() } }
        let v1 = try await hub.admin.publish(name: "counted", fileURL: small)
        for _ in 0..<3 { _ = try await hub.send("/v1/models/counted/versions/1/download", headers: ["X-Forwarded-For": "6.6.6.6, 203.0.113.7"]) }
        _ = try await hub.send("/v1/models/counted/versions/1/download", headers: ["Range": "bytes=0-99"])
        _ = try await hub.send("/v1/models/counted/versions/1/download", method: "HEAD")
        #expect(await hub.eventually { hub.accessLog.filter { $0.contains("/download") }.count == 5 })
        let lines = hub.accessLog.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == hub.accessLog.count, "every access-log line is JSON")
        let forwarded = lines.filter { ($0["client"] as? String) == "203.0.113.7" }
        #expect(forwarded.count == 3)
        if let first = forwarded.first {
            #expect(first["method"] as? String == "GET" && first["status"] as? Int == 200)
            #expect(first["bytes"] as? Int == Int(v1.size) && first["model"] as? String == "counted" && first["version"] as? Int == 1)
            #expect(first["durationMs"] is Double && first["time"] is String && first["path"] as? String == "/v1/models/counted/versions/1/download")
        }

        // Counts: three whole downloads; the range and the HEAD do not count. Apps see no counts.
        #expect(await hub.eventually { (try? await hub.admin.model(named: "counted").versions.first?.downloads) == 3 })
        #expect(try await hub.reader.model(named: "counted").versions.first?.downloads == nil)

        let (unauthorized, _, _) = try await hub.send("/metrics")
        #expect(unauthorized == 401)
        let (ok, _, body) = try await hub.send("/metrics", headers: auth)
        let text = String(decoding: body, as: UTF8.self)
        #expect(ok == 200)
        #expect(text.contains(#"modelhub_downloads_total{model="counted",version="1"} 3"#), "\(text)")
        #expect(text.contains(#"modelhub_download_bytes_total{model="counted",version="1"} \#(3 * v1.size + 100)"#))
        #expect(text.contains(#"modelhub_http_requests_total{route="/v1/models/{name}/versions/{version}/download",method="GET",status="206"} 1"#))
        #expect(text.contains("modelhub_http_request_duration_seconds_bucket"))
        _ = try? await hub.send("/v1/models/counted/versions", method: "POST", headers: auth, body: Data("not a model".utf8))
        let (_, _, after) = try await hub.send("/metrics", headers: auth)
        #expect(String(decoding: after, as: UTF8.self).contains(#"modelhub_uploads_rejected_total{reason="invalid_model"} 1"#))
    }
}

/// The download fast path (answers on the event loop) against the full route.
@Suite("ModelHub download fast path", .serialized)
struct DownloadFastPathTests {
    let small = SharedModels.url("stop_sign_int8.tflite")
    let large = SharedModels.url("mobilenet_v1_0.25_128_quant.tflite")

    @Test func sameAnswersAsTheFullRoute() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        var answers = [[String]]()
        for fast in [false, true] {
            let hub = try await TestHub(appKey: "k") {
                $0.useFastPath = fast
                $0.downloadCountInterval = .milliseconds(100)
            }
            _ = try await hub.admin.publish(name: "s", fileURL: small)
            _ = try await hub.admin.publish(name: "l", fileURL: large)
            var seen = [String]()
            for (name, file) in [("s", small), ("l", large)] {
                // The first download fills the cache; the next ones may take the fast path.
                for _ in 0..<3 {
                    let (status, headers, body) = try await hub.send(
                        "/v1/models/\(name)/versions/1/download", headers: ["X-App-Key": "k"])
                    #expect(status == 200)
                    #expect(body == (try Data(contentsOf: file)))
                    let kept = headers.filter { $0.key != "date" }.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                    seen.append("\(status) \(kept.joined(separator: "; "))")
                    #expect(headers["date"]?.hasSuffix(" GMT") == true)
                }
            }
            // Wrong key, ranges and conditionals still get the full route's answers.
            let (unauthorized, _, body) = try await hub.send("/v1/models/s/versions/1/download", headers: ["X-App-Key": "bad"])
            #expect(unauthorized == 401 && String(decoding: body, as: UTF8.self).contains("app key"))
            let (partial, _, piece) = try await hub.send(
                "/v1/models/s/versions/1/download", headers: ["X-App-Key": "k", "Range": "bytes=0-9"])
            #expect(partial == 206 && piece.count == 10)
            #expect(await hub.eventually { hub.accessLog.filter { $0.contains("/download 200 ") }.count == 6 })
            #expect(await hub.eventually { (try? await hub.admin.model(named: "s").versions.first?.downloads) == 3 })
            #expect(await hub.eventually { (try? await hub.admin.model(named: "l").versions.first?.downloads) == 3 })
            answers.append(seen)
            await hub.stop()
        }
        #expect(answers[0] == answers[1])
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        _ = try await hub.admin.publish(name: "s", fileURL: small)
        _ = try await hub.send("/v1/models/s/versions/1/download")  // fills the cache
        let raw = try RawSocket(port: hub.running.port)
        raw.send(
            "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /v1/models/s/versions/1/download HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let answer = raw.readAll()
        let listing = answer.range(of: "\"models\"")?.lowerBound
        let download = answer.range(of: "application/octet-stream")?.lowerBound
        let health = answer.range(of: "\"status\":\"ok\"")?.lowerBound
        #expect(listing != nil && download != nil && health != nil)
        if let listing, let download, let health { #expect(listing < download && download < health) }
    }
}

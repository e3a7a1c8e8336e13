import Foundation
import ModelHub
import OpenMLKit
import Testing

@Suite("ModelHub over real HTTP", .serialized)
struct HubServerTests {
    let small = SharedModels.url("mobilenet_v1_0.25_128_quant.tflite")
    let other = SharedModels.url("mobilenet_v1_0.25_224_quant_metadata.tflite")

    @Test func publishListDescribeDownload() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        let bytes = try Data(contentsOf: small)
        let v1 = try await hub.admin.publish(name: "flowers", fileURL: small)
        #expect(v1.version == 1)
        #expect(v1.size == Int64(bytes.count))
        #expect(v1.sha256 == (try sha256Hex(of: small)))
        let v2 = try await hub.admin.publish(name: "flowers", fileURL: other)
        #expect(v2.version == 2)

        let models = try await hub.reader.listModels()
        #expect(models.map(\.name) == ["flowers"])
        #expect(models[0].versions.map(\.version) == [1, 2])
        #expect(try await hub.reader.latestVersion(of: "flowers", installationID: "a") == .version(v2))

        let (status, headers, body) = try await hub.send("/v1/models/flowers/versions/1/download")
        #expect(status == 200)
        #expect(body == bytes)
        #expect(headers["etag"] == "\"\(v1.sha256)\"")
        #expect(headers["accept-ranges"] == "bytes")
    }

    @Test func etagsAndRanges() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        let bytes = try Data(contentsOf: small)
        let v1 = try await hub.admin.publish(name: "m", fileURL: small)
        let path = "/v1/models/m/versions/1/download"

        let (notModified, _, empty) = try await hub.send(path, headers: ["If-None-Match": v1.entityTag])
        #expect(notModified == 304)
        #expect(empty.isEmpty)
        #expect(try await hub.reader.latestVersion(of: "m", installationID: nil, ifNoneMatch: v1.sha256) == .current)

        let (partial, headers, tail) = try await hub.send(path, headers: ["Range": "bytes=1000-"])
        #expect(partial == 206)
        #expect(tail == bytes.subdata(in: 1000..<bytes.count))
        #expect(headers["content-range"] == "bytes 1000-\(bytes.count - 1)/\(bytes.count)")

        let (middle, _, piece) = try await hub.send(path, headers: ["Range": "bytes=10-19"])
        #expect(middle == 206)
        #expect(piece == bytes.subdata(in: 10..<20))

        let (suffix, _, last) = try await hub.send(path, headers: ["Range": "bytes=-5"])
        #expect(suffix == 206)
        #expect(last == bytes.suffix(5))

        let (beyond, rangeHeaders, _) = try await hub.send(path, headers: ["Range": "bytes=\(bytes.count)-"])
        #expect(beyond == 416)
        #expect(rangeHeaders["content-range"] == "bytes */\(bytes.count)")

        // A resume that names another version's ETag gets the whole file, not a spliced one.
        let (whole, _, all) = try await hub.send(path, headers: ["Range": "bytes=1000-", "If-Range": "\"other\""])
        #expect(whole == 200)
        #expect(all == bytes)
    }

    @Test func adminTokenNamesAndSizeLimits() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub(maxUploadBytes: 400_000)
        defer { Task { await hub.stop() } }
        let bytes = try Data(contentsOf: SharedModels.url("stop_sign_int8.tflite"))

        let (noToken, _, message) = try await hub.send("/v1/models/a/versions", method: "POST", body: bytes)
        #expect(noToken == 401)
        #expect(String(decoding: message, as: UTF8.self).contains("admin token"))
        let (wrongToken, _, _) = try await hub.send(
            "/v1/models/a/versions", method: "POST", headers: ["Authorization": "Bearer nope"], body: bytes)
        #expect(wrongToken == 401)

        let auth = ["Authorization": "Bearer \(TestHub.adminToken)"]
        for name in ["..", "..x", ".hidden", "a%2F..%2F..%2Fetc", "%2E%2E", "a b", String(repeating: "n", count: 129)] {
            let (status, _, _) = try await hub.send("/v1/models/\(name)/versions", method: "POST", headers: auth, body: bytes)
            #expect(status == 400 || status == 404, "name \(name) gave \(status)")
        }
        await #expect(throws: ModelDownloadError.invalidModelName("../x")) {
            _ = try await hub.admin.publish(name: "../x", fileURL: SharedModels.url("stop_sign_int8.tflite"))
        }

        // Too large (declared and streamed), not a model, corrupted in transit: no version, no blob.
        let big = try Data(contentsOf: small)
        let (tooLarge, _, _) = try await hub.send("/v1/models/a/versions", method: "POST", headers: auth, body: big)
        #expect(tooLarge == 413)
        let (notModel, _, why) = try await hub.send(
            "/v1/models/a/versions", method: "POST", headers: auth, body: Data("hello".utf8))
        #expect(notModel == 422)
        #expect(String(decoding: why, as: UTF8.self).contains("not a valid TensorFlow Lite model"))
        var truncated = bytes
        truncated.removeLast(100)
        let (cut, _, _) = try await hub.send("/v1/models/a/versions", method: "POST", headers: auth, body: truncated)
        #expect(cut == 422)
        let (damaged, _, _) = try await hub.send(
            "/v1/models/a/versions", method: "POST", headers: auth.merging(["X-Model-SHA256": String(repeating: "0", count: 64)]) { $1 },
            body: bytes)
        #expect(damaged == 400)
        #expect(try await hub.reader.listModels().isEmpty)
        let blobs = try FileManager.default.contentsOfDirectory(atPath: hub.directory.appendingPathComponent("blobs").path)
        let staging = try FileManager.default.contentsOfDirectory(atPath: hub.directory.appendingPathComponent("staging").path)
        #expect(blobs.isEmpty)
        #expect(staging.isEmpty)

        let (ok, _, _) = try await hub.send("/v1/models/a/versions", method: "POST", headers: auth, body: bytes)
        #expect(ok == 201)
        let (unauthorizedDelete, _, _) = try await hub.send("/v1/models/a", method: "DELETE")
        #expect(unauthorizedDelete == 401)
        try await hub.admin.deleteModel(named: "a")
        #expect(try await hub.reader.listModels().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: hub.directory.appendingPathComponent("blobs").path).isEmpty)
        await #expect(throws: ModelDownloadError.self) { try await hub.admin.deleteModel(named: "a") }
    }

    @Test func appKeyProtectsReads() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub(appKey: "app-123")
        defer { Task { await hub.stop() } }
        _ = try await hub.admin.publish(name: "m", fileURL: small)
        let (without, _, _) = try await hub.send("/v1/models")
        #expect(without == 401)
        let (download, _, _) = try await hub.send("/v1/models/m/versions/1/download")
        #expect(download == 401)
        let (withKey, _, _) = try await hub.send("/v1/models", headers: ["X-App-Key": "app-123"])
        #expect(withKey == 200)
        let (query, _, _) = try await hub.send("/v1/models?key=app-123")
        #expect(query == 200)
        #expect(try await hub.reader.listModels().count == 1)
        let (health, _, _) = try await hub.send("/v1/health")
        #expect(health == 200)
    }

    @Test func rolloutsServeVersionsInProportion() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        let v1 = try await hub.admin.publish(name: "exp", fileURL: small)
        let v2 = try await hub.admin.publish(name: "exp", fileURL: other)
        // 30% of installations and the "beta" group get v2; everyone else stays on v1.
        _ = try await hub.admin.setRollout(
            HubRollout(rules: [.group("beta", version: 2), .percent(30, version: 2)], defaultVersion: 1), for: "exp")

        var counts = [Int: Int]()
        let installations = (0..<600).map { "installation-\($0)" }
        for id in installations {
            guard case .version(let served) = try await hub.reader.latestVersion(of: "exp", installationID: id) else {
                Issue.record("no version for \(id)")
                continue
            }
            counts[served.version, default: 0] += 1
            // Stable: the same installation always gets the same version.
            if id.hasSuffix("7"), case .version(let again) = try await hub.reader.latestVersion(of: "exp", installationID: id) {
                #expect(again == served)
            }
        }
        let share = Double(counts[2, default: 0]) / Double(installations.count)
        #expect(abs(share - 0.30) < 0.05, "v2 went to \(share * 100)% of installations, configured 30%")
        #expect(counts[1, default: 0] + counts[2, default: 0] == installations.count)
        // The server's choice is the published assignment function's choice.
        let model = try await hub.reader.model(named: "exp")
        for id in installations.prefix(50) {
            let expected = RolloutAssignment.version(of: model, installationID: id, groups: [])
            #expect(try await hub.reader.latestVersion(of: "exp", installationID: id) == .version(expected!))
        }
        // Group members get v2 whatever their bucket; no installation ID means the default.
        for id in installations.prefix(40) {
            #expect(try await hub.reader.latestVersion(of: "exp", installationID: id, groups: ["beta"]) == .version(v2))
        }
        #expect(try await hub.reader.latestVersion(of: "exp", installationID: nil) == .version(v1))

        // Invalid rollouts are refused with the reason.
        await #expect(throws: ModelDownloadError.server(status: 422, message: "rule 0: model 'exp' has no version 9")) {
            _ = try await hub.admin.setRollout(HubRollout(rules: [.percent(10, version: 9)]), for: "exp")
        }
        await #expect(throws: ModelDownloadError.server(status: 422, message: "percentages add up to 120.0, more than 100")) {
            _ = try await hub.admin.setRollout(HubRollout(rules: [.percent(60, version: 1), .percent(60, version: 2)]), for: "exp")
        }
    }

    @Test func catalogueSurvivesRestart() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let first = try await TestHub()
        let v1 = try await first.admin.publish(name: "keep", fileURL: small)
        await first.stop()
        let second = try await TestHub(directory: first.directory)
        defer { Task { await second.stop() } }
        #expect(try await second.reader.latestVersion(of: "keep", installationID: nil) == .version(v1))
        let v2 = try await second.admin.publish(name: "keep", fileURL: small)
        #expect(v2.version == 2)
    }

    @Test func bucketsAreStableAndUniform() {
        #expect(RolloutAssignment.bucket(model: "a", installation: "x") == RolloutAssignment.bucket(model: "a", installation: "x"))
        #expect(RolloutAssignment.bucket(model: "a", installation: "x") != RolloutAssignment.bucket(model: "b", installation: "x"))
        let buckets = (0..<1000).map { RolloutAssignment.bucket(model: "m", installation: "\($0)") }
        #expect(buckets.allSatisfy { $0 >= 0 && $0 < 100 })
        #expect(abs(Double(buckets.filter { $0 < 50 }.count) / 1000 - 0.5) < 0.06)
    }
}

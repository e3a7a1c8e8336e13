import Foundation
import ModelHub
import OpenMLKit
import Testing

/// `If-Match` on the hub's writes (RFC 9110 §13.1.1): an admin who read a model changes exactly the
/// state they read, or gets 412 and nothing changes.
@Suite("ModelHub conditional writes (If-Match)")
struct HubConditionalWriteTests {
    let small = SharedModels.url("mobilenet_v1_0.25_128_quant.tflite")
    let auth = ["Authorization": "Bearer \(TestHub.adminToken)"]

    func modelAndTag(_ hub: TestHub, _ name: String) async throws -> (HubModel, String) {
        let (status, headers, body) = try await hub.send("/v1/models/\(name)", headers: auth)
        try #require(status == 200)
        let model = try HubJSON.decoder().decode(HubModel.self, from: body)
        let tag = try #require(headers["etag"])
        #expect(tag == model.entityTag)
        return (model, tag)
    }

    @Test func writesNamingAnOldStateAreRefusedAndChangeNothing() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        _ = try await hub.admin.publish(name: "m", fileURL: small)
        let (_, first) = try await modelAndTag(hub, "m")
        // The same state reads back with the same tag; If-None-Match gives 304.
        let (notModified, _, _) = try await hub.send("/v1/models/m", headers: auth.merging(["If-None-Match": first]) { $1 })
        #expect(notModified == 304)

        // A rollout naming the current tag succeeds and answers with the new tag.
        let rollout = Data(#"{"rules": [], "defaultVersion": 1}"#.utf8)
        let (set, setHeaders, _) = try await hub.send(
            "/v1/models/m/rollout", method: "PUT", headers: auth.merging(["If-Match": first]) { $1 }, body: rollout)
        #expect(set == 200)
        let (afterRollout, second) = try await modelAndTag(hub, "m")
        #expect(second != first && setHeaders["etag"] == second && afterRollout.rollout.defaultVersion == 1)

        // Every write naming the old tag is refused with 412 and changes nothing.
        let stale = auth.merging(["If-Match": first]) { $1 }
        let (rolloutAgain, _, body) = try await hub.send(
            "/v1/models/m/rollout", method: "PUT", headers: stale, body: Data(#"{"rules": []}"#.utf8))
        #expect(rolloutAgain == 412 && String(decoding: body, as: UTF8.self).contains("If-Match"))
        let (publish, _, _) = try await hub.send(
            "/v1/models/m/versions", method: "POST", headers: stale, body: try Data(contentsOf: small))
        #expect(publish == 412)
        let (delete, _, _) = try await hub.send("/v1/models/m", method: "DELETE", headers: stale)
        #expect(delete == 412)
        let (unchanged, third) = try await modelAndTag(hub, "m")
        #expect(third == second && unchanged.versions.count == 1 && unchanged.rollout.defaultVersion == 1)
        // The refused upload left no blob behind.
        let blobs = try FileManager.default.contentsOfDirectory(atPath: hub.directory.appendingPathComponent("blobs").path)
        #expect(blobs.count == 1, "\(blobs)")

        // A list with the current tag, a weak tag (never a strong match) and "*".
        let (weak, _, _) = try await hub.send(
            "/v1/models/m/rollout", method: "PUT", headers: auth.merging(["If-Match": "W/\(second)"]) { $1 }, body: rollout)
        #expect(weak == 412)
        let (listed, _, _) = try await hub.send(
            "/v1/models/m/versions", method: "POST", headers: auth.merging(["If-Match": "\"other\", \(second)"]) { $1 },
            body: try Data(contentsOf: small))
        #expect(listed == 201)
        let (star, _, _) = try await hub.send("/v1/models/m", method: "DELETE", headers: auth.merging(["If-Match": "*"]) { $1 })
        #expect(star == 204)
        // "*" needs the model to exist.
        let (gone, _, _) = try await hub.send("/v1/models/m", method: "DELETE", headers: auth.merging(["If-Match": "*"]) { $1 })
        #expect(gone == 412)
        let (created, _, _) = try await hub.send(
            "/v1/models/new/versions", method: "POST", headers: auth.merging(["If-Match": "*"]) { $1 },
            body: try Data(contentsOf: small))
        #expect(created == 412)
    }

    /// The Swift client: read a model, change exactly that state.
    @Test func clientWritesWithTheTagItRead() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        _ = try await hub.admin.publish(name: "m", fileURL: small)
        let read = try await hub.admin.model(named: "m")
        let updated = try await hub.admin.setRollout(HubRollout(defaultVersion: 1), for: "m", ifMatch: read.entityTag)
        #expect(updated.rollout.defaultVersion == 1)
        for attempt in 0..<3 {
            do {
                switch attempt {
                case 0: _ = try await hub.admin.setRollout(HubRollout(), for: "m", ifMatch: read.entityTag)
                case 1: _ = try await hub.admin.publish(name: "m", fileURL: small, ifMatch: read.entityTag)
                default: try await hub.admin.deleteModel(named: "m", ifMatch: read.entityTag)
                }
                Issue.record("write \(attempt) with a stale tag went through")
            } catch ModelDownloadError.server(let status, _) {
                #expect(status == 412)
            }
        }
        try await hub.admin.deleteModel(named: "m", ifMatch: updated.entityTag)
        #expect(try await hub.admin.listModels().isEmpty)
    }

    @Test func downloadsDoNotChangeTheTag() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        _ = try await hub.admin.publish(name: "m", fileURL: small)
        let (_, before) = try await modelAndTag(hub, "m")
        let (download, _, _) = try await hub.send("/v1/models/m/versions/1/download")
        #expect(download == 200)
        let (_, after) = try await modelAndTag(hub, "m")
        #expect(after == before)
    }

    /// Two admins racing with the same tag: exactly one rollout lands.
    @Test func concurrentWritesWithOneTagLetExactlyOneThrough() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        let hub = try await TestHub()
        defer { Task { await hub.stop() } }
        _ = try await hub.admin.publish(name: "m", fileURL: small)
        _ = try await hub.admin.publish(name: "m", fileURL: small)
        let (_, tag) = try await modelAndTag(hub, "m")
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for version in [1, 2, 1, 2, 1, 2, 1, 2] {
                group.addTask {
                    try await hub.send(
                        "/v1/models/m/rollout", method: "PUT", headers: auth.merging(["If-Match": tag]) { $1 },
                        body: Data(#"{"rules": [], "defaultVersion": \#(version)}"#.utf8)
                    ).0
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses)")
        #expect(statuses.filter { $0 == 412 }.count == 7, "\(statuses)")
    }
}

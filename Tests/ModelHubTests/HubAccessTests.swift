import Foundation
import Testing

@testable import ModelHub

/// Who may call each route, checked over the whole route table: the access middleware of each
/// route's group decides it, no handler.
@Suite("ModelHub access per route")
struct HubAccessTests {
    @Test func everyRouteAdmitsExactlyItsCallers() async throws {
        let hub = try await TestHub { $0.appKey = "k" }
        defer { Task { await hub.stop() } }
        let adminOnly: Set<String> = [
            "GET \(HubRoutes.metrics)", "POST \(HubRoutes.versions)", "PUT \(HubRoutes.rollout)", "DELETE \(HubRoutes.model)",
        ]
        let callers: [(HubCaller, [String: String])] = [
            (.anonymous, [:]), (.anonymous, ["X-App-Key": "wrong", "Authorization": "Bearer wrong"]),
            (.app, ["X-App-Key": "k"]), (.admin, ["Authorization": "Bearer \(TestHub.adminToken)"]),
        ]
        var checked = 0
        for (pattern, methods) in HubRoutes.table {
            // A model that does not exist: admitted callers get 404 (or 400/413 for bodies), never 401.
            let path = pattern.replacingOccurrences(of: ":name", with: "absent").replacingOccurrences(of: ":version", with: "1")
            for method in methods where method != .head {
                let route = "\(method.rawValue) \(pattern)"
                let needed: HubCaller = pattern == HubRoutes.health ? .anonymous : adminOnly.contains(route) ? .admin : .app
                for (caller, headers) in callers {
                    let (status, _, _) = try await hub.send(path, method: method.rawValue, headers: headers, body: method == .get || method == .delete ? nil : Data("{}".utf8))
                    if caller >= needed {
                        #expect(status != 401, "\(route) refused \(caller)")
                    } else {
                        #expect(status == 401, "\(route) admitted \(caller) (\(status))")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked == 4 * 10)
    }
}

/// Name validation lives in the catalogue itself: no caller can add a model no hub may hold.
@Suite("ModelHub catalogue refuses invalid records")
struct CatalogueValidationTests {
    @Test func invalidNamesAndDigestsAreRefusedAndLeaveNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalogue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let catalog = try SQLiteModelCatalog(path: directory.appendingPathComponent("catalog.sqlite").path)
        let digest = String(repeating: "0f", count: 32)
        let cases: [(String, Int64, String, String)] = [
            ("../escape", 1, digest, "model name"), ("", 1, digest, "model name"), ("a/b", 1, digest, "model name"),
            (String(repeating: "x", count: 200), 1, digest, "model name"), ("ok", -1, digest, "size"),
            ("ok", 1, "ABCDEF", "SHA-256"), ("ok", 1, String(repeating: "0F", count: 32), "SHA-256"),
        ]
        for (name, size, sha, field) in cases {
            let new = NewModelVersion(name: name, size: size, sha256: sha, blobKey: "k", publishedAt: Date())
            do {
                _ = try await catalog.addVersion(new)
                Issue.record("added \(name.prefix(20)) \(size) \(sha)")
            } catch let HubStorageError.invalidRecord(message) {
                #expect(message.contains(field), "\(message)")
            }
        }
        #expect(try await catalog.models().isEmpty)
        let fine = try await catalog.addVersion(
            NewModelVersion(name: "ok", size: 1, sha256: digest, blobKey: "k", publishedAt: Date()))
        #expect(fine.version == 1)
    }
}

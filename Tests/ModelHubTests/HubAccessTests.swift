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

import Foundation
import ModelHub
import OpenMLKit
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Two hubs — each with its own data directory — on one PostgreSQL catalogue and one shared blob
/// directory are one consistent hub (the in-process half of the replica story; the process-level
/// fault test with nginx and SIGKILL is tools/hub_replicas_test.py, run by .ci/run).
@Suite(
    "ModelHub replicas on PostgreSQL", .serialized, .enabled(if: TestPostgres.enabled, TestPostgres.skipReason),
    .timeLimit(.minutes(2)))
struct HubReplicaTests {
    let small = SharedModels.url("mobilenet_v1_0.25_128_quant.tflite")
    let other = SharedModels.url("mobilenet_v1_0.25_224_quant_metadata.tflite")

    @Test func twoReplicasAreOneHub() async throws {
        try #require(SharedModels.available, "../shared/models is missing")
        try await TestPostgres.withFreshDatabase { url in
            let shared = try temporaryDirectory("replica-blobs")
            var hubs = [RunningHub]()
            var catalogs = [PostgresModelCatalog]()
            for index in 0..<2 {
                let catalog = try await TestPostgres.catalog(url)
                catalogs.append(catalog)
                let configuration = HubConfiguration(
                    dataDirectory: try temporaryDirectory("replica-\(index)"), blobsDirectory: shared, port: 0,
                    adminToken: TestHub.adminToken, downloadCountInterval: .milliseconds(100))
                hubs.append(try await HubServer(configuration: configuration, catalog: catalog).start())
            }
            let running = hubs, pools = catalogs
            defer {
                Task {
                    for hub in running { await hub.stop() }
                    for catalog in pools { await catalog.close() }
                }
            }
            let admins = hubs.map { ModelHubClient(baseURL: $0.url, adminToken: TestHub.adminToken) }

            // 20 publishes of one name spread over both replicas at once: numbers 1...20, no gaps.
            let published = try await withThrowingTaskGroup(of: HubModelVersion.self) { group in
                for i in 0..<20 {
                    group.addTask { try await admins[i % 2].publish(name: "shared", fileURL: i % 3 == 0 ? other : small) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(published.map(\.version).sorted() == Array(1...20))
            let fromFirst = try await admins[0].model(named: "shared")
            let fromSecond = try await admins[1].model(named: "shared")
            #expect(fromFirst.versions.map(\.version) == fromSecond.versions.map(\.version))

            // A version published through one replica downloads, whole and verified, from the other.
            for version in published.prefix(6) {
                let serving = hubs[(version.version + 1) % 2]
                let (data, _) = try await URLSession.shared.data(
                    from: serving.url.appendingPathComponent("v1/models/shared/versions/\(version.version)/download"))
                #expect(data.count == Int(version.size))
                #expect(sha256(data) == version.sha256)
            }
            // Rollouts set through one replica apply at the other.
            _ = try await admins[0].setRollout(HubRollout(rules: [.group("beta", version: 3)], defaultVersion: 2), for: "shared")
            let reader = ModelHubClient(baseURL: hubs[1].url)
            #expect(try await reader.latestVersion(of: "shared", installationID: "x", groups: ["beta"]).version == 3)
            #expect(try await reader.latestVersion(of: "shared", installationID: "x").version == 2)

            // Download counts from both replicas add up in the shared catalogue.
            #expect(
                await eventually {
                    let counts = (try? await admins[1].model(named: "shared").versions.compactMap(\.downloads)) ?? []
                    return counts.reduce(0, +) == 6
                })

            // A delete through one replica removes every file from the shared directory.
            try await admins[1].deleteModel(named: "shared")
            #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path).isEmpty)
            await #expect(throws: ModelDownloadError.self) { _ = try await admins[0].model(named: "shared") }
        }
    }
}

private func eventually(_ seconds: Double = 5, _ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 50_000_000)
    }
    return await condition()
}

private func sha256(_ data: Data) -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("digest-\(UUID())")
    try? data.write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    return (try? sha256Hex(of: url)) ?? ""
}

extension ModelHubClient.LatestVersion {
    var version: Int? {
        if case .version(let v) = self { return v.version }
        return nil
    }
}

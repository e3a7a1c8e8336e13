import Foundation
import ModelHub
import OpenMLKit
import Testing

/// PostgresModelCatalog against a real server (`.ci/postgres-start`), each test in a fresh database.
///
/// Several catalogues on one database stand for several hub processes: each has its own
/// connection pool, so the only thing they share is the server.
@Suite(
    "PostgresCatalog on a real server", .enabled(if: TestPostgres.enabled, TestPostgres.skipReason),
    .timeLimit(.minutes(2)))
struct PostgresCatalogTests {
    @Test func migrationIsIdempotentAndSafeForConcurrentReplicas() async throws {
        try await TestPostgres.withFreshDatabase { url in
            // Four replicas starting at the same moment on an empty database.
            let catalogs = try await withThrowingTaskGroup(of: PostgresModelCatalog.self) { group in
                for _ in 0..<4 { group.addTask { try await TestPostgres.catalog(url) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(catalogs.count == 4)
            for (index, catalog) in catalogs.enumerated() {
                _ = try await catalog.addVersion(newVersion("replica-\(index)"))
            }
            for catalog in catalogs { await catalog.close() }

            // Connecting again migrates nothing and keeps the data.
            for _ in 0..<2 {
                try await TestPostgres.withCatalogs(1, on: url) { catalogs in
                    let names = try await catalogs[0].models().map(\.name)
                    #expect(names == (0..<4).map { "replica-\($0)" })
                }
            }
            let versions = try await TestPostgres.rows(
                "SELECT version::text FROM schema_version ORDER BY version", on: url)
            #expect(versions == [["1"]])
        }
    }

    @Test func behavesExactlyAsSQLite() async throws {
        let directory = try temporaryDirectory("pg-vs-sqlite")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try SQLiteModelCatalog(path: directory.appendingPathComponent("catalogue.sqlite").path)
        let expected = try await Self.transcript(of: sqlite)
        #expect(expected.count > 20)
        try await TestPostgres.withFreshDatabase { url in
            try await TestPostgres.withCatalogs(1, on: url) { catalogs in
                let actual = try await Self.transcript(of: catalogs[0])
                #expect(actual.count == expected.count)
                for (index, (line, reference)) in zip(actual, expected).enumerated() {
                    #expect(line == reference, "step \(index)")
                }
            }
        }
    }

    @Test func versionsReadBackEqualWhatAddVersionReturned() async throws {
        try await TestPostgres.withFreshDatabase { url in
            try await TestPostgres.withCatalogs(1, on: url) { catalogs in
                let catalog = catalogs[0]
                // Sub-millisecond fractions and a value just below a millisecond boundary.
                let dates = [1_700_000_000.123456, 1_700_000_000.999_999_9, 1_234_567_890.5, 1_700_000_001]
                var returned: [HubModelVersion] = []
                for seconds in dates {
                    returned.append(try await catalog.addVersion(newVersion("dates", at: seconds, signature: "c2ln")))
                }
                let stored = try #require(try await catalog.model(named: "dates")).versions
                #expect(stored.map { $0.publishedAt } == returned.map(\.publishedAt))
                #expect(stored.map { Self.withoutDownloads($0) } == returned)
                for (version, seconds) in zip(returned, dates) {
                    let original = Date(timeIntervalSince1970: seconds)
                    #expect(try Self.json(version.publishedAt) == Self.json(original))
                    #expect(abs(version.publishedAt.timeIntervalSince(original)) < 0.001)
                    let one = try #require(try await catalog.storedVersion(name: "dates", version: version.version))
                    #expect(Self.withoutDownloads(one.version) == version)
                }
            }
        }
    }

    /// Separate connection pools publishing one name at once get exactly 1...40. Without the row
    /// lock, two transactions read the same MAX(version) and one fails on the primary key.
    @Test func concurrentPublishesFromSeveralProcessesNumberConsecutively() async throws {
        try await TestPostgres.withFreshDatabase { url in
            try await TestPostgres.withCatalogs(4, on: url) { catalogs in
                let published = try await withThrowingTaskGroup(of: (HubModelVersion, String).self) { group in
                    for index in 0..<40 {
                        let catalog = catalogs[index % catalogs.count]
                        group.addTask {
                            let new = newVersion("contended", at: 1_700_000_000 + Double(index))
                            return (try await catalog.addVersion(new), new.blobKey)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(published.map(\.0.version).sorted() == Array(1...40))
                let model = try #require(try await catalogs[1].model(named: "contended"))
                #expect(model.versions.map(\.version) == Array(1...40))
                for (version, blobKey) in published {
                    let stored = try await catalogs[2].storedVersion(name: "contended", version: version.version)
                    #expect(stored?.blobKey == blobKey)
                    #expect(stored.map { Self.withoutDownloads($0.version) } == version)
                }
            }
        }
    }

    /// Replicas racing conditional rollouts with one tag: the row lock makes exactly one go through.
    @Test func conditionalWritesFromSeveralProcessesLetOneThrough() async throws {
        try await TestPostgres.withFreshDatabase { url in
            try await TestPostgres.withCatalogs(4, on: url) { catalogs in
                _ = try await catalogs[0].addVersion(newVersion("raced"))
                _ = try await catalogs[0].addVersion(newVersion("raced", at: 1_700_000_001))
                let tag = try #require(try await catalogs[1].model(named: "raced")).entityTag
                let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<16 {
                        let catalog = catalogs[index % catalogs.count]
                        group.addTask {
                            do {
                                let rollout = HubRollout(rules: [.percent(Double(index + 1), version: 2)], defaultVersion: 1)
                                return try await catalog.setRollout(rollout, for: "raced", if: .ifMatch(tag))
                            } catch is ModelPreconditionFailed {
                                return false
                            }
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(outcomes.filter { $0 }.count == 1, "\(outcomes)")
                #expect(try await catalogs[2].model(named: "raced")?.entityTag != tag)
            }
        }
    }

    /// Deletes racing publishes: every published blob is either returned by exactly one delete or
    /// still referenced, never both or neither, and the surviving versions are numbered 1...n.
    @Test func deleteWhilePublishingStaysConsistent() async throws {
        try await TestPostgres.withFreshDatabase { url in
            try await TestPostgres.withCatalogs(3, on: url) { catalogs in
                let (publishedKeys, deletedKeys) = try await withThrowingTaskGroup(of: ([String], [String]).self) {
                    group in
                    for writer in 0..<2 {
                        group.addTask {
                            var keys: [String] = []
                            for index in 0..<20 {
                                let new = newVersion("churn", at: 1_700_000_000 + Double(index))
                                _ = try await catalogs[writer].addVersion(new)
                                keys.append(new.blobKey)
                            }
                            return (keys, [])
                        }
                    }
                    group.addTask {
                        var keys: [String] = []
                        for _ in 0..<8 {
                            keys += try await catalogs[2].deleteModel(named: "churn") ?? []
                            try await Task.sleep(for: .milliseconds(5))
                        }
                        return ([], keys)
                    }
                    return try await group.reduce(into: ([String](), [String]())) {
                        $0.0 += $1.0
                        $0.1 += $1.1
                    }
                }
                let remaining = try await catalogs[0].model(named: "churn")?.versions ?? []
                let referenced = try await catalogs[1].referencedBlobKeys()
                #expect(publishedKeys.count == 40)
                #expect(Set(deletedKeys).count == deletedKeys.count, "a blob was returned by two deletes")
                #expect(Set(deletedKeys).isDisjoint(with: referenced), "a deleted version's blob is still referenced")
                #expect(Set(deletedKeys).union(referenced) == Set(publishedKeys))
                #expect(remaining.map(\.version) == (0..<remaining.count).map { $0 + 1 })
            }
        }
    }

    @Test func downloadCountsAddUpUnderConcurrency() async throws {
        try await TestPostgres.withFreshDatabase { url in
            try await TestPostgres.withCatalogs(4, on: url) { catalogs in
                for _ in 0..<3 { _ = try await catalogs[0].addVersion(newVersion("popular")) }
                _ = try await catalogs[0].addVersion(newVersion("other"))
                let batch: [ModelVersionKey: Int] = [
                    ModelVersionKey(name: "popular", version: 1): 1, ModelVersionKey(name: "popular", version: 2): 2,
                    ModelVersionKey(name: "other", version: 1): 3, ModelVersionKey(name: "popular", version: 9): 5,
                    ModelVersionKey(name: "missing", version: 1): 7,
                ]
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<100 {
                        group.addTask { try await catalogs[index % catalogs.count].addDownloads(batch) }
                    }
                    try await group.waitForAll()
                }
                let models = try await catalogs[3].models()
                #expect(models.map(\.name) == ["other", "popular"])
                #expect(models[0].versions.map(\.downloads) == [300])
                #expect(models[1].versions.map(\.downloads) == [100, 200, 0])
            }
        }
    }

    /// A server that accepts the connection and never answers gives a prompt error, not a hang.
    @Test func unansweredDatabaseGivesAnErrorWithinTheDeadline() async throws {
        let silent = try SilentServer()
        defer { silent.close() }
        let url = PostgresConnectionURL(
            user: "hub", password: "S3cr3t-Pa55", host: "127.0.0.1", port: silent.port, database: "d", sslMode: .disable
        )
        let started = ContinuousClock.now
        do {
            let catalog = try await PostgresModelCatalog.connect(
                url, logger: TestPostgres.quietLogger, queryTimeout: .seconds(1))
            await catalog.close()
            Issue.record("connected to a server that never answers")
        } catch let error as HubStorageError {
            #expect(!error.localizedDescription.contains("S3cr3t"))
        }
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func wrongPasswordIsADatabaseErrorWithoutThePassword() async throws {
        var url = try TestPostgres.adminURL()
        url.password = "Wr0ng-S3cr3t"
        await #expect(throws: HubStorageError.self) {
            _ = try await PostgresModelCatalog.connect(url, logger: TestPostgres.quietLogger, queryTimeout: .seconds(3))
        }
        do {
            _ = try await PostgresModelCatalog.connect(url, logger: TestPostgres.quietLogger, queryTimeout: .seconds(3))
        } catch {
            // The server's own answer, not a timeout.
            #expect(
                error.localizedDescription.contains("password authentication failed"), "\(error.localizedDescription)")
            for text in [error.localizedDescription, "\(error)", String(reflecting: error)] {
                #expect(!text.contains("Wr0ng-S3cr3t"), "the password leaked: \(text)")
            }
        }
    }
}

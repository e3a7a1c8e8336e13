import Foundation
import Logging
import ModelHub
import PostgresNIO
import Testing

/// The PostgreSQL server the tests use: `OPENMLKIT_TEST_POSTGRES_URL`, as printed by
/// `.ci/postgres-start`. Its user must be allowed to create databases: every test gets its own.
enum TestPostgres {
    static let environment = ProcessInfo.processInfo.environment
    static let urlString = environment["OPENMLKIT_TEST_POSTGRES_URL"]
    static let isCI = environment["CI"] == "true"

    /// Whether the PostgreSQL tests run: with a server, and always in CI, where a missing server
    /// is a failure rather than a skip.
    static let enabled = urlString != nil || isCI
    static let skipReason: Comment =
        "OPENMLKIT_TEST_POSTGRES_URL is not set: PostgreSQL tests skipped (run eval \"$(.ci/postgres-start)\" first)"

    static let quietLogger = Logger(label: "openmlkit.test.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The server's URL; in CI a missing one fails the test.
    static func adminURL() throws -> PostgresConnectionURL {
        let string = try #require(
            urlString, "PostgreSQL did not start: OPENMLKIT_TEST_POSTGRES_URL is not set although CI=true")
        return try PostgresConnectionURL(parsing: string, environmentPassword: environment["PGPASSWORD"])
    }

    /// Runs `body` with the URL of a new, empty database, dropped afterwards.
    static func withFreshDatabase(_ body: (PostgresConnectionURL) async throws -> Void) async throws {
        let admin = try adminURL()
        let name = "openmlkit_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await execute("CREATE DATABASE \(name)", on: admin)
        var url = admin
        url.database = name
        do {
            try await body(url)
        } catch {
            try? await execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: admin)
            throw error
        }
        try await execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: admin)
    }

    /// Runs one statement (built from trusted text only) on a connection of its own.
    static func execute(_ sql: String, on url: PostgresConnectionURL) async throws {
        _ = try await rows(sql, on: url)
    }

    /// The rows of one query (built from trusted text only), each column as text.
    static func rows(_ sql: String, on url: PostgresConnectionURL) async throws -> [[String?]] {
        let configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: .disable)
        let connection = try await PostgresConnection.connect(
            configuration: configuration, id: 1, logger: quietLogger)
        do {
            var result: [[String?]] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: quietLogger) {
                result.append(row.map { cell in cell.bytes.map { String(buffer: $0) } })
            }
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Connects a catalogue to `url` (a separate connection pool, as another process would have).
    static func catalog(_ url: PostgresConnectionURL, timeout: Duration = .seconds(20)) async throws
        -> PostgresModelCatalog
    {
        try await PostgresModelCatalog.connect(url, logger: quietLogger, queryTimeout: timeout, maximumConnections: 4)
    }

    /// Connects `count` catalogues, runs `body`, and closes them all.
    static func withCatalogs(
        _ count: Int, on url: PostgresConnectionURL, _ body: ([PostgresModelCatalog]) async throws -> Void
    ) async throws {
        var catalogs: [PostgresModelCatalog] = []
        do {
            for _ in 0..<count { catalogs.append(try await catalog(url)) }
            try await body(catalogs)
        } catch {
            for catalog in catalogs { await catalog.close() }
            throw error
        }
        for catalog in catalogs { await catalog.close() }
    }
}

/// A version to publish in tests, with a unique blob key.
func newVersion(_ name: String, at seconds: TimeInterval = 1_700_000_000, signature: String? = nil) -> NewModelVersion {
    NewModelVersion(
        name: name, size: Int64(seconds) % 10_000 + 1, sha256: String(repeating: "ab", count: 32), signature: signature,
        blobKey: UUID().uuidString, publishedAt: Date(timeIntervalSince1970: seconds))
}

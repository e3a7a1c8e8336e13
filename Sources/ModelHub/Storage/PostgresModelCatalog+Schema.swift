import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// The catalogue's tables and their migrations.
///
/// Migrations run on one connection holding a session-level advisory lock, so hub replicas that
/// start at the same moment apply each migration exactly once; `schema_version` records which ran.
extension PostgresModelCatalog {
    /// The advisory lock key that serializes migrations: a fixed 64-bit number, the ASCII bytes of
    /// "OMLKHub1", unlikely to be used by another application sharing the database.
    static let migrationLockKey: Int64 = 0x4F4D_4C4B_4875_6231

    /// The migrations, in order; each runs in its own transaction. Version n is `migrations[n - 1]`.
    static let migrations: [[PostgresQuery]] = [
        [
            """
            CREATE TABLE model (
                name TEXT PRIMARY KEY,
                rollout TEXT NOT NULL,
                created_at TIMESTAMPTZ NOT NULL
            )
            """,
            """
            CREATE TABLE version (
                name TEXT NOT NULL REFERENCES model (name) ON DELETE CASCADE,
                version INTEGER NOT NULL,
                size BIGINT NOT NULL,
                sha256 TEXT NOT NULL,
                signature TEXT,
                blob_key TEXT NOT NULL,
                published_at TIMESTAMPTZ NOT NULL,
                downloads BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (name, version)
            )
            """,
            "CREATE INDEX version_blob_key ON version (blob_key)",
        ]
    ]

    /// The schema version this code expects.
    static var currentSchemaVersion: Int { migrations.count }

    /// Creates or migrates the schema under the advisory lock, on a connection of its own.
    func migrate(_ configuration: PostgresConnection.Configuration) async throws {
        let opened = NIOLockedValueBox<PostgresConnection?>(nil)
        try await withDeadline("migrating the schema", connection: opened) { [logger] in
            let connection = try await PostgresConnection.connect(
                configuration: configuration, id: 0, logger: logger)
            opened.withLockedValue { $0 = connection }
            do {
                // The lock belongs to the session: closing the connection releases it, also on failure.
                try await connection.query("SELECT pg_advisory_lock(\(Self.migrationLockKey))", logger: logger)
                try await Self.applyMigrations(connection, logger: logger)
                try await connection.query("SELECT pg_advisory_unlock(\(Self.migrationLockKey))", logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        }
    }

    private static func applyMigrations(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS schema_version (
                version INTEGER PRIMARY KEY,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )
            """, logger: logger)
        var applied = 0
        for try await value in try await connection.query(
            "SELECT COALESCE(MAX(version), 0) FROM schema_version", logger: logger
        ).decode(Int.self) {
            applied = value
        }
        guard applied <= currentSchemaVersion else {
            throw HubStorageError.database(
                "the database's schema version \(applied) is newer than this hub's (\(currentSchemaVersion)); upgrade the hub"
            )
        }
        for (index, statements) in migrations.enumerated() where index + 1 > applied {
            let version = index + 1
            try await connection.withTransaction(logger: logger) { connection in
                for statement in statements {
                    try await connection.query(statement, logger: logger)
                }
                try await connection.query("INSERT INTO schema_version (version) VALUES (\(version))", logger: logger)
            }
            logger.info("catalogue schema migrated", metadata: ["version": "\(version)"])
        }
    }
}

import Foundation
import Logging
import OpenMLKit
import PostgresNIO

extension PostgresModelCatalog {
    public func models() async throws -> [HubModel] {
        try await withConnection("listing models") { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT m.name, m.rollout, \(unescaped: Self.versionColumns)
                FROM model m LEFT JOIN version v ON v.name = m.name
                ORDER BY m.name COLLATE "C", v.version
                """, logger: logger)
            return try await Self.models(from: rows)
        }
    }

    public func model(named name: String) async throws -> HubModel? {
        try await withConnection("reading \(name)") { [logger] connection in
            try await Self.model(named: name, on: connection, logger: logger)
        }
    }

    private static func model(named name: String, on connection: PostgresConnection, logger: Logger) async throws
        -> HubModel?
    {
        let rows = try await connection.query(
            """
            SELECT m.name, m.rollout, \(unescaped: versionColumns)
            FROM model m LEFT JOIN version v ON v.name = m.name
            WHERE m.name = \(name)
            ORDER BY v.version
            """, logger: logger)
        return try await models(from: rows).first
    }

    /// Throws ``ModelPreconditionFailed`` unless `condition` (if any) holds for the model as it is
    /// in this transaction, with the model's row locked (FOR UPDATE) until the transaction ends, so
    /// no other process's write comes between the check and this one's change.
    private static func check(
        _ condition: ModelPrecondition?, name: String, on connection: PostgresConnection, logger: Logger
    ) async throws {
        guard let condition else { return }
        _ = try await connection.query("SELECT 1 FROM model WHERE name = \(name) FOR UPDATE", logger: logger).collect()
        guard condition.isMet(try await model(named: name, on: connection, logger: logger)) else {
            throw ModelPreconditionFailed()
        }
    }

    public func storedVersion(name: String, version: Int) async throws -> StoredModelVersion? {
        try await withConnection("reading \(name) version \(version)") { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT v.blob_key, \(unescaped: Self.versionColumns)
                FROM version v WHERE v.name = \(name) AND v.version = \(version)
                """, logger: logger
            ).decode((String, Int, Int64, String, String?, Int, Int64).self)
            for try await (blobKey, number, size, sha256, signature, downloads, milliseconds) in rows {
                let version = HubModelVersion(
                    name: name, version: number, size: size, sha256: sha256, publishedAt: Self.date(milliseconds),
                    signature: signature, downloads: downloads)
                return StoredModelVersion(version: version, blobKey: blobKey)
            }
            return nil
        }
    }

    public func addVersion(_ new: NewModelVersion, if condition: ModelPrecondition?) async throws -> HubModelVersion {
        let new = try new.validated()
        let rollout = try Self.json(HubRollout())
        let milliseconds = Self.milliseconds(new.publishedAt)
        return try await withTransaction("publishing \(new.name)") { [logger] connection in
            try await Self.check(condition, name: new.name, on: connection, logger: logger)
            // The model's row lock serializes publishes of one name across processes. When a delete
            // commits between the insert and the lock, the lock finds no row and the next round
            // creates the model again; each lost round means another process made progress, and the
            // operation's deadline bounds the whole.
            var locked = false
            for _ in 0..<Self.publishRounds where !locked {
                try await connection.query(
                    """
                    INSERT INTO model (name, rollout, created_at)
                    VALUES (\(new.name), \(rollout), TIMESTAMPTZ 'epoch' + \(milliseconds) * INTERVAL '1 millisecond')
                    ON CONFLICT (name) DO NOTHING
                    """, logger: logger)
                locked = try await !connection.query(
                    "SELECT 1 FROM model WHERE name = \(new.name) FOR UPDATE", logger: logger
                ).collect().isEmpty
            }
            guard locked else {
                throw HubStorageError.database(
                    "the model was deleted during the publish \(Self.publishRounds) times in a row")
            }
            var last = 0
            for try await value in try await connection.query(
                "SELECT COALESCE(MAX(version), 0) FROM version WHERE name = \(new.name)", logger: logger
            ).decode(Int.self) {
                last = value
            }
            let version = last + 1
            try await connection.query(
                """
                INSERT INTO version (name, version, size, sha256, signature, blob_key, published_at)
                VALUES (\(new.name), \(version), \(new.size), \(new.sha256), \(new.signature), \(new.blobKey),
                        TIMESTAMPTZ 'epoch' + \(milliseconds) * INTERVAL '1 millisecond')
                """, logger: logger)
            return HubModelVersion(
                name: new.name, version: version, size: new.size, sha256: new.sha256,
                publishedAt: Self.date(milliseconds), signature: new.signature)
        }
    }

    public func deleteModel(named name: String, if condition: ModelPrecondition?) async throws -> [String]? {
        try await withTransaction("deleting \(name)") { [logger] connection in
            try await Self.check(condition, name: name, on: connection, logger: logger)
            // Locking the model's row first keeps a concurrent publish from adding a version whose
            // blob key this answer would miss.
            guard
                try await !connection.query("SELECT 1 FROM model WHERE name = \(name) FOR UPDATE", logger: logger)
                    .collect().isEmpty
            else { return nil }
            var keys: [String] = []
            for try await key in try await connection.query(
                "SELECT blob_key FROM version WHERE name = \(name) ORDER BY version", logger: logger
            ).decode(String.self) {
                keys.append(key)
            }
            try await connection.query("DELETE FROM model WHERE name = \(name)", logger: logger)
            return keys
        }
    }

    public func setRollout(_ rollout: HubRollout, for name: String, if condition: ModelPrecondition?) async throws -> Bool {
        let json = try Self.json(rollout)
        return try await withTransaction("setting the rollout of \(name)") { [logger] connection in
            try await Self.check(condition, name: name, on: connection, logger: logger)
            return try await !connection.query(
                "UPDATE model SET rollout = \(json) WHERE name = \(name) RETURNING 1", logger: logger
            ).collect().isEmpty
        }
    }

    public func referencedBlobKeys() async throws -> Set<String> {
        try await withConnection("listing blob keys") { [logger] connection in
            var keys = Set<String>()
            for try await key in try await connection.query("SELECT blob_key FROM version", logger: logger)
                .decode(String.self)
            {
                keys.insert(key)
            }
            return keys
        }
    }

    public func addDownloads(_ counts: [ModelVersionKey: Int]) async throws {
        guard !counts.isEmpty else { return }
        // One order for every process, so that two batches touching the same versions never deadlock.
        let sorted = counts.sorted { ($0.key.name, $0.key.version) < ($1.key.name, $1.key.version) }
        try await withTransaction("counting downloads") { [logger] connection in
            for (key, count) in sorted {
                try await connection.query(
                    """
                    UPDATE version SET downloads = downloads + \(count)
                    WHERE name = \(key.name) AND version = \(key.version)
                    """, logger: logger)
            }
        }
    }

    /// How often a publish tries to create and lock its model while deletes keep removing it.
    private static let publishRounds = 100

    // MARK: Rows

    /// The version columns every read selects, in the order ``models(from:)`` decodes them.
    private static let versionColumns =
        "v.version, v.size, v.sha256, v.signature, v.downloads, (EXTRACT(EPOCH FROM v.published_at) * 1000)::BIGINT"

    /// Groups the rows of a model–version join (sorted by model) into models.
    private static func models(from rows: PostgresRowSequence) async throws -> [HubModel] {
        var models: [HubModel] = []
        for try await (name, rolloutJSON, number, size, sha256, signature, downloads, milliseconds) in rows.decode(
            (String, String, Int?, Int64?, String?, String?, Int?, Int64?).self)
        {
            if models.last?.name != name {
                let rollout =
                    (try? HubJSON.decoder().decode(HubRollout.self, from: Data(rolloutJSON.utf8))) ?? HubRollout()
                models.append(HubModel(name: name, versions: [], rollout: rollout))
            }
            guard let number, let size, let sha256, let milliseconds else { continue }
            models[models.count - 1].versions.append(
                HubModelVersion(
                    name: name, version: number, size: size, sha256: sha256, publishedAt: date(milliseconds),
                    signature: signature, downloads: downloads))
        }
        return models
    }

    private static func json(_ rollout: HubRollout) throws -> String {
        do {
            return try String(decoding: HubJSON.encoder().encode(rollout), as: UTF8.self)
        } catch {
            throw HubStorageError.database("cannot encode the rollout: \(error)")
        }
    }

    /// Whole milliseconds since 1970, the precision the catalogue stores. Rounded down, except that
    /// a value within a microsecond below a millisecond counts as that millisecond (binary floating
    /// point cannot hold most decimal fractions exactly).
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000 + 0.001).rounded(.down))
    }

    /// The date of a stored millisecond count.
    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

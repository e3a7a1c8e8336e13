import Foundation
import GRDB
import OpenMLKit

/// The embedded catalogue: one SQLite file (through GRDB), no setup.
///
/// Version numbers are assigned inside a write transaction, so concurrent publishes of one name
/// get consecutive numbers.
public final class SQLiteModelCatalog: ModelCatalog {
    private let database: DatabasePool

    /// Opens (creating and migrating if needed) the catalogue at `path`.
    public init(path: String) throws {
        do {
            // A pool (WAL mode): downloads read concurrently while a publish writes.
            database = try DatabasePool(path: path)
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v1") { db in
                try db.create(table: "model") { t in
                    t.primaryKey("name", .text)
                    t.column("rollout", .text).notNull()
                    t.column("createdAt", .datetime).notNull()
                }
                try db.create(table: "version") { t in
                    t.column("name", .text).notNull().references("model", onDelete: .cascade)
                    t.column("version", .integer).notNull()
                    t.column("size", .integer).notNull()
                    t.column("sha256", .text).notNull()
                    t.column("blobKey", .text).notNull()
                    t.column("publishedAt", .datetime).notNull()
                    t.primaryKey(["name", "version"])
                }
            }
            migrator.registerMigration("v2: signatures and download counts") { db in
                try db.alter(table: "version") { t in
                    t.add(column: "signature", .text)
                    t.add(column: "downloads", .integer).notNull().defaults(to: 0)
                }
            }
            try migrator.migrate(database)
        } catch {
            throw HubStorageError.database("cannot open \(path): \(error)")
        }
    }

    public func models() async throws -> [HubModel] {
        try await read { db in
            let names = try String.fetchAll(db, sql: "SELECT name FROM model ORDER BY name")
            return try names.compactMap { try Self.load(db, name: $0) }
        }
    }

    public func model(named name: String) async throws -> HubModel? {
        try await read { db in try Self.load(db, name: name) }
    }

    public func storedVersion(name: String, version: Int) async throws -> StoredModelVersion? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT \(Self.versionColumns), blobKey FROM version WHERE name = ? AND version = ?",
                    arguments: [name, version])
            else { return nil }
            return StoredModelVersion(version: Self.version(row, name: name), blobKey: row["blobKey"])
        }
    }

    public func addVersion(_ new: NewModelVersion, if condition: ModelPrecondition?) async throws -> HubModelVersion {
        let new = try new.validated()
        let rollout = try String(decoding: HubJSON.encoder().encode(HubRollout()), as: UTF8.self)
        return try await write { db in
            try Self.check(condition, db, name: new.name)
            try db.execute(
                sql: "INSERT OR IGNORE INTO model (name, rollout, createdAt) VALUES (?, ?, ?)",
                arguments: [new.name, rollout, new.publishedAt])
            let last = try Int.fetchOne(db, sql: "SELECT MAX(version) FROM version WHERE name = ?", arguments: [new.name])
            let version = (last ?? 0) + 1
            try db.execute(
                sql: """
                    INSERT INTO version (name, version, size, sha256, signature, blobKey, publishedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [new.name, version, new.size, new.sha256, new.signature, new.blobKey, new.publishedAt])
            return HubModelVersion(
                name: new.name, version: version, size: new.size, sha256: new.sha256, publishedAt: new.publishedAt,
                signature: new.signature)
        }
    }

    public func referencedBlobKeys() async throws -> Set<String> {
        try await read { db in Set(try String.fetchAll(db, sql: "SELECT blobKey FROM version")) }
    }

    public func addDownloads(_ counts: [ModelVersionKey: Int]) async throws {
        guard !counts.isEmpty else { return }
        try await write { db in
            for (key, count) in counts {
                try db.execute(
                    sql: "UPDATE version SET downloads = downloads + ? WHERE name = ? AND version = ?",
                    arguments: [count, key.name, key.version])
            }
        }
    }

    public func deleteModel(named name: String, if condition: ModelPrecondition?) async throws -> [String]? {
        try await write { db in
            try Self.check(condition, db, name: name)
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM model WHERE name = ?", arguments: [name]) != nil else {
                return nil
            }
            let keys = try String.fetchAll(db, sql: "SELECT blobKey FROM version WHERE name = ?", arguments: [name])
            try db.execute(sql: "DELETE FROM version WHERE name = ?", arguments: [name])
            try db.execute(sql: "DELETE FROM model WHERE name = ?", arguments: [name])
            return keys
        }
    }

    public func setRollout(_ rollout: HubRollout, for name: String, if condition: ModelPrecondition?) async throws -> Bool {
        let json = try String(decoding: HubJSON.encoder().encode(rollout), as: UTF8.self)
        return try await write { db in
            try Self.check(condition, db, name: name)
            try db.execute(sql: "UPDATE model SET rollout = ? WHERE name = ?", arguments: [json, name])
            return db.changesCount > 0
        }
    }

    /// Throws ``ModelPreconditionFailed`` unless `condition` (if any) holds for the model as it is
    /// in this write transaction (SQLite runs one write at a time, so nothing comes in between).
    private static func check(_ condition: ModelPrecondition?, _ db: Database, name: String) throws {
        guard let condition else { return }
        guard condition.isMet(try load(db, name: name)) else { throw ModelPreconditionFailed() }
    }

    private static func load(_ db: Database, name: String) throws -> HubModel? {
        guard let row = try Row.fetchOne(db, sql: "SELECT rollout FROM model WHERE name = ?", arguments: [name]) else {
            return nil
        }
        let rolloutJSON: String = row["rollout"]
        let rollout = (try? HubJSON.decoder().decode(HubRollout.self, from: Data(rolloutJSON.utf8))) ?? HubRollout()
        let versions = try Row.fetchAll(
            db, sql: "SELECT \(versionColumns) FROM version WHERE name = ? ORDER BY version", arguments: [name]
        ).map { version($0, name: name) }
        return HubModel(name: name, versions: versions, rollout: rollout)
    }

    private static let versionColumns = "version, size, sha256, signature, downloads, publishedAt"

    private static func version(_ row: Row, name: String) -> HubModelVersion {
        HubModelVersion(
            name: name, version: row["version"], size: row["size"], sha256: row["sha256"], publishedAt: row["publishedAt"],
            signature: row["signature"], downloads: row["downloads"])
    }

    private func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        do { return try await database.read(body) } catch { throw HubStorageError.database("\(error)") }
    }

    private func write<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        do {
            return try await database.write(body)
        } catch let failed as ModelPreconditionFailed {
            throw failed
        } catch {
            throw HubStorageError.database("\(error)")
        }
    }
}

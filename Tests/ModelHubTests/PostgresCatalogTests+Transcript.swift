import Foundation
import ModelHub
import OpenMLKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension PostgresCatalogTests {
    /// Runs one scripted sequence of every catalogue method and records each answer as JSON, so
    /// that two implementations can be compared line by line.
    static func transcript(of catalog: any ModelCatalog) async throws -> [String] {
        var lines: [String] = []
        func record<T: Encodable>(_ step: String, _ value: T) throws {
            lines.append("\(step): \(try json(value))")
        }
        func publish(_ name: String, _ seconds: TimeInterval, _ key: String, signature: String? = nil) async throws {
            let new = NewModelVersion(
                name: name, size: Int64(seconds) % 997, sha256: String(repeating: "0f", count: 32),
                signature: signature,
                blobKey: key, publishedAt: Date(timeIntervalSince1970: seconds))
            try record("addVersion \(name)", try await catalog.addVersion(new))
        }

        try record("models (empty)", try await catalog.models())
        // The catalogue itself refuses names and digests no hub may hold, and records nothing.
        for (name, digest) in [("../escape", String(repeating: "0f", count: 32)), ("", String(repeating: "0f", count: 32)),
            ("ok", "not-a-digest")]
        {
            let bad = NewModelVersion(
                name: name, size: 1, sha256: digest, blobKey: "key-bad", publishedAt: Date(timeIntervalSince1970: 1_700_000_000))
            do {
                _ = try await catalog.addVersion(bad)
                lines.append("addVersion '\(name)' \(digest): accepted")
            } catch let error as HubStorageError {
                lines.append("addVersion '\(name)' \(digest): \(error.localizedDescription)")
            }
        }
        try record("model missing", try await catalog.model(named: "missing"))
        try record(
            "storedVersion missing", try await catalog.storedVersion(name: "missing", version: 1).map(StoredLine.init))
        try record("referencedBlobKeys (empty)", try await catalog.referencedBlobKeys().sorted())
        try record("models (still empty)", try await catalog.models())
        // Names whose byte order differs from a locale's order: SQLite compares bytes.
        try await publish("beta", 1_700_000_000, "key-b1")
        try await publish("Alpha", 1_700_000_100, "key-A1", signature: "c2lnbmF0dXJl")
        try await publish("beta", 1_700_000_200, "key-b2")
        try await publish("alpha-2", 1_700_000_300, "key-a2")
        try await publish("a.b", 1_700_000_400, "key-ab")
        try await publish("beta", 1_700_000_500, "key-b3", signature: "b3Rogp==")
        try record("models", try await catalog.models())
        try record("model beta", try await catalog.model(named: "beta"))
        try record(
            "storedVersion beta 2", try await catalog.storedVersion(name: "beta", version: 2).map(StoredLine.init))
        try record(
            "storedVersion beta 4", try await catalog.storedVersion(name: "beta", version: 4).map(StoredLine.init))
        let rollout = HubRollout(
            rules: [.group("beta-testers", version: 3), .percent(25, version: 2)], defaultVersion: 1)
        try record("setRollout beta", try await catalog.setRollout(rollout, for: "beta"))
        try record("setRollout missing", try await catalog.setRollout(rollout, for: "missing"))
        try record("model beta after rollout", try await catalog.model(named: "beta"))
        // Conditional writes (If-Match): refused ones change nothing; met ones go through.
        func conditional<T: Encodable>(_ step: String, _ write: () async throws -> T) async throws {
            do { try record(step, try await write()) } catch is ModelPreconditionFailed { lines.append("\(step): refused") }
        }
        let stale = ModelPrecondition.ifMatch("\"m-stale\"")
        let current = ModelPrecondition.ifMatch(try #require(try await catalog.model(named: "beta")).entityTag)
        try await conditional("setRollout beta stale") { try await catalog.setRollout(HubRollout(), for: "beta", if: stale) }
        try await conditional("deleteModel beta stale") { try await catalog.deleteModel(named: "beta", if: stale) }
        try await conditional("addVersion beta stale") {
            try await catalog.addVersion(
                NewModelVersion(
                    name: "beta", size: 5, sha256: String(repeating: "0f", count: 32), blobKey: "key-stale",
                    publishedAt: Date(timeIntervalSince1970: 1_700_000_550)), if: stale)
        }
        try await conditional("deleteModel missing *") { try await catalog.deleteModel(named: "missing", if: .ifMatch("*")) }
        try record("model beta after refusals", try await catalog.model(named: "beta"))
        try await conditional("setRollout beta current") { try await catalog.setRollout(rollout, for: "beta", if: current) }
        try await catalog.addDownloads([:])
        try await catalog.addDownloads([
            ModelVersionKey(name: "beta", version: 1): 4, ModelVersionKey(name: "beta", version: 3): 1,
            ModelVersionKey(name: "Alpha", version: 1): 2, ModelVersionKey(name: "beta", version: 7): 9,
            ModelVersionKey(name: "missing", version: 1): 9,
        ])
        try await catalog.addDownloads([ModelVersionKey(name: "beta", version: 1): 1])
        try record("models after downloads", try await catalog.models())
        try record(
            "storedVersion beta 1", try await catalog.storedVersion(name: "beta", version: 1).map(StoredLine.init))
        try record("referencedBlobKeys", try await catalog.referencedBlobKeys().sorted())
        try record("deleteModel beta", try await catalog.deleteModel(named: "beta"))
        try record("deleteModel beta again", try await catalog.deleteModel(named: "beta"))
        try record("deleteModel missing", try await catalog.deleteModel(named: "missing"))
        try record("model beta deleted", try await catalog.model(named: "beta"))
        try record("referencedBlobKeys after delete", try await catalog.referencedBlobKeys().sorted())
        try await publish("beta", 1_700_000_600, "key-b-new")
        try record("model beta recreated", try await catalog.model(named: "beta"))
        try record("models at the end", try await catalog.models())
        return lines
    }

    /// A stored version as JSON.
    struct StoredLine: Encodable {
        var version: HubModelVersion
        var blobKey: String
        init(_ stored: StoredModelVersion) {
            version = stored.version
            blobKey = stored.blobKey
        }
    }

    /// A value as the hub sends it (ISO 8601 dates, sorted keys).
    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try HubJSON.encoder().encode(value), as: UTF8.self)
    }

    /// `addVersion` answers without a download count; a read answers with one.
    static func withoutDownloads(_ version: HubModelVersion) -> HubModelVersion {
        var version = version
        version.downloads = nil
        return version
    }
}

/// A TCP listener on loopback that completes connections (through the kernel's backlog) but never
/// reads or answers: a hung database.
final class SilentServer: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HubStorageError.io("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            Glibc.close(fd)
            throw HubStorageError.io("bind or listen failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(descriptor) }
}

import Foundation
import OpenMLKit

/// A version to record: everything but its number, which the catalogue assigns.
public struct NewModelVersion: Sendable, Equatable {
    /// The model's name (created on its first publish).
    public var name: String
    /// The file's size in bytes.
    public var size: Int64
    /// The file's SHA-256, lowercase hex.
    public var sha256: String
    /// The publisher's signature (base64), if the upload was signed.
    public var signature: String?
    /// The committed blob holding the file.
    public var blobKey: String
    /// When it was published.
    public var publishedAt: Date

    /// A version to record.
    public init(name: String, size: Int64, sha256: String, signature: String? = nil, blobKey: String, publishedAt: Date) {
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.signature = signature
        self.blobKey = blobKey
        self.publishedAt = publishedAt
    }
}

extension NewModelVersion {
    /// This record, when a hub may hold it: a valid model name (`HubNames`), a size of at least
    /// zero and a SHA-256 of 64 lowercase hex digits. Every catalogue checks what it adds with this,
    /// whoever calls it, so a name from outside never reaches a row unchecked.
    ///
    /// - Throws: ``HubStorageError/invalidRecord(_:)`` naming the field.
    public func validated() throws -> NewModelVersion {
        guard HubNames.isValidModelName(name) else {
            throw HubStorageError.invalidRecord("model name '\(name.prefix(140))' is not valid")
        }
        guard size >= 0 else { throw HubStorageError.invalidRecord("size \(size) is negative") }
        guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { throw HubStorageError.invalidRecord("SHA-256 '\(sha256.prefix(80))' is not 64 lowercase hex digits") }
        return self
    }
}

/// One version together with the blob that holds it, read in one query so that a download never
/// pairs a version with another version's (or a deleted) blob.
public struct StoredModelVersion: Sendable, Equatable {
    /// The version's descriptor.
    public var version: HubModelVersion
    /// Its blob.
    public var blobKey: String

    /// A stored version.
    public init(version: HubModelVersion, blobKey: String) {
        self.version = version
        self.blobKey = blobKey
    }
}

/// Identifies one version for download counting.
public struct ModelVersionKey: Hashable, Sendable {
    /// The model's name.
    public var name: String
    /// The version number.
    public var version: Int

    /// A key.
    public init(name: String, version: Int) {
        self.name = name
        self.version = version
    }
}

/// A condition on a model's current state (nil when there is no such model) that a write evaluates
/// inside its own transaction, so that no other write can come between the check and the change:
/// HTTP's `If-Match` on the hub's admin routes.
public struct ModelPrecondition: Sendable {
    /// Whether the write may go ahead, given the model as it is now.
    public let isMet: @Sendable (HubModel?) -> Bool

    /// A condition.
    public init(_ isMet: @escaping @Sendable (HubModel?) -> Bool) {
        self.isMet = isMet
    }

    /// HTTP's `If-Match` (RFC 9110 §13.1.1): met when `header` is `*` and the model exists, or lists
    /// the model's current `HubModel.entityTag` (strong comparison: weak tags never match).
    public static func ifMatch(_ header: String) -> ModelPrecondition {
        let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return ModelPrecondition { model in
            guard let model else { return false }
            return tags.contains("*") || tags.contains(model.entityTag)
        }
    }
}

/// A write whose ``ModelPrecondition`` was not met: nothing was changed.
public struct ModelPreconditionFailed: Error, Sendable, Equatable {
    /// An error.
    public init() {}
}

/// The hub's catalogue: which models exist, their versions and their rollouts.
///
/// The embedded default is ``SQLiteModelCatalog``; several hub processes share one
/// ``PostgresModelCatalog``. Implementations must be safe to call concurrently, also from several
/// processes at once where the store allows it, and must number versions without gaps or
/// duplicates under concurrent publishes.
public protocol ModelCatalog: Sendable {
    /// Every model, sorted by name, each version with its download count.
    func models() async throws -> [HubModel]
    /// One model with its versions (and their download counts), or nil when there is none.
    func model(named name: String) async throws -> HubModel?
    /// One version and its blob key, or nil when there is no such version.
    func storedVersion(name: String, version: Int) async throws -> StoredModelVersion?
    /// Records a new version (creating the model on its first publish) and returns it with the
    /// next version number. With a `condition`, it is evaluated on the model as it is in the same
    /// transaction, before anything is written; ``ModelPreconditionFailed`` when it is not met.
    func addVersion(_ new: NewModelVersion, if condition: ModelPrecondition?) async throws -> HubModelVersion
    /// Removes a model and all its versions; returns the blob keys that are no longer referenced,
    /// or nil when there was no such model (and no `condition`). A `condition` is evaluated as
    /// for ``addVersion(_:if:)``.
    func deleteModel(named name: String, if condition: ModelPrecondition?) async throws -> [String]?
    /// Replaces a model's rollout; false when there is no such model (and no `condition`). A
    /// `condition` is evaluated as for ``addVersion(_:if:)``.
    func setRollout(_ rollout: HubRollout, for name: String, if condition: ModelPrecondition?) async throws -> Bool
    /// Every blob key a version references (for removing orphaned blobs).
    func referencedBlobKeys() async throws -> Set<String>
    /// Adds completed downloads to the versions' counts; versions that no longer exist are skipped.
    func addDownloads(_ counts: [ModelVersionKey: Int]) async throws
}

/// Where the hub keeps model files.
///
/// The embedded default is ``FileBlobStore`` (a directory, which several replicas may share); an
/// object store can replace it (see docs/HUB.md, "Other blob stores").
/// Uploads go to a staging area first and become visible only through ``commit(_:)``, so a
/// half-received upload never becomes a blob.
public protocol BlobStore: Sendable {
    /// Starts receiving a new file.
    func beginUpload() throws -> BlobUpload
    /// Makes a finished upload a stored blob and returns its key.
    func commit(_ upload: BlobUpload) throws -> String
    /// The local file of a blob, for serving.
    func fileURL(forKey key: String) throws -> URL
    /// The local file of a blob as a path (the download route's fast way to the same file).
    func filePath(forKey key: String) throws -> String
    /// Removes a blob; missing blobs are ignored.
    func delete(key: String)
    /// The keys of stored blobs last modified (committed) before `date`: candidates for removal
    /// when no catalogue row references them. A blob committed within the grace period may be
    /// about to be referenced by another replica's catalogue write, so it is never listed.
    func keys(modifiedBefore date: Date) throws -> [String]
}

extension BlobStore {
    public func filePath(forKey key: String) throws -> String { try fileURL(forKey: key).path }
}

/// A file being uploaded to a ``BlobStore``: written in pieces, then committed or discarded.
public final class BlobUpload: @unchecked Sendable {
    /// The staging file.
    public let url: URL
    private let handle: FileHandle
    private(set) var isClosed = false

    public init(url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw HubStorageError.io("cannot create the staging file \(url.path)")
        }
        self.url = url
        self.handle = try FileHandle(forWritingTo: url)
    }

    /// Appends bytes to the staging file.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        try handle.write(contentsOf: Data(bytes))
    }

    /// Flushes the staging file to disk and closes it.
    public func synchronizeAndClose() throws {
        guard !isClosed else { return }
        try handle.synchronize()
        try close()
    }

    /// Closes the staging file (before commit).
    public func close() throws {
        guard !isClosed else { return }
        isClosed = true
        try handle.close()
    }

    /// Closes and deletes the staging file: nothing of the upload remains.
    public func discard() {
        try? close()
        try? FileManager.default.removeItem(at: url)
    }
}

/// A storage failure inside the hub.
public enum HubStorageError: Error, Equatable, Sendable {
    /// A file-system operation failed.
    case io(String)
    /// The database failed.
    case database(String)
    /// A record no hub may hold (an invalid model name, a malformed digest): refused before it
    /// reaches the database.
    case invalidRecord(String)
}

extension HubStorageError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .io(let message): return "storage: \(message)"
        case .database(let message): return "catalogue: \(message)"
        case .invalidRecord(let message): return "catalogue: refused a record: \(message)"
        }
    }
}

extension ModelCatalog {
    /// Records a new version unconditionally (``addVersion(_:if:)`` without a condition).
    public func addVersion(_ new: NewModelVersion) async throws -> HubModelVersion {
        try await addVersion(new, if: nil)
    }

    /// Removes a model unconditionally (``deleteModel(named:if:)`` without a condition).
    public func deleteModel(named name: String) async throws -> [String]? {
        try await deleteModel(named: name, if: nil)
    }

    /// Replaces a rollout unconditionally (``setRollout(_:for:if:)`` without a condition).
    public func setRollout(_ rollout: HubRollout, for name: String) async throws -> Bool {
        try await setRollout(rollout, for: name, if: nil)
    }
}

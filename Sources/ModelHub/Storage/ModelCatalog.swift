import Foundation
import OpenMLKit

/// The hub's catalogue: which models exist, their versions and their rollouts.
///
/// The embedded default is ``SQLiteModelCatalog``; a larger deployment can put the catalogue in
/// PostgreSQL by implementing this protocol. Implementations must be safe to call concurrently
/// and must number versions without gaps or duplicates under concurrent publishes.
public protocol ModelCatalog: Sendable {
    /// Every model, sorted by name.
    func models() async throws -> [HubModel]
    /// One model, or nil when there is none by that name.
    func model(named name: String) async throws -> HubModel?
    /// The blob key of one version, or nil when there is no such version.
    func blobKey(name: String, version: Int) async throws -> String?
    /// Records a new version (creating the model on its first publish) and returns it with the
    /// next version number.
    func addVersion(name: String, size: Int64, sha256: String, blobKey: String, publishedAt: Date) async throws
        -> HubModelVersion
    /// Removes a model and all its versions; returns the blob keys that are no longer referenced,
    /// or nil when there was no such model.
    func deleteModel(named name: String) async throws -> [String]?
    /// Replaces a model's rollout; false when there is no such model.
    func setRollout(_ rollout: HubRollout, for name: String) async throws -> Bool
}

/// Where the hub keeps model files.
///
/// The embedded default is ``FileBlobStore`` (a directory); an object store can replace it.
/// Uploads go to a staging area first and become visible only through ``commit(_:)``, so a
/// half-received upload never becomes a blob.
public protocol BlobStore: Sendable {
    /// Starts receiving a new file.
    func beginUpload() throws -> BlobUpload
    /// Makes a finished upload a stored blob and returns its key.
    func commit(_ upload: BlobUpload) throws -> String
    /// The local file of a blob, for serving.
    func fileURL(forKey key: String) throws -> URL
    /// Removes a blob; missing blobs are ignored.
    func delete(key: String)
}

/// A file being uploaded to a ``BlobStore``: written in pieces, then committed or discarded.
public final class BlobUpload: @unchecked Sendable {
    /// The staging file.
    public let url: URL
    private let handle: FileHandle
    private(set) var isClosed = false

    init(url: URL) throws {
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
}

extension HubStorageError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .io(let message): return "storage: \(message)"
        case .database(let message): return "catalogue: \(message)"
        }
    }
}

import Foundation

/// Blobs as files in a directory: `blobs/<uuid>` for stored files, `staging/` for uploads in
/// progress (emptied when the store opens, so uploads cut off by a crash leave nothing behind).
public struct FileBlobStore: BlobStore {
    /// The store's root directory.
    public let root: URL

    private var blobs: URL { root.appendingPathComponent("blobs", isDirectory: true) }
    private var staging: URL { root.appendingPathComponent("staging", isDirectory: true) }

    /// Opens (creating if needed) a store under `root`.
    public init(root: URL) throws {
        self.root = root
        let fm = FileManager.default
        do {
            try fm.createDirectory(at: root.appendingPathComponent("blobs"), withIntermediateDirectories: true)
            let staging = root.appendingPathComponent("staging")
            if fm.fileExists(atPath: staging.path) { try fm.removeItem(at: staging) }
            try fm.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw HubStorageError.io("cannot prepare \(root.path): \(error.localizedDescription)")
        }
    }

    public func beginUpload() throws -> BlobUpload {
        try BlobUpload(url: staging.appendingPathComponent(UUID().uuidString.lowercased()))
    }

    public func commit(_ upload: BlobUpload) throws -> String {
        try upload.close()
        let key = upload.url.lastPathComponent
        do {
            try FileManager.default.moveItem(at: upload.url, to: blobs.appendingPathComponent(key))
        } catch {
            upload.discard()
            throw HubStorageError.io("cannot store the upload: \(error.localizedDescription)")
        }
        return key
    }

    public func fileURL(forKey key: String) throws -> URL {
        // Keys are UUIDs this store made; anything else is refused rather than joined into a path.
        guard UUID(uuidString: key) != nil else { throw HubStorageError.io("invalid blob key '\(key)'") }
        return blobs.appendingPathComponent(key)
    }

    public func delete(key: String) {
        guard let url = try? fileURL(forKey: key) else { return }
        try? FileManager.default.removeItem(at: url)
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Blobs as files in a directory: `<blobs>/<uuid>` for stored files, and a staging directory for
/// uploads in progress that belongs to one hub process (emptied when the store opens, so uploads
/// cut off by a crash leave nothing behind).
///
/// Several hub processes may share one blob directory, each with its own staging directory on
/// the same file system (a commit is a `rename`). A blob is flushed to disk, and so is the
/// directory entry that names it, before ``commit(_:)`` returns: the catalogue never refers to a
/// blob that a power cut could lose.
public struct FileBlobStore: BlobStore {
    /// Where stored blobs live.
    public let blobsDirectory: URL
    /// Where this process's uploads in progress live.
    public let stagingDirectory: URL

    /// Opens a store over `blobs` (shared, created if needed) with this process's `staging`
    /// directory (emptied). The caller must own `staging` exclusively (the hub holds the data
    /// directory's lock).
    ///
    /// - Throws: ``HubStartupError/blobDirectoryUnusable(_:)`` when the directories cannot be made
    ///   or are on different file systems.
    public init(blobs: URL, staging: URL) throws {
        self.blobsDirectory = blobs
        self.stagingDirectory = staging
        let fm = FileManager.default
        do {
            try fm.createDirectory(at: blobs, withIntermediateDirectories: true)
            if fm.fileExists(atPath: staging.path) { try fm.removeItem(at: staging) }
            try fm.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw HubStartupError.blobDirectoryUnusable(error.localizedDescription)
        }
        var a = stat(), b = stat()
        guard stat(blobs.path, &a) == 0, stat(staging.path, &b) == 0, a.st_dev == b.st_dev else {
            throw HubStartupError.blobDirectoryUnusable(
                "the blob directory must be on the same file system as the data directory's staging area")
        }
    }

    /// The single-process layout: `root/blobs` and `root/staging`.
    public init(root: URL) throws {
        try self.init(blobs: root.appendingPathComponent("blobs"), staging: root.appendingPathComponent("staging"))
    }

    public func beginUpload() throws -> BlobUpload {
        try BlobUpload(url: stagingDirectory.appendingPathComponent(UUID().uuidString.lowercased()))
    }

    public func commit(_ upload: BlobUpload) throws -> String {
        let key = upload.url.lastPathComponent
        do {
            try upload.synchronizeAndClose()
            // A fresh modification time: the reconciler's grace period counts from the commit.
            _ = utimes(upload.url.path, nil)
            try FileManager.default.moveItem(at: upload.url, to: blobsDirectory.appendingPathComponent(key))
            try Self.synchronizeDirectory(blobsDirectory)
        } catch {
            upload.discard()
            try? FileManager.default.removeItem(at: blobsDirectory.appendingPathComponent(key))
            throw HubStorageError.io("cannot store the upload: \(error.localizedDescription)")
        }
        return key
    }

    public func fileURL(forKey key: String) throws -> URL { URL(fileURLWithPath: try filePath(forKey: key)) }

    public func filePath(forKey key: String) throws -> String {
        // Keys are UUIDs this store made; anything else is refused rather than joined into a path.
        guard Self.isKey(key) else { throw HubStorageError.io("invalid blob key '\(key.prefix(40))'") }
        return blobsPath + "/" + key
    }

    private var blobsPath: String { blobsDirectory.path }

    /// Whether `key` has the shape of the keys this store makes: a lowercase UUID (checked byte by
    /// byte: this is on every download's path).
    static func isKey(_ key: String) -> Bool {
        guard key.utf8.count == 36 else { return false }
        for (i, byte) in key.utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if byte != 0x2D { return false }
            } else if !((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)) {
                return false
            }
        }
        return true
    }

    public func delete(key: String) {
        guard let path = try? filePath(forKey: key) else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    public func keys(modifiedBefore date: Date) throws -> [String] {
        let fm = FileManager.default
        let names: [String]
        do { names = try fm.contentsOfDirectory(atPath: blobsDirectory.path) } catch {
            throw HubStorageError.io("cannot list the blob directory: \(error.localizedDescription)")
        }
        return names.filter { name in
            guard Self.isKey(name),
                let attributes = try? fm.attributesOfItem(atPath: blobsDirectory.appendingPathComponent(name).path),
                let modified = attributes[.modificationDate] as? Date
            else { return false }
            return modified < date
        }
    }

    /// fsync on a directory: makes a rename into it durable.
    static func synchronizeDirectory(_ directory: URL) throws {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw HubStorageError.io("cannot open a directory to flush it") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw HubStorageError.io("cannot flush a directory: \(String(cString: strerror(errno)))") }
    }
}

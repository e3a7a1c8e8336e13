import Crypto
import Foundation

/// The SHA-256 of the file at `url` as lowercase hex, read in 1 MiB pieces.
///
/// - Throws: the file system's error when the file cannot be read.
public func sha256Hex(of url: URL) throws -> String {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    var hasher = SHA256()
    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
    return hasher.finalize().map { String(format: "%02x", $0) }.joined()
}

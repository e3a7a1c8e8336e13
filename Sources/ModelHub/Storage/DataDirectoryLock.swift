import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on a hub's data directory, held for the server's lifetime.
///
/// The kernel drops the lock when the process ends, however it ends, so a killed hub restarts
/// without manual clean-up, while a second hub on the same directory is refused before it touches
/// anything. Thread-safe.
public final class DataDirectoryLock: Sendable {
    private let descriptor: NIOLockedValueBox<Int32?>

    /// Takes the lock on `directory` (creating the directory and its `.lock` file if needed).
    ///
    /// - Throws: ``HubStartupError/dataDirectoryInUse`` when another process holds it;
    ///   ``HubStartupError/dataDirectoryUnusable(_:)`` when the directory cannot be used.
    public init(directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw HubStartupError.dataDirectoryUnusable("cannot create it: \(error.localizedDescription)")
        }
        let path = directory.appendingPathComponent(".lock").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw HubStartupError.dataDirectoryUnusable("cannot open its lock file: \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { throw HubStartupError.dataDirectoryInUse }
            throw HubStartupError.dataDirectoryUnusable("cannot lock it: \(String(cString: strerror(code)))")
        }
        // The holder's PID, for people looking at the directory; the lock itself is what counts.
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        descriptor = NIOLockedValueBox(fd)
    }

    /// Gives the lock up (at the latest when this object goes away); later calls do nothing.
    public func release() {
        descriptor.withLockedValue { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }

    deinit { release() }
}

/// Why a hub could not start.
public enum HubStartupError: Error, Equatable, Sendable {
    /// Another running hub holds the data directory.
    case dataDirectoryInUse
    /// The data directory cannot be created, opened or locked.
    case dataDirectoryUnusable(String)
    /// The blob directory cannot be used (missing, unwritable, or on another file system than staging).
    case blobDirectoryUnusable(String)
}

extension HubStartupError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .dataDirectoryInUse:
            return "the data directory is in use by another running hub (each hub needs its own --data)"
        case .dataDirectoryUnusable(let reason): return "the data directory is unusable: \(reason)"
        case .blobDirectoryUnusable(let reason): return "the blob directory is unusable: \(reason)"
        }
    }
}

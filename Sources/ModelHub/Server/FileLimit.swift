#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit, which bounds how many connections a hub can hold.
enum FileLimit {
    /// Raises the soft limit of open files to the hard limit (at most 65 536) and returns the
    /// soft limit in force.
    @discardableResult
    static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        let wanted = min(limit.rlim_max, 65_536)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(limit.rlim_cur)
    }

    /// The default connection limit: three quarters of the open-file limit left after 64 for the
    /// catalogue, blobs being served and uploads, so that accepting never fails for lack of
    /// descriptors.
    static func defaultMaxConnections() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 256 }
        return max(16, (Int(min(limit.rlim_cur, 1 << 20)) - 64) * 3 / 4)
    }
}

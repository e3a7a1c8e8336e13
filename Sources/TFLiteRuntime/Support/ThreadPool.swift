import CKernels

/// A persistent pool of `threads - 1` worker threads (the invoking thread is the last one),
/// owned by one interpreter and stopped when the interpreter goes away, like LiteRT's
/// per-interpreter thread pool. Parallel kernels reach it through ``current`` while that
/// interpreter invokes.
final class ThreadPool {
    let pool: OpaquePointer

    /// A pool with `threads` threads in all; nil for fewer than 2 or if no thread could start.
    init?(threads: Int) {
        guard threads > 1, let pool = omk_pool_create(threads) else { return nil }
        self.pool = pool
    }

    deinit { omk_pool_destroy(pool) }

    /// The threads a job uses, the caller included (fewer than asked if some failed to start).
    var threads: Int { omk_pool_threads(pool) }

    /// Runs `body` with `pool` as the calling thread's pool (nil: none), restoring the previous one.
    @inline(__always)
    static func with<T>(_ pool: ThreadPool?, _ body: () throws -> T) rethrows -> T {
        let previous = omk_pool_set_current(pool?.pool)
        defer { omk_pool_set_current(previous) }
        return try withExtendedLifetime(pool) { try body() }
    }
}

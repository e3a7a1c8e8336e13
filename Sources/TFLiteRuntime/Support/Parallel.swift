import CKernels
import Dispatch
import Foundation

/// Splits `0..<count` into at most `threads` contiguous chunks and runs `body` on each, in parallel.
///
/// `body` must only write to memory that belongs to its own range. With one thread (or little
/// work) it runs inline, so single-threaded results never depend on scheduling. The chunks run on
/// a persistent pool (`omk_pool`, one per thread count) whose workers spin briefly between jobs:
/// an inference issues one job per operator, microseconds apart, which Dispatch's on-demand
/// workers are too slow to wake for. If the pool is busy with another interpreter's job, Dispatch
/// runs the chunks instead.
@inline(__always)
func parallelFor(_ count: Int, threads: Int, minimumPerThread: Int = 1, _ body: (Range<Int>) -> Void) {
    let chunks = min(max(threads, 1), max(1, count / max(minimumPerThread, 1)))
    if chunks <= 1 || count <= 1 {
        if count > 0 { body(0..<count) }
        return
    }
    withoutActuallyEscaping(body) { body in
        var job = ParallelJob(count: count, chunks: chunks, body: body)
        let ran = withUnsafeMutablePointer(to: &job) { pointer -> Bool in
            omk_pool_run(ThreadPools.pool(threads: threads), { context, index in
                context!.assumingMemoryBound(to: ParallelJob.self).pointee.run(Int(index))
            }, pointer, chunks) != 0
        }
        if !ran {
            DispatchQueue.concurrentPerform(iterations: chunks) { job.run($0) }
        }
    }
}

/// One `parallelFor` call: chunk `c` covers `count * c / chunks ..< count * (c + 1) / chunks`.
struct ParallelJob {
    let count: Int
    let chunks: Int
    let body: (Range<Int>) -> Void

    func run(_ c: Int) {
        let lo = count * c / chunks
        let hi = count * (c + 1) / chunks
        if lo < hi { body(lo..<hi) }
    }
}

/// The process's thread pools, one per thread count, created on first use and kept for the
/// process's life.
enum ThreadPools {
    private static let lock = NSLock()
    private static var pools: [Int: OpaquePointer] = [:]

    static func pool(threads: Int) -> OpaquePointer? {
        lock.lock()
        defer { lock.unlock() }
        if let pool = pools[threads] { return pool }
        guard let pool = omk_pool_create(threads) else { return nil }
        pools[threads] = pool
        return pool
    }
}

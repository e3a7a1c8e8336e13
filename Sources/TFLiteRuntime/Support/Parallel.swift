import CKernels
import Dispatch
import Foundation

/// Splits `0..<count` into contiguous ranges and runs `body` on each, in parallel on up to
/// `threads` threads.
///
/// `body` must only write to memory that belongs to its own range, and compute each element the
/// same way whatever range it comes in: the ranges depend on the thread count and on timing, the
/// results must not. With one thread (or less than `minimumPerThread` per thread) it runs inline,
/// so single-threaded results never depend on scheduling.
///
/// The work goes out in several ranges per thread (``ParallelSplit``): each thread starts on its
/// own contiguous share of them and then takes the others' unclaimed ranges from their ends, so a
/// thread slowed down by another process (a busy vCPU) runs fewer of them instead of holding the
/// whole operator up for its static share, while on a quiet machine the threads never touch each
/// other's claims. The ranges run on the thread pool of the interpreter
/// that is invoking (``ThreadPool/current``), whose workers spin briefly between jobs: an
/// inference issues one job per operator, microseconds apart, which Dispatch's on-demand workers
/// are too slow to wake for. Without a pool (a kernel called outside an interpreter), or if the
/// pool is busy, Dispatch runs the ranges instead.
@inline(__always)
func parallelFor(_ count: Int, threads: Int, minimumPerThread: Int = 1, _ body: (Range<Int>) -> Void) {
    let split = ParallelSplit(count: count, threads: threads, minimumPerThread: minimumPerThread)
    if split.tasks <= 1 {
        if count > 0 { body(0..<count) }
        return
    }
    withoutActuallyEscaping(body) { body in
        var job = ParallelJob(count: count, tasks: split.tasks, body: body)
        let ran = withUnsafeMutablePointer(to: &job) { pointer -> Bool in
            omk_pool_run(omk_pool_current(), { context, index in
                context!.assumingMemoryBound(to: ParallelJob.self).pointee.run(Int(index))
            }, pointer, split.tasks) != 0
        }
        if !ran {
            DispatchQueue.concurrentPerform(iterations: split.tasks) { job.run($0) }
        }
    }
}

/// How `parallelFor` cuts `0..<count`: into `tasks` near-equal contiguous ranges.
struct ParallelSplit {
    /// Ranges per thread when the work allows it: enough that a thread running at half speed
    /// costs about one range of waiting, few enough that claiming them (one atomic each) is noise.
    static let tasksPerThread = stressTasks ?? 8

    /// `OPENMLKIT_PARALLEL_TASKS=N` (tests only): every loop of two or more units goes parallel,
    /// ignoring `minimumPerThread`, in up to N ranges per thread down to one unit each, so the
    /// fixtures show that results do not depend on where ranges start or end.
    static let stressTasks: Int? = {
        // getenv, not ProcessInfo: building Foundation's environment dictionary cost every process
        // a few tens of microseconds on its first model load.
        guard let raw = getenv("OPENMLKIT_PARALLEL_TASKS"), let value = Int(String(cString: raw)), value > 0
        else { return nil }
        return value
    }()

    /// How many ranges.
    let tasks: Int

    init(count: Int, threads: Int, minimumPerThread: Int) {
        let stress = ParallelSplit.stressTasks != nil
        let minimum = stress ? 1 : max(minimumPerThread, 1)
        let threads = min(max(threads, 1), max(1, count / minimum))
        guard threads > 1, count > 1 else {
            tasks = 1
            return
        }
        // The smallest range is a quarter of `minimumPerThread` (the work below which a thread does
        // not pay for its wake-up): a range only pays for one atomic claim.
        let grain = stress ? 1 : max(1, minimum / 4)
        tasks = min(
            count, max(threads, min(threads * ParallelSplit.tasksPerThread, count / grain)), Int(OMK_POOL_MAX_TASKS))
    }
}

/// One `parallelFor` call: task `t` covers `count * t / tasks ..< count * (t + 1) / tasks`.
struct ParallelJob {
    let count: Int
    let tasks: Int
    let body: (Range<Int>) -> Void

    func run(_ t: Int) {
        let lo = count * t / tasks
        let hi = count * (t + 1) / tasks
        if lo < hi { body(lo..<hi) }
    }
}

import Dispatch

/// Splits `0..<count` into at most `threads` contiguous chunks and runs `body` on each, in parallel.
///
/// `body` must only write to memory that belongs to its own range. With one thread (or little
/// work) it runs inline, so single-threaded results never depend on scheduling.
@inline(__always)
func parallelFor(_ count: Int, threads: Int, minimumPerThread: Int = 1, _ body: (Range<Int>) -> Void) {
    let chunks = min(max(threads, 1), max(1, count / max(minimumPerThread, 1)))
    if chunks <= 1 || count <= 1 {
        if count > 0 { body(0..<count) }
        return
    }
    DispatchQueue.concurrentPerform(iterations: chunks) { c in
        let lo = count * c / chunks
        let hi = count * (c + 1) / chunks
        if lo < hi { body(lo..<hi) }
    }
}

import CKernels
import Foundation
import Testing

@testable import TFLiteRuntime

/// The thread pool (`omk_pool`) and `parallelFor`'s split: every index runs exactly once, jobs
/// of any size follow each other without mixing, pools come and go without hanging. Run under
/// ThreadSanitizer by `scripts/tsan-runtime`, these also show the pool is free of data races.
struct ThreadPoolTests {
    /// Per-index run counts of one job; written without atomics, so an index run twice at once
    /// is a race ThreadSanitizer reports, and one run twice in turn is a count of 2.
    final class Counts {
        let runs: UnsafeMutablePointer<Int>
        let capacity: Int
        init(capacity: Int) {
            self.capacity = capacity
            runs = .allocate(capacity: capacity)
            runs.initialize(repeating: 0, count: capacity)
        }
        deinit { runs.deallocate() }
        func reset(_ count: Int) { runs.update(repeating: 0, count: count) }
        func allOnce(_ count: Int) -> Bool { (0..<count).allSatisfy { runs[$0] == 1 } }
    }

    /// Job sizes from a fixed pseudo-random sequence: mostly tiny (where a late worker meets the
    /// next job), some larger.
    static func sizes(_ n: Int, seed: UInt64) -> [Int] {
        var state = seed
        return (0..<n).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let r = Int(state >> 33)
            return r % 8 == 0 ? 1 + r % 2000 : 1 + r % 5
        }
    }

    static let countTask: omk_task_fn = { context, index in
        context!.assumingMemoryBound(to: Int.self)[index] += 1
    }

    @Test(arguments: [2, 3, 4])
    func backToBackJobsRunEveryIndexOnce(threads: Int) {
        guard let pool = omk_pool_create(threads) else {
            Issue.record("no pool")
            return
        }
        defer { omk_pool_destroy(pool) }
        let sizes = Self.sizes(3000, seed: UInt64(threads))
        let counts = Counts(capacity: sizes.max()!)
        var wrong = 0
        for size in sizes {
            counts.reset(size)
            #expect(omk_pool_run(pool, Self.countTask, counts.runs, size) == 1)
            if !counts.allOnce(size) { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) of \(sizes.count) jobs ran some index other than once")
    }

    /// A worker that takes an index and then cannot go on (here: it waits for every other index)
    /// must not hold up the rest of its share: the caller takes it from the end. With a static
    /// split this job would never finish (the test gives up after a minute and fails instead).
    @Test(arguments: [2, 3])
    func theCallerTakesTheSharesOfAStuckWorker(threads: Int) throws {
        final class Job {
            let count = 16
            let caller = pthread_self()
            let finished = UnsafeMutablePointer<Int>.allocate(capacity: 16)
            let lock = NSCondition()
            var completed = 0
            var gaveUp = false
            init() { finished.initialize(repeating: 0, count: count) }
            deinit { finished.deallocate() }
        }
        let job = Job()
        guard let pool = omk_pool_create(threads) else {
            Issue.record("no pool")
            return
        }
        defer { omk_pool_destroy(pool) }
        let context = Unmanaged.passUnretained(job).toOpaque()
        #expect(omk_pool_run(pool, { context, index in
            let job = Unmanaged<Job>.fromOpaque(context!).takeUnretainedValue()
            job.lock.lock()
            defer { job.lock.unlock() }
            if pthread_equal(pthread_self(), job.caller) == 0 {
                // A worker: wait until every index but the ones workers hold is done.
                let deadline = Date().addingTimeInterval(60)
                while job.completed < job.count - (job.count / 4) && !job.gaveUp {
                    if !job.lock.wait(until: deadline) { job.gaveUp = true }
                }
            }
            job.finished[Int(index)] += 1
            job.completed += 1
            job.lock.broadcast()
        }, context, job.count) == 1)
        #expect(!job.gaveUp, "the caller did not take the stuck worker's other indices")
        #expect((0..<job.count).allSatisfy { job.finished[$0] == 1 })
    }

    @Test func parallelForCoversEveryIndexOnceOnThePool() throws {
        let pool = try #require(ThreadPool(threads: 2))
        let sizes = Self.sizes(1000, seed: 7)
        let counts = Counts(capacity: sizes.max()!)
        let runs = counts.runs
        var wrong = 0
        ThreadPool.with(pool) {
            for (n, size) in sizes.enumerated() {
                counts.reset(size)
                parallelFor(size, threads: 2, minimumPerThread: 1 + n % 3) { range in
                    for i in range { runs[i] += 1 }
                }
                if !counts.allOnce(size) { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    @Test func parallelForWithoutAPoolUsesDispatch() {
        #expect(omk_pool_current() == nil)
        let counts = Counts(capacity: 5000)
        let runs = counts.runs
        parallelFor(5000, threads: 2) { range in
            for i in range { runs[i] += 1 }
        }
        #expect(counts.allOnce(5000))
    }

    @Test func currentPoolIsRestored() throws {
        let outer = try #require(ThreadPool(threads: 2)), inner = try #require(ThreadPool(threads: 3))
        ThreadPool.with(outer) {
            ThreadPool.with(inner) { #expect(omk_pool_current() == inner.pool) }
            #expect(omk_pool_current() == outer.pool)
        }
        #expect(omk_pool_current() == nil)
    }

    @Test func anInterpreterOwnsAPoolOfItsThreadCount() throws {
        let path = TestPaths.opFixtures.appendingPathComponent("conv2d/model.tflite").path
        for threads in [1, 2, 3] {
            let interpreter = try Interpreter(modelPath: path, options: .init(threadCount: threads))
            #expect(interpreter.context.pool?.threads == (threads == 1 ? nil : threads))
            try interpreter.allocateTensors()
            try interpreter.invoke()
            #expect(omk_pool_current() == nil, "invoke restores the thread's pool")
        }
    }

    @Test func poolsComeAndGoWithoutHanging() {
        let counts = Counts(capacity: 64)
        for round in 0..<300 {
            guard let pool = ThreadPool(threads: 2 + round % 3) else {
                Issue.record("no pool in round \(round)")
                return
            }
            #expect(pool.threads == 2 + round % 3)
            // Some pools are destroyed before their workers ever saw a job, some right after one.
            if round % 2 == 0 {
                counts.reset(64)
                #expect(omk_pool_run(pool.pool, Self.countTask, counts.runs, 64) == 1)
                #expect(counts.allOnce(64))
            }
        }
    }

    @Test func busyPoolDeclinesASecondJob() throws {
        // A task that starts a job on its own pool is refused (0): the caller runs it itself.
        let pool = try #require(ThreadPool(threads: 2))
        final class Box { var nested: [Int32] = []; let pool: OpaquePointer; init(_ p: OpaquePointer) { pool = p } }
        let box = Box(pool.pool)
        let unmanaged = Unmanaged.passUnretained(box).toOpaque()
        #expect(omk_pool_run(pool.pool, { context, _ in
            let box = Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue()
            box.nested.append(omk_pool_run(box.pool, { _, _ in }, nil, 4))
        }, unmanaged, 1) == 1)
        #expect(box.nested == [0])
    }

    @Test(.enabled(if: ParallelSplit.stressTasks == nil, "OPENMLKIT_PARALLEL_TASKS changes the split"))
    func splitCutsLargeWorkIntoSeveralRangesPerThread() {
        #expect(ParallelSplit(count: 1, threads: 2, minimumPerThread: 1).tasks == 1)
        #expect(ParallelSplit(count: 100, threads: 1, minimumPerThread: 1).tasks == 1)
        // Less than the minimum per thread for two threads: inline.
        #expect(ParallelSplit(count: 100, threads: 2, minimumPerThread: 60).tasks == 1)
        #expect(ParallelSplit(count: 3, threads: 2, minimumPerThread: 1).tasks == 3)
        let large = ParallelSplit(count: 10_000, threads: 2, minimumPerThread: 1).tasks
        #expect(large > 2 && large <= 10_000)
    }
}

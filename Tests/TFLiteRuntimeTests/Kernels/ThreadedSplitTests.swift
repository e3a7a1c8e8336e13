import Testing

@testable import TFLiteRuntime

private typealias KernelHarness = ElementwiseTestKit.Harness
private typealias TestRandom = ElementwiseTestKit.Random

/// The float elementwise and activation kernels split from 8192 elements per thread on the
/// interpreter's thread pool (each thread starting on its own share and taking the rest of the
/// others'). Wherever the ranges start and end, every output must have the same bits as at one
/// thread. Sizes sit on both sides of the thresholds: below (inline), just above twice the minimum,
/// and MediaPipe face-detector shapes (12×12×96, 16×16×48, 32×32×32).
@Suite struct ThreadedSplitTests {
    static let sizes = [100, 8191, 16_385, 12 * 12 * 96, 16 * 16 * 48, 32 * 32 * 32]

    /// Runs `body` with a pool of `threads` threads set as the current one (none for 1 thread).
    static func onPool<T>(_ threads: Int, _ body: () throws -> T) throws -> T {
        if threads == 1 { return try body() }
        let pool = try #require(ThreadPool(threads: threads))
        return try ThreadPool.with(pool, body)
    }

    static func bits(_ tensor: RuntimeTensor) -> [UInt32] {
        tensor.elementwiseTestValues(Float.self).map(\.bitPattern)
    }

    @Test func addWithFusedReluHasTheSameBitsAtOneTwoAndThreeThreads() throws {
        var random = TestRandom(seed: 11)
        for count in Self.sizes {
            let a = random.floats(count, -10...10), b = random.floats(count, -10...10)
            var results: [[UInt32]] = []
            for threads in [1, 2, 3] {
                let out = try Self.onPool(threads) {
                    let h = KernelHarness()
                    return try h.run1(
                        .add, [try h.floats(a, [count]), try h.floats(b, [count])],
                        options: [.byte(0, FusedActivation.relu.rawValue)], threads: threads)
                }
                results.append(Self.bits(out))
            }
            #expect(results[1] == results[0] && results[2] == results[0], "ADD of \(count)")
            #expect(results[0] == zip(a, b).map { Swift.max($0 + $1, 0).bitPattern }, "ADD of \(count)")
        }
    }

    @Test func activationsHaveTheSameBitsAtOneTwoAndThreeThreads() throws {
        var random = TestRandom(seed: 12)
        for code in [BuiltinOperator.relu, .relu6, .hardSwish, .logistic] {
            for count in Self.sizes {
                let x = random.floats(count, -8...8)
                var results: [[UInt32]] = []
                for threads in [1, 2, 3] {
                    let out = try Self.onPool(threads) {
                        let h = KernelHarness()
                        return try h.run1(code, [try h.floats(x, [count])], threads: threads)
                    }
                    results.append(Self.bits(out))
                }
                #expect(results[1] == results[0] && results[2] == results[0], "\(code.name) of \(count)")
            }
        }
    }

    @Test func preluPerChannelHasTheSameBitsAtOneTwoAndThreeThreads() throws {
        var random = TestRandom(seed: 13)
        for (rows, channels) in [(4, 24), (12 * 12, 96), (32 * 32, 32)] {
            let x = random.floats(rows * channels), alpha = random.floats(channels, 0...1)
            var results: [[UInt32]] = []
            for threads in [1, 2, 3] {
                let out = try Self.onPool(threads) {
                    let h = KernelHarness()
                    return try h.run1(
                        .prelu, [try h.floats(x, [1, rows, channels]), try h.floats(alpha, [channels], constant: true)],
                        threads: threads)
                }
                results.append(Self.bits(out))
            }
            #expect(results[1] == results[0] && results[2] == results[0], "PRELU \(rows)×\(channels)")
        }
    }
}

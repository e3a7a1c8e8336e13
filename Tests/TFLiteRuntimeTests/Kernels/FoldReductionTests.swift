import Testing

@testable import TFLiteRuntime

private typealias KernelHarness = ElementwiseTestKit.Harness
private typealias TestRandom = ElementwiseTestKit.Random

/// REDUCE_MIN, REDUCE_PROD (integers), REDUCE_ANY and REDUCE_ALL against a naive fold in memory
/// order, on shapes that take every path of the reduction layout (including the threaded splits).
@Suite struct FoldReductionTests {
    static let cases: [([Int], [Int])] = ReductionKernelTests.cases

    /// Folds `x` over `axes` one element at a time, in memory order, from each output's first element.
    static func naive<T>(
        _ x: [T], shape: [Int], axes: [Int], empty: T, _ combine: (T, T) -> T
    ) -> [T] {
        let rank = shape.count
        var reduced = [Bool](repeating: false, count: rank)
        for a in axes where rank > 0 { reduced[a < 0 ? a + rank : a] = true }
        let outCount = (0..<rank).filter { !reduced[$0] }.map { shape[$0] }.reduce(1, *)
        var out = [T?](repeating: nil, count: outCount)
        var coords = [Int](repeating: 0, count: rank)
        for v in x {
            var o = 0
            for d in 0..<rank where !reduced[d] { o = o * shape[d] + coords[d] }
            out[o] = out[o].map { combine($0, v) } ?? v
            var d = rank - 1
            while d >= 0 {
                coords[d] += 1
                if coords[d] < shape[d] { break }
                coords[d] = 0
                d -= 1
            }
        }
        return out.map { $0 ?? empty }
    }

    @Test(arguments: [1, 3])
    func matchesNaiveFold(threads: Int) throws {
        var random = TestRandom(seed: 11)
        for (shape, axes) in Self.cases {
            let count = shape.reduce(1, *)
            let h = KernelHarness()
            let axis = try h.tensor(axes.map(Int32.init), shape: [axes.count], type: .int32, constant: true)
            let label = "\(shape) \(axes) threads=\(threads)"

            let f = random.floats(count, -5...5)
            let minimum = try h.run1(
                .reduceMin, [try h.floats(f, shape), axis], options: [.bool(0, false)], threads: threads)
            #expect(
                minimum.elementwiseTestValues(Float.self)
                    == Self.naive(f, shape: shape, axes: axes, empty: .greatestFiniteMagnitude) { $0 < $1 ? $0 : $1 },
                "REDUCE_MIN \(label)")

            let n: [Int32] = random.ints(count, -3...3, Int32.self)
            let xi = try h.tensor(n, shape: shape, type: .int32)
            let product = try h.run1(.reduceProd, [xi, axis], options: [.bool(0, true)], threads: threads)
            #expect(
                product.elementwiseTestValues(Int32.self)
                    == Self.naive(n, shape: shape, axes: axes, empty: 1) { $0 &* $1 },
                "REDUCE_PROD \(label)")

            // Mostly true in large inputs, so REDUCE_ALL is not trivially false there.
            let b: [UInt8] = random.ints(count, 0...(count > 1000 ? 3000 : 1), Int.self).map { $0 == 0 ? 0 : 1 }
            let xb = try h.tensor(b, shape: shape, type: .bool)
            let any = try h.run1(.reduceAny, [xb, axis], options: [.bool(0, false)], threads: threads)
            #expect(
                any.elementwiseTestValues(UInt8.self) == Self.naive(b, shape: shape, axes: axes, empty: 0) { $0 | $1 },
                "REDUCE_ANY \(label)")
            let all = try h.run1(.reduceAll, [xb, axis], options: [.bool(0, false)], threads: threads)
            #expect(
                all.elementwiseTestValues(UInt8.self) == Self.naive(b, shape: shape, axes: axes, empty: 1) { $0 & $1 },
                "REDUCE_ALL \(label)")
        }
    }
}

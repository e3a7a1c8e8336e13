import Testing

@testable import TFLiteRuntime

private typealias KernelHarness = ElementwiseTestKit.Harness
private typealias TestRandom = ElementwiseTestKit.Random
private typealias TestOption = ElementwiseTestKit.Option

/// The reduction kernels against the scalar reference, plus hand-checked values and bad models.
@Suite struct ReductionKernelTests {
    static let operations: [(BuiltinOperator, ReduceKernel.Operation)] = [
        (.mean, .mean), (.sum, .sum), (.reduceMax, .max),
    ]

    /// Shapes with axis lists: inner, outer, middle and alternating axes, negative and repeated
    /// axes, all axes, no axes, size-1 and empty dimensions.
    static let cases: [([Int], [Int])] = [
        ([2, 3, 4], [2]), ([2, 3, 4], [0]), ([2, 3, 4], [1]), ([2, 3, 4], [-1, 0]), ([2, 3, 4], [0, 1, 2]),
        ([2, 3, 4], [1, 1, -2]), ([2, 3, 4], []), ([2, 1, 3, 1, 5], [1, 3]), ([2, 5, 3, 4, 2, 3], [1, 3, 5]),
        ([2, 5, 3, 4, 2, 3], [0, 2, 4]), ([1, 7, 7, 16], [1, 2]), ([6], [0]), ([], [0]), ([3, 0, 2], [1]),
        ([3, 0, 2], [0]), ([40_000], [0]), ([128, 600], [0]), ([600, 128], [1]), ([4, 300, 64], [1]),
    ]

    @Test(arguments: [1, 3])
    func floatMatchesReference(threads: Int) throws {
        var random = TestRandom(seed: 6)
        for (code, op) in Self.operations {
            for (shape, axes) in Self.cases {
                for keepDims in [false, true] {
                    let x = random.floats(shape.reduce(1, *), -5...5)
                    let h = KernelHarness()
                    let axisType: TensorType = axes.count % 2 == 0 ? .int32 : .int64
                    let axis =
                        axisType == .int32
                        ? try h.tensor(axes.map(Int32.init), shape: [axes.count], type: .int32, constant: true)
                        : try h.tensor(axes.map(Int64.init), shape: [axes.count], type: .int64, constant: true)
                    let out = try h.run1(
                        code, [try h.floats(x, shape), axis], options: [.bool(0, keepDims)], threads: threads)
                    let expected = try #require(
                        ReferenceReduction.float(op, x, shape: shape, axes: axes, keepDims: keepDims))
                    #expect(out.shape == expected.shape, "\(code.name) \(shape) \(axes) keep=\(keepDims)")
                    // Sums of up to 40000 values: float accumulation against a double reference.
                    let bad = ElementwiseTestKit.firstMismatch(
                        out.elementwiseTestValues(Float.self), expected.values, relative: 1e-4, absolute: 2e-3)
                    #expect(bad == nil, "\(code.name) \(shape) \(axes) keep=\(keepDims) at \(bad ?? 0)")
                }
            }
        }
    }

    /// Splitting a kept innermost dimension over threads (in blocks that start at a cache line of the
    /// output) gives every output the same sum, bit for bit, as one thread.
    @Test func threadedSplitOfKeptChannelsIsExact() throws {
        var random = TestRandom(seed: 9)
        for shape in [[1, 9, 4, 200], [1, 40, 40, 120], [3, 70], [1, 2, 2, 1000]] {
            let x = random.floats(shape.reduce(1, *), -5...5)
            let axes = Array(0..<(shape.count - 1)).map(Int32.init)
            var results: [[Float]] = []
            for threads in [1, 2, 3] {
                let h = KernelHarness()
                let axis = try h.tensor(axes, shape: [axes.count], type: .int32, constant: true)
                let out = try h.run1(.sum, [try h.floats(x, shape), axis], options: [.bool(0, false)], threads: threads)
                results.append(out.elementwiseTestValues(Float.self))
            }
            #expect(results[1].map(\.bitPattern) == results[0].map(\.bitPattern), "\(shape) at 2 threads")
            #expect(results[2].map(\.bitPattern) == results[0].map(\.bitPattern), "\(shape) at 3 threads")
        }
    }

    @Test(arguments: [1, 3])
    func integersMatchReference(threads: Int) throws {
        var random = TestRandom(seed: 7)
        for (code, op) in Self.operations {
            for (shape, axes) in Self.cases {
                let count = shape.reduce(1, *)
                let keepDims = axes.count % 2 == 1
                let h = KernelHarness()
                let axis = try h.tensor(axes.map(Int32.init), shape: [axes.count], type: .int32, constant: true)
                let x32: [Int32] = random.ints(count, Int(Int32.min)...Int(Int32.max), Int32.self)
                let out32 = try h.run1(
                    code, [try h.tensor(x32, shape: shape, type: .int32), axis], options: [.bool(0, keepDims)],
                    threads: threads)
                let e32 = try #require(
                    ReferenceReduction.integer(op, x32, shape: shape, axes: axes, keepDims: keepDims))
                #expect(out32.shape == e32.shape && out32.type == .int32)
                #expect(out32.elementwiseTestValues(Int32.self) == e32.values, "\(code.name) int32 \(shape) \(axes)")
                let x64: [Int64] = random.ints(count, -(1 << 40)...(1 << 40), Int64.self)
                let out64 = try h.run1(
                    code, [try h.tensor(x64, shape: shape, type: .int64), axis], options: [.bool(0, keepDims)],
                    threads: threads)
                let e64 = try #require(
                    ReferenceReduction.integer(op, x64, shape: shape, axes: axes, keepDims: keepDims))
                #expect(out64.elementwiseTestValues(Int64.self) == e64.values, "\(code.name) int64 \(shape) \(axes)")
            }
        }
    }

    @Test func handCheckedValues() throws {
        let h = KernelHarness()
        let axis0 = try h.tensor([0] as [Int32], shape: [1], type: .int32, constant: true)
        // Integer MEAN truncates toward zero; SUM wraps.
        let m = try h.run1(.mean, [try h.tensor([-7, 0, 0, 0] as [Int32], shape: [4], type: .int32), axis0])
        #expect(m.elementwiseTestValues(Int32.self) == [-1] && m.shape == [])
        let s = try h.run1(.sum, [try h.tensor([Int32.max, 5] as [Int32], shape: [2], type: .int32), axis0])
        #expect(s.elementwiseTestValues(Int32.self) == [-2_147_483_644])
        // Empty reductions: MEAN is NaN, REDUCE_MAX the lowest float, SUM zero.
        let empty = try h.floats([], [2, 0])
        let axis1 = try h.tensor([1] as [Int64], shape: [], type: .int64, constant: true)
        #expect(try h.run1(.mean, [empty, axis1]).elementwiseTestValues(Float.self).allSatisfy(\.isNaN))
        #expect(
            try h.run1(.reduceMax, [empty, axis1]).elementwiseTestValues(Float.self) == [
                -.greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            ])
        #expect(try h.run1(.sum, [empty, axis1]).elementwiseTestValues(Float.self) == [0, 0])
        // A row of -inf has maximum -inf (not the lowest finite value); negative zeros sum to -0.
        let infinities = try h.floats([-.infinity, -.infinity, -0.0, -0.0], [2, 2])
        #expect(try h.run1(.reduceMax, [infinities, axis1]).elementwiseTestValues(Float.self)[0] == -.infinity)
        #expect(try h.run1(.sum, [infinities, axis1]).elementwiseTestValues(Float.self)[1].sign == .minus)
        // Global average pooling shape: [1, 2, 2, 2] over [1, 2] keeping dims.
        let x = try h.floats([1, 10, 2, 20, 3, 30, 4, 40], [1, 2, 2, 2])
        let axes = try h.tensor([1, 2] as [Int32], shape: [2], type: .int32, constant: true)
        let pooled = try h.run1(.mean, [x, axes], options: [.bool(0, true)])
        #expect(pooled.shape == [1, 1, 1, 2] && pooled.elementwiseTestValues(Float.self) == [2.5, 25])
    }

    @Test func axisKnownOnlyAtRunTime() throws {
        let h = KernelHarness()
        let x = try h.floats([1, 2, 3, 4, 5, 6], [2, 3])
        let axis = try h.tensor([-1] as [Int32], shape: [1], type: .int32)  // not constant
        let out = try h.run1(.sum, [x, axis])
        #expect(out.shape == [2] && out.elementwiseTestValues(Float.self) == [6, 15])
        let arg = try h.run1(
            .argMax, [x, try h.tensor([0] as [Int32], shape: [1], type: .int32)], options: [.byte(0, 2)])
        #expect(arg.shape == [3] && arg.elementwiseTestValues(Int32.self) == [1, 1, 1])
    }

    @Test func badAxesThrow() throws {
        let h = KernelHarness()
        let x = try h.floats([1, 2, 3, 4, 5, 6], [2, 3])
        for bad in [[2], [-3], [0, 5]] {
            let axis = try h.tensor(bad.map(Int32.init), shape: [bad.count], type: .int32, constant: true)
            #expect(throws: RuntimeError.self) { try h.run1(.mean, [x, axis]) }
            let dynamicAxis = try h.tensor(bad.map(Int32.init), shape: [bad.count], type: .int32)
            #expect(throws: RuntimeError.self) { try h.run1(.sum, [x, dynamicAxis]) }
        }
        let floatAxis = try h.floats([0], [1], constant: true)
        #expect(throws: RuntimeError.self) { try h.run1(.reduceMax, [x, floatAxis]) }
        let q = try h.tensor([1] as [UInt8], shape: [1], type: .uint8)
        #expect(throws: RuntimeError.self) {
            try h.run1(.mean, [q, try h.tensor([0] as [Int32], shape: [1], type: .int32, constant: true)])
        }
        // ARG_MAX: axis out of range, two axis values, empty axis, bad output type.
        let i32 = { (v: [Int32]) in try h.tensor(v, shape: [v.count], type: .int32, constant: true) }
        #expect(throws: RuntimeError.self) { try h.run1(.argMax, [x, try i32([2])], options: [.byte(0, 2)]) }
        #expect(throws: RuntimeError.self) { try h.run1(.argMax, [x, try i32([0, 1])], options: [.byte(0, 2)]) }
        #expect(throws: RuntimeError.self) {
            try h.run1(.argMin, [try h.floats([], [2, 0]), try i32([1])], options: [.byte(0, 4)])
        }
        #expect(throws: RuntimeError.self) { try h.run1(.argMin, [x, try i32([1])], options: [.byte(0, 0)]) }
        #expect(throws: RuntimeError.self) { try h.run1(.argMin, [x, try i32([1])]) }
    }

    @Test(arguments: [1, 3])
    func argMinMaxMatchesReference(threads: Int) throws {
        var random = TestRandom(seed: 8)
        let cases: [([Int], Int)] = [
            ([7], 0), ([3, 5], 1), ([3, 5], 0), ([3, 5], -1), ([2, 3, 4, 5], 2), ([2, 3, 4, 5], -4), ([1, 1000], 1),
            ([300, 200], 0), ([200, 300], 1), ([2, 100, 400], 1),
        ]
        for (shape, axis) in cases {
            let count = shape.reduce(1, *)
            // Few distinct values, so ties are common and the lowest index must win.
            let floats = random.ints(count, -3...3, Int32.self).map(Float.init)
            let ints: [Int32] = random.ints(count, -3...3, Int32.self)
            let bytes: [UInt8] = random.ints(count, 0...4, UInt8.self)
            for isMax in [true, false] {
                let code: BuiltinOperator = isMax ? .argMax : .argMin
                let h = KernelHarness()
                let axisTensor =
                    axis % 2 == 0
                    ? try h.tensor([Int32(axis)], shape: [1], type: .int32, constant: true)
                    : try h.tensor([Int64(axis)], shape: [], type: .int64, constant: true)
                let f = try h.run1(
                    code, [try h.floats(floats, shape), axisTensor], options: [.byte(0, 4)], threads: threads)
                let ef = try #require(ReferenceReduction.argMinMax(floats, shape: shape, axis: axis, isMax: isMax))
                #expect(f.shape == ef.shape && f.type == .int64)
                #expect(
                    f.elementwiseTestValues(Int64.self).map(Int.init) == ef.values,
                    "\(code.name) float \(shape) \(axis)")
                let i = try h.run1(
                    code, [try h.tensor(ints, shape: shape, type: .int32), axisTensor], options: [.byte(0, 2)],
                    threads: threads)
                let ei = try #require(ReferenceReduction.argMinMax(ints, shape: shape, axis: axis, isMax: isMax))
                #expect(
                    i.elementwiseTestValues(Int32.self).map(Int.init) == ei.values,
                    "\(code.name) int32 \(shape) \(axis)")
                let b = try h.run1(
                    code, [try h.tensor(bytes, shape: shape, type: .uint8), axisTensor], options: [.byte(0, 2)],
                    threads: threads)
                let eb = try #require(ReferenceReduction.argMinMax(bytes, shape: shape, axis: axis, isMax: isMax))
                #expect(
                    b.elementwiseTestValues(Int32.self).map(Int.init) == eb.values,
                    "\(code.name) uint8 \(shape) \(axis)")
            }
        }
        // NaNs are skipped, as LiteRT does; an all-NaN row gives 0.
        let h = KernelHarness()
        let axis = try h.tensor([1] as [Int32], shape: [1], type: .int32, constant: true)
        let rows = try h.floats([.nan, 2, 1, 1, .nan, 3, .nan, .nan, .nan, -.infinity, 5, 5], [4, 3])
        #expect(
            try h.run1(.argMax, [rows, axis], options: [.byte(0, 4)]).elementwiseTestValues(Int64.self) == [1, 2, 0, 1])
        #expect(
            try h.run1(.argMin, [rows, axis], options: [.byte(0, 4)]).elementwiseTestValues(Int64.self) == [2, 0, 0, 0])
        let columns = try h.floats([.nan, 1, 2, .nan, 0, .nan], [3, 2])
        let axis0 = try h.tensor([0] as [Int32], shape: [1], type: .int32, constant: true)
        #expect(
            try h.run1(.argMax, [columns, axis0], options: [.byte(0, 2)]).elementwiseTestValues(Int32.self) == [1, 0])
    }
}

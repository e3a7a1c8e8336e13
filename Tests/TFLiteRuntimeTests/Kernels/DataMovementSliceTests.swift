import Testing

@testable import TFLiteRuntime

/// SLICE and STRIDED_SLICE: random slices against the reference and a NumPy-style oracle, LiteRT's
/// mask handling (ellipsis, new axis, shrink, offset), and errors.
struct DataMovementSliceTests {
    typealias Ref = ReferenceDataMovement

    @Test func sliceMatchesReference() throws {
        var rng = ShapeOpsRandom(seed: 21)
        for trial in 0..<60 {
            let kit = ShapeOpsTestKit()
            let shape = rng.shape(rank: rng.int(0...5))
            let begin = shape.map { rng.int(0...$0) }
            let size = zip(shape, begin).map { rng.int(0...($0 - $1)) }
            let given = zip(size, zip(shape, begin)).map { s, d in trial % 2 == 0 && s == d.0 - d.1 ? -1 : s }
            let (type, es) = rng.elementSize()
            let bytes = rng.bytes(shape.reduce(1, *) * es)
            let y = kit.output(type)
            let b: RuntimeTensor, s: RuntimeTensor
            if trial % 3 == 0 {
                b = try kit.int64s(begin.map(Int64.init), [shape.count], constant: false)
                s = try kit.int64s(given.map(Int64.init), [shape.count])
            } else {
                b = try kit.int32s(begin.map(Int32.init), [shape.count])
                s = try kit.int32s(given.map(Int32.init), [shape.count])
            }
            try kit.run(.slice, [try kit.tensor(type, shape, bytes: bytes), b, s], [y], threads: 2)
            #expect(y.shape == size)
            #expect(ShapeOpsTestKit.bytes(of: y) == Ref.slice(bytes, shape: shape, begin: begin, size: size, elementSize: es))
        }
    }

    @Test func sliceRejectsOutOfRangeBoxes() throws {
        let kit = ShapeOpsTestKit()
        let x = try kit.floats([1, 2, 3, 4], [4])
        expectShapeOpsError("out of range") { try kit.run(.slice, [x, try kit.int32s([3]), try kit.int32s([2])], [kit.output(.float32)]) }
        expectShapeOpsError("out of range") { try kit.run(.slice, [x, try kit.int32s([-1]), try kit.int32s([1])], [kit.output(.float32)]) }
        expectShapeOpsError("out of range") { try kit.run(.slice, [x, try kit.int32s([0]), try kit.int32s([-2])], [kit.output(.float32)]) }
        expectShapeOpsError("vector of 1") { try kit.run(.slice, [x, try kit.int32s([0, 0]), try kit.int32s([1, 1])], [kit.output(.float32)]) }
    }

    /// NumPy's `x[b:e:s]` per axis (nil bounds from the masks), with shrunk axes taking index `b`.
    private func numpySlice(
        shape: [Int], begin: [Int], end: [Int], strides: [Int], beginMask: Int, endMask: Int, shrinkMask: Int
    ) -> (indices: [[Int]], outputShape: [Int]) {
        var perAxis = [[Int]](), outShape = [Int]()
        for d in shape.indices {
            let n = shape[d]
            guard d < begin.count else {
                perAxis.append(Array(0..<n))
                outShape.append(n)
                continue
            }
            if shrinkMask & (1 << d) != 0 {
                perAxis.append([begin[d] < 0 ? begin[d] + n : begin[d]])
                continue
            }
            let s = strides[d]
            var lo = beginMask & (1 << d) != 0 ? (s > 0 ? 0 : n - 1) : begin[d]
            var hi = endMask & (1 << d) != 0 ? (s > 0 ? n : -1) : end[d]
            if beginMask & (1 << d) == 0 {
                if lo < 0 { lo += n }
                lo = s > 0 ? min(max(lo, 0), n) : min(max(lo, -1), n - 1)
            }
            if endMask & (1 << d) == 0 {
                if hi < 0 { hi += n }
                hi = s > 0 ? min(max(hi, 0), n) : min(max(hi, -1), n - 1)
            }
            var picks = [Int]()
            var i = lo
            while s > 0 ? i < hi : i > hi {
                picks.append(i)
                i += s
            }
            perAxis.append(picks)
            outShape.append(picks.count)
        }
        return (perAxis, outShape)
    }

    @Test func stridedSliceMatchesNumPySemantics() throws {
        var rng = ShapeOpsRandom(seed: 22)
        for trial in 0..<300 {
            let kit = ShapeOpsTestKit()
            let shape = rng.shape(rank: rng.int(1...4), maxDim: 6)
            let given = rng.int(1...shape.count)
            var begin = [Int](), end = [Int](), strides = [Int](), shrink = 0
            for d in 0..<given {
                let n = shape[d]
                begin.append(rng.int(-n - 2...n + 2))
                end.append(rng.int(-n - 2...n + 2))
                strides.append([1, 2, 3, -1, -2][rng.int(0...4)])
                if rng.int(0...5) == 0 && begin[d] >= -n && begin[d] < n {
                    shrink |= 1 << d
                    strides[d] = 1
                }
            }
            let beginMask = rng.int(0...15) & ~shrink, endMask = rng.int(0...15) & ~shrink
            let (type, es) = rng.elementSize()
            let bytes = rng.bytes(shape.reduce(1, *) * es)
            let y = kit.output(type)
            try kit.run(
                .stridedSlice,
                [try kit.tensor(type, shape, bytes: bytes), try kit.int32s(begin.map(Int32.init)),
                 try kit.int32s(end.map(Int32.init), constant: trial % 4 != 0), try kit.int32s(strides.map(Int32.init))],
                [y],
                options: [0: .int32(Int32(beginMask)), 1: .int32(Int32(endMask)), 4: .int32(Int32(shrink))])
            let oracle = numpySlice(
                shape: shape, begin: begin, end: end, strides: strides, beginMask: beginMask, endMask: endMask,
                shrinkMask: shrink)
            #expect(y.shape == oracle.outputShape, "shape \(shape) begin \(begin) end \(end) strides \(strides)")
            var expected = [UInt8]()
            let picksShape = oracle.indices.map(\.count)
            for o in 0..<picksShape.reduce(1, *) {
                let c = Ref.coordinates(o, picksShape)
                let source = Ref.flat(c.indices.map { oracle.indices[$0][c[$0]] }, shape)
                expected += bytes[(source * es)..<((source + 1) * es)]
            }
            #expect(ShapeOpsTestKit.bytes(of: y) == expected, "shape \(shape) begin \(begin) end \(end) strides \(strides)")
        }
    }

    /// Runs a float strided slice over `0..<count` and returns (shape, values).
    private func stridedSlice(
        _ shape: [Int], begin: [Int32], end: [Int32], strides: [Int32], masks: [Int: Int32], offset: Bool = false
    ) throws -> ([Int], [Float]) {
        let kit = ShapeOpsTestKit()
        let y = kit.output(.float32)
        var options = masks.mapValues { ShapeOpsTestKit.OptionField.int32($0) }
        if offset { options[5] = .bool(true) }
        try kit.run(
            .stridedSlice,
            [try kit.floats((0..<shape.reduce(1, *)).map(Float.init), shape), try kit.int32s(begin), try kit.int32s(end),
             try kit.int32s(strides)],
            [y], options: options)
        return (y.shape, ShapeOpsTestKit.values(y, as: Float.self))
    }

    @Test func stridedSliceEllipsisAndNewAxis() throws {
        // x[..., 1] on [2, 3, 4]: ellipsis (bit 0) covers the first two axes, index 1 shrinks.
        let a = try stridedSlice([2, 3, 4], begin: [0, 1], end: [0, 2], strides: [1, 1], masks: [2: 1, 4: 2])
        #expect(a.0 == [2, 3])
        #expect(a.1 == [1, 5, 9, 13, 17, 21])
        // x[:, None, 1:3] on [2, 4]: a new axis in the middle.
        let b = try stridedSlice([2, 4], begin: [0, 0, 1], end: [0, 0, 3], strides: [1, 1, 1], masks: [0: 1, 1: 1, 3: 2])
        #expect(b.0 == [2, 1, 2])
        #expect(b.1 == [1, 2, 5, 6])
        // x[None, ..., ::-1] on [2, 3].
        let c = try stridedSlice([2, 3], begin: [0, 0, 0], end: [0, 0, 0], strides: [1, 1, -1], masks: [2: 2, 3: 1, 0: 4, 1: 4])
        #expect(c.0 == [1, 2, 3])
        #expect(c.1 == [2, 1, 0, 5, 4, 3])
    }

    @Test func stridedSliceOffsetSizesFromEnd() throws {
        // With offset, `end` holds sizes: x[1:1+2, 0:0+3] on [3, 4].
        let r = try stridedSlice([3, 4], begin: [1, 0], end: [2, 3], strides: [1, 1], masks: [:], offset: true)
        #expect(r.0 == [2, 3])
        #expect(r.1 == [4, 5, 6, 8, 9, 10])
        expectShapeOpsError("does not fill") {
            _ = try stridedSlice([3, 4], begin: [2, 0], end: [2, 3], strides: [1, 1], masks: [:], offset: true)
        }
    }

    @Test func stridedSliceErrors() throws {
        expectShapeOpsError("non-zero") { _ = try stridedSlice([4], begin: [0], end: [4], strides: [0], masks: [:]) }
        expectShapeOpsError("out of range") { _ = try stridedSlice([4], begin: [4], end: [5], strides: [1], masks: [4: 1]) }
        expectShapeOpsError("as long as begin") { _ = try stridedSlice([4], begin: [0], end: [4, 1], strides: [1], masks: [:]) }
    }

    @Test func stridedSliceWithRunTimeBeginIsDynamic() throws {
        let kit = ShapeOpsTestKit()
        let y = kit.output(.float32)
        let node = try kit.run(
            .stridedSlice,
            [try kit.floats([0, 1, 2, 3, 4, 5], [6]), try kit.int32s([5], constant: false), try kit.int32s([0]),
             try kit.int32s([-2])],
            [y])
        #expect(node.hasDynamicOutputs)
        #expect(ShapeOpsTestKit.values(y, as: Float.self) == [5, 3, 1])
    }
}

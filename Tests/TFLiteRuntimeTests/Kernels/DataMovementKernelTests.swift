import Testing

@testable import TFLiteRuntime

/// CONCATENATION, PACK, UNPACK, SPLIT, SPLIT_V, TRANSPOSE, GATHER and GATHER_ND: fast kernels
/// against the element-at-a-time reference on random tensors of several element sizes, plus
/// hand-checked cases and errors.
struct DataMovementKernelTests {
    typealias Ref = ReferenceDataMovement

    @Test func transposeMatchesReference() throws {
        var rng = ShapeOpsRandom(seed: 11)
        for trial in 0..<60 {
            let kit = ShapeOpsTestKit()
            let rank = rng.int(0...6)
            let shape = rng.shape(rank: rank, maxDim: rank > 4 ? 4 : 7)
            var perm = Array(0..<rank)
            perm.shuffle(using: &rng)
            let (type, es) = rng.elementSize()
            let bytes = rng.bytes(shape.reduce(1, *) * es)
            let y = kit.output(type)
            let permValues = perm.enumerated().map { i, p in Int32(trial % 2 == 0 || p == 0 ? p : p - rank) }
            try kit.run(
                .transpose, [try kit.tensor(type, shape, bytes: bytes), try kit.int32s(permValues, [rank])], [y],
                threads: 1 + trial % 3)
            #expect(y.shape == perm.map { shape[$0] })
            #expect(ShapeOpsTestKit.bytes(of: y) == Ref.transpose(bytes, shape: shape, perm: perm, elementSize: es))
        }
    }

    @Test func transposeOfALargeImageUsesThreadsCorrectly() throws {
        let kit = ShapeOpsTestKit()
        var rng = ShapeOpsRandom(seed: 5)
        let shape = [2, 3, 64, 97]
        let bytes = rng.bytes(shape.reduce(1, *) * 4)
        let y = kit.output(.float32)
        try kit.run(.transpose, [try kit.tensor(.float32, shape, bytes: bytes), try kit.int32s([0, 2, 3, 1])], [y], threads: 4)
        #expect(ShapeOpsTestKit.bytes(of: y) == Ref.transpose(bytes, shape: shape, perm: [0, 2, 3, 1], elementSize: 4))
        // Matrix transposes run in tiles, including ragged edge tiles.
        for (shape, perm, es) in [([37, 50], [1, 0], 4), ([3, 40, 33], [0, 2, 1], 2), ([17, 5, 16], [2, 1, 0], 8)] {
            let data = rng.bytes(shape.reduce(1, *) * es)
            let type: TensorType = es == 4 ? .float32 : es == 2 ? .int16 : .int64
            let out = kit.output(type)
            try kit.run(.transpose, [try kit.tensor(type, shape, bytes: data), try kit.int32s(perm.map(Int32.init))], [out], threads: 2)
            #expect(ShapeOpsTestKit.bytes(of: out) == Ref.transpose(data, shape: shape, perm: perm, elementSize: es))
        }
    }

    @Test func transposeRejectsBadPermutations() throws {
        let kit = ShapeOpsTestKit()
        let x = try kit.floats([1, 2, 3, 4, 5, 6], [2, 3])
        expectShapeOpsError("not a permutation") { try kit.run(.transpose, [x, try kit.int32s([0, 0])], [kit.output(.float32)]) }
        expectShapeOpsError("not a permutation") { try kit.run(.transpose, [x, try kit.int32s([0, 2])], [kit.output(.float32)]) }
        expectShapeOpsError("vector of 2") { try kit.run(.transpose, [x, try kit.int32s([1, 0, 2])], [kit.output(.float32)]) }
    }

    @Test func concatenationMatchesReference() throws {
        var rng = ShapeOpsRandom(seed: 12)
        for trial in 0..<50 {
            let kit = ShapeOpsTestKit()
            let rank = rng.int(1...5)
            let base = rng.shape(rank: rank)
            let axis = rng.int(0...(rank - 1))
            let (type, es) = rng.elementSize()
            var parts = [(bytes: [UInt8], shape: [Int])]()
            for _ in 0..<rng.int(1...4) {
                var shape = base
                shape[axis] = rng.int(0...4)
                parts.append((rng.bytes(shape.reduce(1, *) * es), shape))
            }
            let inputs = try parts.map { try kit.tensor(type, $0.shape, bytes: $0.bytes, constant: trial % 5 == 0) }
            let y = kit.output(type)
            let axisOption = trial % 2 == 0 ? axis : axis - rank
            try kit.run(.concatenation, inputs, [y], options: [0: .int32(Int32(axisOption))], threads: 2)
            #expect(ShapeOpsTestKit.bytes(of: y) == Ref.concatenate(parts, axis: axis, elementSize: es))
            #expect(y.isConstant == (trial % 5 == 0))
        }
    }

    @Test func concatenationAppliesFloatActivationAndRequantizesUInt8() throws {
        let kit = ShapeOpsTestKit()
        let y = kit.output(.float32)
        try kit.run(
            .concatenation, [try kit.floats([-1, 7], [1, 2]), try kit.floats([3, -4], [1, 2])], [y],
            options: [0: .int32(0), 1: .int8(FusedActivation.relu6.rawValue)])
        #expect(ShapeOpsTestKit.values(y, as: Float.self) == [0, 6, 3, 0])

        func q(_ scale: Float, _ zero: Int64) -> QuantizationInfo {
            QuantizationInfo(scales: [scale], zeroPoints: [zero], quantizedDimension: 0, min: [], max: [])
        }
        let a = try kit.tensor(.uint8, [2], bytes: [10, 20], quantization: q(0.5, 0))
        let b = try kit.tensor(.uint8, [2], bytes: [100, 255], quantization: q(1, 128))
        let out = kit.output(.uint8, quantization: q(0.5, 0))
        try kit.run(.concatenation, [a, b], [out], options: [0: .int32(0)])
        // b: (100 - 128) * 1 / 0.5 = -56 → clamped to 0; (255 - 128) / 0.5 = 254.
        #expect(ShapeOpsTestKit.bytes(of: out) == [10, 20, 0, 254])

        let c = try kit.tensor(.int8, [1], bytes: [1], quantization: q(1, 0))
        expectShapeOpsError("quantized differently") {
            try kit.run(.concatenation, [c, c], [kit.output(.int8, quantization: q(2, 0))], options: [0: .int32(0)])
        }
    }

    @Test func concatenationRejectsMismatchedInputs() throws {
        let kit = ShapeOpsTestKit()
        let a = try kit.floats([1, 2], [1, 2]), b = try kit.floats([1, 2, 3], [1, 3])
        expectShapeOpsError("does not match") {
            try kit.run(.concatenation, [a, b], [kit.output(.float32)], options: [0: .int32(0)])
        }
        expectShapeOpsError("out of range") {
            try kit.run(.concatenation, [a, a], [kit.output(.float32)], options: [0: .int32(2)])
        }
        expectShapeOpsError("does not match") {
            try kit.run(.concatenation, [a, try kit.int32s([1, 2], [1, 2])], [kit.output(.float32)], options: [0: .int32(1)])
        }
        let s = kit.output(.float32)
        try kit.run(.concatenation, [try kit.floats([4], []), try kit.floats([5], [])], [s], options: [0: .int32(0)])
        #expect(s.shape == [2] && ShapeOpsTestKit.values(s, as: Float.self) == [4, 5])
    }

    @Test func packAndUnpackMatchReference() throws {
        var rng = ShapeOpsRandom(seed: 13)
        for trial in 0..<40 {
            let kit = ShapeOpsTestKit()
            let shape = rng.shape(rank: rng.int(0...4))
            let n = rng.int(1...4)
            let axis = rng.int(0...shape.count)
            let (type, es) = rng.elementSize()
            let parts = (0..<n).map { _ in (bytes: rng.bytes(shape.reduce(1, *) * es), shape: shape) }
            let packed = kit.output(type)
            try kit.run(
                .pack, try parts.map { try kit.tensor(type, $0.shape, bytes: $0.bytes) }, [packed],
                options: [0: .int32(Int32(n)), 1: .int32(Int32(trial % 2 == 0 ? axis : axis - shape.count - 1))])
            var expandedShape = shape
            expandedShape.insert(1, at: axis)
            let expected = Ref.concatenate(parts.map { ($0.bytes, expandedShape) }, axis: axis, elementSize: es)
            var packedShape = shape
            packedShape.insert(n, at: axis)
            #expect(packed.shape == packedShape)
            #expect(ShapeOpsTestKit.bytes(of: packed) == expected)

            let outs = (0..<n).map { _ in kit.output(type) }
            try kit.run(.unpack, [packed], outs, options: [0: .int32(Int32(n)), 1: .int32(Int32(axis))])
            for (o, p) in zip(outs, parts) {
                #expect(o.shape == shape)
                #expect(ShapeOpsTestKit.bytes(of: o) == p.bytes)
            }
        }
    }

    @Test func splitAndSplitVMatchReference() throws {
        var rng = ShapeOpsRandom(seed: 14)
        for trial in 0..<40 {
            let kit = ShapeOpsTestKit()
            let rank = rng.int(1...4)
            var shape = rng.shape(rank: rank)
            let axis = rng.int(0...(rank - 1))
            let n = rng.int(1...3)
            shape[axis] = n * rng.int(1...3)
            let (type, es) = rng.elementSize()
            let bytes = rng.bytes(shape.reduce(1, *) * es)
            let x = try kit.tensor(type, shape, bytes: bytes)
            let outs = (0..<n).map { _ in kit.output(type) }
            let axisTensor = try kit.int32s([Int32(trial % 2 == 0 ? axis : axis - rank)], [], constant: trial % 3 != 0)
            try kit.run(.split, [axisTensor, x], outs, options: [0: .int32(Int32(n))])
            let even = Ref.split(bytes, shape: shape, axis: axis, sizes: [Int](repeating: shape[axis] / n, count: n), elementSize: es)
            #expect(outs.map { ShapeOpsTestKit.bytes(of: $0) } == even)

            var sizes = (0..<n).map { _ in rng.int(0...3) }
            var total = shape
            total[axis] = sizes.reduce(0, +)
            let wide = rng.bytes(total.reduce(1, *) * es)
            var given = sizes.map(Int32.init)
            if n > 1 && trial % 2 == 0 { given[trial % n] = -1 }
            let vOuts = (0..<n).map { _ in kit.output(type) }
            try kit.run(
                .splitV, [try kit.tensor(type, total, bytes: wide), try kit.int32s(given), try kit.int32s([Int32(axis)], [])],
                vOuts, options: [0: .int32(Int32(n))])
            sizes = sizes.map { $0 }
            #expect(vOuts.map { ShapeOpsTestKit.bytes(of: $0) } == Ref.split(wide, shape: total, axis: axis, sizes: sizes, elementSize: es))
        }
    }

    @Test func splitRejectsBadLayouts() throws {
        let kit = ShapeOpsTestKit()
        let x = try kit.floats([1, 2, 3, 4, 5, 6], [6])
        expectShapeOpsError("evenly") {
            try kit.run(.split, [try kit.int32s([0], []), x], [kit.output(.float32), kit.output(.float32), kit.output(.float32), kit.output(.float32)], options: [0: .int32(4)])
        }
        expectShapeOpsError("outputs") {
            try kit.run(.split, [try kit.int32s([0], []), x], [kit.output(.float32)], options: [0: .int32(2)])
        }
        let two = [kit.output(.float32), kit.output(.float32)]
        expectShapeOpsError("one -1") {
            try kit.run(.splitV, [x, try kit.int32s([-1, -1]), try kit.int32s([0], [])], two, options: [0: .int32(2)])
        }
        expectShapeOpsError("add up") {
            try kit.run(.splitV, [x, try kit.int32s([2, 3]), try kit.int32s([0], [])], two, options: [0: .int32(2)])
        }
        expectShapeOpsError("more than") {
            try kit.run(.splitV, [x, try kit.int32s([7, -1]), try kit.int32s([0], [])], two, options: [0: .int32(2)])
        }
        expectShapeOpsError("cannot unpack") {
            try kit.run(.unpack, [x], two, options: [0: .int32(2), 1: .int32(0)])
        }
    }

    @Test func gatherMatchesReference() throws {
        var rng = ShapeOpsRandom(seed: 15)
        for trial in 0..<60 {
            let kit = ShapeOpsTestKit()
            let rank = rng.int(1...4)
            let shape = rng.shape(rank: rank)
            let axis = rng.int(0...(rank - 1))
            let batchDims = rng.int(0...axis)
            var indicesShape = Array(shape[..<batchDims])
            indicesShape += rng.shape(rank: rng.int(0...2), maxDim: 4)
            let count = indicesShape.reduce(1, *)
            let indices = (0..<count).map { _ in rng.int(0...(shape[axis] - 1)) }
            let (type, es) = rng.elementSize()
            let bytes = rng.bytes(shape.reduce(1, *) * es)
            let indexTensor: RuntimeTensor
            switch trial % 3 {
            case 0: indexTensor = try kit.int32s(indices.map(Int32.init), indicesShape, constant: false)
            case 1: indexTensor = try kit.int64s(indices.map(Int64.init), indicesShape, constant: false)
            default: indexTensor = try kit.tensor(.int16, indicesShape, bytes: ShapeOpsTestKit.bytes(indices.map(Int16.init)))
            }
            let y = kit.output(type)
            try kit.run(
                .gather, [try kit.tensor(type, shape, bytes: bytes), indexTensor], [y],
                options: [0: .int32(Int32(axis)), 1: .int32(Int32(batchDims))], threads: 2)
            let expected = Ref.gather(
                bytes, shape: shape, indices: indices, indicesShape: indicesShape, axis: axis, batchDims: batchDims, elementSize: es)
            #expect(ShapeOpsTestKit.bytes(of: y) == expected)
        }
    }

    @Test func gatherChecksIndicesAtRunTime() throws {
        let kit = ShapeOpsTestKit()
        let x = try kit.floats([1, 2, 3], [3])
        let y = kit.output(.float32)
        try kit.run(.gather, [x, try kit.int32s([2, 0, 2], [3], constant: false)], [y])
        #expect(ShapeOpsTestKit.values(y, as: Float.self) == [3, 1, 3])
        expectShapeOpsError("index 3 is out of range") {
            try kit.run(.gather, [x, try kit.int32s([0, 3], [2], constant: false)], [kit.output(.float32)])
        }
        expectShapeOpsError("index -1 is out of range") {
            try kit.run(.gather, [x, try kit.int64s([-1], [1], constant: false)], [kit.output(.float32)])
        }
        expectShapeOpsError("batch_dims") {
            try kit.run(.gather, [x, try kit.int32s([0])], [kit.output(.float32)], options: [1: .int32(1)])
        }
        expectShapeOpsError("INT16, INT32, INT64") {
            try kit.run(.gather, [x, try kit.floats([0], [1])], [kit.output(.float32)])
        }
    }

    @Test func gatherNDMatchesReference() throws {
        var rng = ShapeOpsRandom(seed: 16)
        for trial in 0..<50 {
            let kit = ShapeOpsTestKit()
            let shape = rng.shape(rank: rng.int(1...4))
            let depth = rng.int(0...shape.count)
            let indicesShape = rng.shape(rank: rng.int(0...2), maxDim: 3) + [depth]
            let slices = indicesShape.dropLast().reduce(1, *)
            let indices = (0..<slices).flatMap { _ in (0..<depth).map { rng.int(0...(shape[$0] - 1)) } }
            let (type, es) = rng.elementSize()
            let bytes = rng.bytes(shape.reduce(1, *) * es)
            let y = kit.output(type)
            let indexTensor = trial % 2 == 0
                ? try kit.int32s(indices.map(Int32.init), indicesShape, constant: false)
                : try kit.int64s(indices.map(Int64.init), indicesShape, constant: false)
            try kit.run(.gatherND, [try kit.tensor(type, shape, bytes: bytes), indexTensor], [y])
            #expect(ShapeOpsTestKit.bytes(of: y) == Ref.gatherND(bytes, shape: shape, indices: indices, indicesShape: indicesShape, elementSize: es))
        }
        let kit = ShapeOpsTestKit()
        let x = try kit.floats([1, 2, 3, 4], [2, 2])
        expectShapeOpsError("out of range") {
            try kit.run(.gatherND, [x, try kit.int32s([0, 2], [1, 2], constant: false)], [kit.output(.float32)])
        }
        expectShapeOpsError("exceeds params rank") {
            try kit.run(.gatherND, [x, try kit.int32s([0, 0, 0], [1, 3])], [kit.output(.float32)])
        }
    }
}

import Testing

@testable import TFLiteRuntime

/// PAD, PADV2, MIRROR_PAD, the resizes, and the space/depth/batch shuffles against the reference.
struct DataMovementPadResizeTests {
    typealias Ref = ReferenceDataMovement

    @Test func padMatchesReference() throws {
        var rng = ShapeOpsRandom(seed: 31)
        for trial in 0..<50 {
            let kit = ShapeOpsTestKit()
            let shape = rng.shape(rank: rng.int(0...4), maxDim: 4)
            let before = shape.map { _ in rng.int(0...3) }, after = shape.map { _ in rng.int(0...3) }
            let (type, es) = rng.elementSize()
            let bytes = rng.bytes(shape.reduce(1, *) * es)
            let paddings = zip(before, after).flatMap { [Int32($0), Int32($1)] }
            let value = trial % 2 == 0 ? rng.bytes(es) : [UInt8](repeating: 0, count: es)
            var inputs = [try kit.tensor(type, shape, bytes: bytes), try kit.int32s(paddings, [shape.count, 2])]
            if trial % 2 == 0 { inputs.append(try kit.tensor(type, [], bytes: value)) }
            let y = kit.output(type)
            try kit.run(trial % 2 == 0 ? .padv2 : .pad, inputs, [y], threads: 2)
            #expect(ShapeOpsTestKit.bytes(of: y) == Ref.pad(bytes, shape: shape, before: before, after: after, value: value, elementSize: es))
        }
    }

    @Test func padUsesTheZeroPointOfQuantizedOutputs() throws {
        let kit = ShapeOpsTestKit()
        let q = QuantizationInfo(scales: [0.1], zeroPoints: [-5], quantizedDimension: 0, min: [], max: [])
        let y = kit.output(.int8, quantization: q)
        try kit.run(.pad, [try kit.tensor(.int8, [1], bytes: [7], quantization: q), try kit.int64s([1, 1], [1, 2])], [y])
        #expect(ShapeOpsTestKit.values(y, as: Int8.self) == [-5, 7, -5])
        let dynamic = kit.output(.float32)
        let node = try kit.run(.pad, [try kit.floats([1], [1]), try kit.int32s([0, 2], [1, 2], constant: false)], [dynamic])
        #expect(node.hasDynamicOutputs && ShapeOpsTestKit.values(dynamic, as: Float.self) == [1, 0, 0])
        expectShapeOpsError("non-negative") {
            try kit.run(.pad, [try kit.floats([1], [1]), try kit.int32s([-1, 0], [1, 2])], [kit.output(.float32)])
        }
        expectShapeOpsError("[1, 2]") {
            try kit.run(.pad, [try kit.floats([1], [1]), try kit.int32s([0, 0, 0, 0], [2, 2])], [kit.output(.float32)])
        }
        expectShapeOpsError("constant value") {
            try kit.run(.padv2, [try kit.floats([1], [1]), try kit.int32s([0, 1], [1, 2]), try kit.int32s([0], [])], [kit.output(.float32)])
        }
    }

    @Test func mirrorPadMatchesReference() throws {
        var rng = ShapeOpsRandom(seed: 32)
        for trial in 0..<60 {
            let kit = ShapeOpsTestKit()
            let symmetric = trial % 2 == 1
            let shape = rng.shape(rank: rng.int(1...4), maxDim: 5)
            let limit = shape.map { $0 - (symmetric ? 0 : 1) }
            let before = limit.map { rng.int(0...$0) }, after = limit.map { rng.int(0...$0) }
            let (type, es) = rng.elementSize()
            let bytes = rng.bytes(shape.reduce(1, *) * es)
            let y = kit.output(type)
            try kit.run(
                .mirrorPad,
                [try kit.tensor(type, shape, bytes: bytes), try kit.int64s(zip(before, after).flatMap { [Int64($0), Int64($1)] }, [shape.count, 2])],
                [y], options: [0: .int8(symmetric ? 1 : 0)], threads: 3)
            #expect(ShapeOpsTestKit.bytes(of: y) == Ref.mirrorPad(bytes, shape: shape, before: before, after: after, symmetric: symmetric, elementSize: es))
        }
    }

    @Test func mirrorPadHandCheckedAndErrors() throws {
        let kit = ShapeOpsTestKit()
        let x = try kit.floats([1, 2, 3], [3])
        let reflect = kit.output(.float32), symmetric = kit.output(.float32)
        try kit.run(.mirrorPad, [x, try kit.int32s([2, 2], [1, 2])], [reflect], options: [0: .int8(0)])
        try kit.run(.mirrorPad, [x, try kit.int32s([2, 2], [1, 2])], [symmetric], options: [0: .int8(1)])
        #expect(ShapeOpsTestKit.values(reflect, as: Float.self) == [3, 2, 1, 2, 3, 2, 1])
        #expect(ShapeOpsTestKit.values(symmetric, as: Float.self) == [2, 1, 1, 2, 3, 3, 2])
        expectShapeOpsError("too large") {
            try kit.run(.mirrorPad, [x, try kit.int32s([3, 0], [1, 2])], [kit.output(.float32)], options: [0: .int8(0)])
        }
        expectShapeOpsError("unknown mirror pad mode") {
            try kit.run(.mirrorPad, [x, try kit.int32s([0, 0], [1, 2])], [kit.output(.float32)], options: [0: .int8(2)])
        }
    }

    @Test func resizeBilinearMatchesReference() throws {
        var rng = ShapeOpsRandom(seed: 33)
        for trial in 0..<60 {
            let kit = ShapeOpsTestKit()
            let shape = [rng.int(1...2), rng.int(1...6), rng.int(1...6), rng.int(1...5)]
            var (h, w) = (rng.int(1...13), rng.int(1...13))
            if trial % 6 == 0 { (h, w) = (2 * shape[1], 2 * shape[2]) }
            let align = trial % 3 == 1, half = trial % 3 == 2
            let input = rng.floats(shape.reduce(1, *))
            let y = kit.output(.float32)
            try kit.run(
                .resizeBilinear, [try kit.floats(input, shape), try kit.int32s([Int32(h), Int32(w)], [2], constant: trial % 4 != 0)],
                [y], options: [2: .bool(align), 3: .bool(half)], threads: 2)
            #expect(y.shape == [shape[0], h, w, shape[3]])
            let expected = Ref.resizeBilinear(input, shape: shape, height: h, width: w, alignCorners: align, halfPixelCenters: half)
            let got = ShapeOpsTestKit.values(y, as: Float.self)
            let worst = zip(got, expected).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? 0
            #expect(worst <= 1e-5, "shape \(shape) -> \(h)x\(w), align \(align), half \(half): error \(worst)")
        }
    }

    @Test func resizeBilinearErrors() throws {
        let kit = ShapeOpsTestKit()
        let x = try kit.floats([1, 2, 3, 4], [1, 2, 2, 1])
        expectShapeOpsError("cannot both") {
            try kit.run(.resizeBilinear, [x, try kit.int32s([2, 2])], [kit.output(.float32)], options: [2: .bool(true), 3: .bool(true)])
        }
        expectShapeOpsError("must be positive") { try kit.run(.resizeBilinear, [x, try kit.int32s([0, 2])], [kit.output(.float32)]) }
        expectShapeOpsError("4-D") {
            try kit.run(.resizeBilinear, [try kit.floats([1, 2], [2]), try kit.int32s([2, 2])], [kit.output(.float32)])
        }
        expectShapeOpsError("FLOAT32") {
            // Quantized uint8/int8/int16 are supported; int32 is not.
            try kit.run(.resizeBilinear, [try kit.tensor(.int32, [1, 1, 1, 1], bytes: [1, 0, 0, 0]), try kit.int32s([2, 2])], [kit.output(.int32)])
        }
    }

    @Test func resizeNearestNeighborMatchesReference() throws {
        var rng = ShapeOpsRandom(seed: 34)
        for trial in 0..<80 {
            let kit = ShapeOpsTestKit()
            let shape = [rng.int(1...2), rng.int(1...7), rng.int(1...7), rng.int(1...4)]
            let (h, w) = (rng.int(1...60), rng.int(1...60))
            let align = trial % 4 == 1, half = trial % 4 == 2
            let (type, es) = trial % 3 == 0 ? (TensorType.int8, 1) : rng.elementSize()
            let bytes = rng.bytes(shape.reduce(1, *) * es)
            let y = kit.output(type)
            try kit.run(
                .resizeNearestNeighbor, [try kit.tensor(type, shape, bytes: bytes), try kit.int32s([Int32(h), Int32(w)])], [y],
                options: [0: .bool(align), 1: .bool(half)], threads: 2)
            let expected = Ref.resizeNearestNeighbor(
                bytes, shape: shape, height: h, width: w, alignCorners: align, halfPixelCenters: half, elementSize: es)
            #expect(ShapeOpsTestKit.bytes(of: y) == expected)
        }
    }

    @Test func nearestNeighborEightBitIndexRuleDiffersFromFloat() {
        // Resizing 6 to 74, output 37 sits exactly on input 3: LiteRT's 8-bit kernel computes
        // 37 * ((6 << 16) / 74 + 1) >> 16 = 3, while the float rule floors 37 * (6 / 74f) to 2.
        #expect(Ref.nearestIndex(37, inSize: 6, outSize: 74, alignCorners: false, halfPixelCenters: false, elementSize: 1) == 3)
        #expect(Ref.nearestIndex(37, inSize: 6, outSize: 74, alignCorners: false, halfPixelCenters: false, elementSize: 4) == 2)
    }

    @Test func spaceToDepthAndBackMatchReference() throws {
        var rng = ShapeOpsRandom(seed: 35)
        for _ in 0..<30 {
            let kit = ShapeOpsTestKit()
            let block = rng.int(1...3)
            let shape = [rng.int(1...2), block * rng.int(1...3), block * rng.int(1...3), rng.int(1...4)]
            let (type, es) = rng.elementSize()
            let bytes = rng.bytes(shape.reduce(1, *) * es)
            let deep = kit.output(type)
            try kit.run(.spaceToDepth, [try kit.tensor(type, shape, bytes: bytes)], [deep], options: [0: .int32(Int32(block))])
            #expect(ShapeOpsTestKit.bytes(of: deep) == Ref.spaceToDepth(bytes, shape: shape, block: block, elementSize: es))
            let back = kit.output(type)
            try kit.run(.depthToSpace, [deep], [back], options: [0: .int32(Int32(block))])
            #expect(back.shape == shape)
            #expect(ShapeOpsTestKit.bytes(of: back) == bytes)
            #expect(Ref.depthToSpace(ShapeOpsTestKit.bytes(of: deep), shape: deep.shape, block: block, elementSize: es) == bytes)
        }
        let kit = ShapeOpsTestKit()
        expectShapeOpsError("multiples of block_size") {
            try kit.run(.spaceToDepth, [try kit.floats([1, 2, 3], [1, 3, 1, 1])], [kit.output(.float32)], options: [0: .int32(2)])
        }
        expectShapeOpsError("must be positive") {
            try kit.run(.depthToSpace, [try kit.floats([1], [1, 1, 1, 1])], [kit.output(.float32)], options: [0: .int32(0)])
        }
    }

    @Test func spaceToBatchAndBackMatchReference() throws {
        var rng = ShapeOpsRandom(seed: 36)
        for trial in 0..<40 {
            let kit = ShapeOpsTestKit()
            let spatial = trial % 3 == 0 ? 1 : 2
            let block = (0..<spatial).map { _ in rng.int(1...3) }
            var before = [Int](), after = [Int](), shape = [rng.int(1...2)]
            for i in 0..<spatial {
                before.append(rng.int(0...2))
                let size = rng.int(1...5)
                shape.append(size)
                let padded = size + before[i]
                after.append((block[i] - padded % block[i]) % block[i] + block[i] * rng.int(0...1))
            }
            shape.append(rng.int(1...3))
            let (type, es) = rng.elementSize()
            let bytes = rng.bytes(shape.reduce(1, *) * es)
            let pads = zip(before, after).flatMap { [Int32($0), Int32($1)] }
            let batched = kit.output(type)
            try kit.run(
                .spaceToBatchND, [try kit.tensor(type, shape, bytes: bytes), try kit.int32s(block.map(Int32.init)), try kit.int32s(pads, [spatial, 2])],
                [batched], threads: 2)
            let zero = [UInt8](repeating: 0, count: es)
            let expected = Ref.spaceToBatch(bytes, shape: shape, block: block, before: before, after: after, value: zero, elementSize: es)
            #expect(ShapeOpsTestKit.bytes(of: batched) == expected)
            let back = kit.output(type)
            try kit.run(.batchToSpaceND, [batched, try kit.int32s(block.map(Int32.init)), try kit.int32s(pads, [spatial, 2])], [back], threads: 2)
            #expect(back.shape == shape)
            #expect(ShapeOpsTestKit.bytes(of: back) == bytes)
            #expect(Ref.batchToSpace(expected, shape: batched.shape, block: block, cropBefore: before, cropAfter: after, elementSize: es) == bytes)
        }
    }

    @Test func spaceToBatchPadsWithTheZeroPointAndChecksOperands() throws {
        let kit = ShapeOpsTestKit()
        let q = QuantizationInfo(scales: [1], zeroPoints: [128], quantizedDimension: 0, min: [], max: [])
        let y = kit.output(.uint8, quantization: q)
        try kit.run(
            .spaceToBatchND, [try kit.tensor(.uint8, [1, 1, 1], bytes: [9], quantization: q), try kit.int32s([2]), try kit.int32s([1, 0], [1, 2])], [y])
        #expect(y.shape == [2, 1, 1])
        #expect(ShapeOpsTestKit.bytes(of: y) == [128, 9])
        let x = try kit.floats([1, 2, 3, 4], [1, 2, 2, 1])
        expectShapeOpsError("not a multiple") {
            try kit.run(.spaceToBatchND, [x, try kit.int32s([3, 1]), try kit.int32s([0, 0, 0, 0], [2, 2])], [kit.output(.float32)])
        }
        expectShapeOpsError("must be positive") {
            try kit.run(.spaceToBatchND, [x, try kit.int32s([0, 1]), try kit.int32s([0, 0, 0, 0], [2, 2])], [kit.output(.float32)])
        }
        expectShapeOpsError("crops") {
            try kit.run(.batchToSpaceND, [x, try kit.int32s([1, 1]), try kit.int32s([2, 1, 0, 0], [2, 2])], [kit.output(.float32)])
        }
        expectShapeOpsError("block count") {
            try kit.run(.batchToSpaceND, [x, try kit.int32s([2, 1]), try kit.int32s([0, 0, 0, 0], [2, 2])], [kit.output(.float32)])
        }
    }
}

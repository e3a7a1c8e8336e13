import Testing

@testable import TFLiteRuntime

/// RESHAPE, SQUEEZE, EXPAND_DIMS, SHAPE and FILL.
struct ShapeKernelTests {
    @Test func reshapeInfersTheMinusOneDimension() throws {
        let kit = ShapeOpsTestKit()
        let values = (0..<24).map(Float.init)
        let y = kit.output(.float32)
        try kit.run(.reshape, [try kit.floats(values, [2, 3, 4]), try kit.int32s([4, -1])], [y])
        #expect(y.shape == [4, 6])
        #expect(ShapeOpsTestKit.values(y, as: Float.self) == values)
    }

    @Test func reshapeUsesOptionsWithoutAShapeTensor() throws {
        let kit = ShapeOpsTestKit()
        let y = kit.output(.int16)
        let x = try kit.tensor(.int16, [6], bytes: ShapeOpsTestKit.bytes([Int16](1...6)))
        try kit.run(.reshape, [x], [y], options: [0: .ints([3, 2])])
        #expect(y.shape == [3, 2])
        #expect(ShapeOpsTestKit.values(y, as: Int16.self) == [1, 2, 3, 4, 5, 6])
        // The legacy [0] means a scalar.
        let s = kit.output(.int16)
        try kit.run(.reshape, [try kit.tensor(.int16, [1], bytes: [7, 0])], [s], options: [0: .ints([0])])
        #expect(s.shape == [])
    }

    @Test func reshapeWithARunTimeShapeIsDynamic() throws {
        let kit = ShapeOpsTestKit()
        let y = kit.output(.bool)
        let node = try kit.run(
            .reshape, [try kit.tensor(.bool, [2, 2], bytes: [1, 0, 0, 1]), try kit.int64s([4], constant: false)], [y])
        #expect(node.hasDynamicOutputs)
        #expect(y.shape == [4])
        #expect(ShapeOpsTestKit.bytes(of: y) == [1, 0, 0, 1])
    }

    @Test func reshapeOfZeroElements() throws {
        let kit = ShapeOpsTestKit()
        let y = kit.output(.float32)
        try kit.run(.reshape, [try kit.floats([], [0, 3]), try kit.int32s([-1, 3])], [y])
        #expect(y.shape == [0, 3])
        let z = kit.output(.float32)
        try kit.run(.reshape, [try kit.floats([], [2, 0]), try kit.int32s([5, -1])], [z])
        #expect(z.shape == [5, 0])
    }

    @Test func reshapeRejectsBadShapes() throws {
        let kit = ShapeOpsTestKit()
        let x = try kit.floats((0..<6).map(Float.init), [6])
        expectShapeOpsError("more than one -1") { try kit.run(.reshape, [x, try kit.int32s([-1, -1])], [kit.output(.float32)]) }
        expectShapeOpsError("cannot reshape") { try kit.run(.reshape, [x, try kit.int32s([4, -1])], [kit.output(.float32)]) }
        expectShapeOpsError("negative") { try kit.run(.reshape, [x, try kit.int32s([-2, -3])], [kit.output(.float32)]) }
        expectShapeOpsError("cannot reshape") { try kit.run(.reshape, [x, try kit.int32s([7])], [kit.output(.float32)]) }
    }

    @Test func reshapeOfAConstantIsFoldedIntoAConstant() throws {
        let kit = ShapeOpsTestKit()
        let y = kit.output(.float32)
        try kit.run(.reshape, [try kit.floats([1, 2, 3, 4], [4], constant: true), try kit.int32s([2, 2])], [y])
        #expect(y.isConstant)
        #expect(ShapeOpsTestKit.values(y, as: Float.self) == [1, 2, 3, 4])
    }

    @Test func squeezeAllOrListedDimensions() throws {
        let kit = ShapeOpsTestKit()
        let x = try kit.floats([1, 2, 3], [1, 3, 1, 1])
        let all = kit.output(.float32)
        try kit.run(.squeeze, [x], [all])
        #expect(all.shape == [3])
        let listed = kit.output(.float32)
        try kit.run(.squeeze, [x], [listed], options: [0: .ints([0, -1])])
        #expect(listed.shape == [3, 1])
        #expect(ShapeOpsTestKit.values(listed, as: Float.self) == [1, 2, 3])
        expectShapeOpsError("cannot squeeze") { try kit.run(.squeeze, [x], [kit.output(.float32)], options: [0: .ints([1])]) }
        expectShapeOpsError("out of range") { try kit.run(.squeeze, [x], [kit.output(.float32)], options: [0: .ints([4])]) }
    }

    @Test func expandDimsAtPositiveAndNegativeAxes() throws {
        let kit = ShapeOpsTestKit()
        let x = try kit.tensor(.int8, [2, 3], bytes: [1, 2, 3, 4, 5, 6])
        for (axis, expected) in [(0, [1, 2, 3]), (2, [2, 3, 1]), (-1, [2, 3, 1]), (-3, [1, 2, 3])] {
            let y = kit.output(.int8)
            try kit.run(.expandDims, [x, try kit.int32s([Int32(axis)], [])], [y])
            #expect(y.shape == expected)
            #expect(ShapeOpsTestKit.bytes(of: y) == [1, 2, 3, 4, 5, 6])
        }
        expectShapeOpsError("out of range") { try kit.run(.expandDims, [x, try kit.int32s([3], [])], [kit.output(.int8)]) }
        expectShapeOpsError("out of range") { try kit.run(.expandDims, [x, try kit.int64s([-4], [1])], [kit.output(.int8)]) }
    }

    @Test func shapeWritesItsValuesWhilePreparing() throws {
        let kit = ShapeOpsTestKit()
        let x = try kit.floats([Float](repeating: 0, count: 30), [2, 3, 5], constant: false)
        let y = kit.output(.int32)
        try kit.run(.shape, [x], [y])
        #expect(y.type == .int32)
        #expect(y.isConstant)
        #expect(ShapeOpsTestKit.values(y, as: Int32.self) == [2, 3, 5])
        let wide = kit.output(.int64)
        try kit.run(.shape, [x], [wide], options: [0: .int8(TensorType.int64.rawValue)])
        #expect(ShapeOpsTestKit.values(wide, as: Int64.self) == [2, 3, 5])
        expectShapeOpsError("not INT32 or INT64") {
            try kit.run(.shape, [x], [kit.output(.int32)], options: [0: .int8(TensorType.float32.rawValue)])
        }
    }

    @Test func fillRepeatsTheValueForEveryType() throws {
        let kit = ShapeOpsTestKit()
        let cases: [(TensorType, [UInt8])] = [
            (.float32, ShapeOpsTestKit.bytes([Float(2.5)])), (.int32, ShapeOpsTestKit.bytes([Int32(-7)])),
            (.int64, ShapeOpsTestKit.bytes([Int64.min])), (.int8, [0x80]), (.uint8, [200]), (.bool, [1]),
            (.int16, ShapeOpsTestKit.bytes([Int16(-300)])), (.float16, [0x00, 0x3C]),
        ]
        for (type, value) in cases {
            let y = kit.output(type)
            try kit.run(.fill, [try kit.int32s([2, 3]), try kit.tensor(type, [], bytes: value)], [y])
            #expect(y.shape == [2, 3] && y.type == type)
            #expect(ShapeOpsTestKit.bytes(of: y) == Array([[UInt8]](repeating: value, count: 6).joined()))
        }
    }

    @Test func fillWithRunTimeDimsIsDynamic() throws {
        let kit = ShapeOpsTestKit()
        let y = kit.output(.float32)
        let node = try kit.run(.fill, [try kit.int64s([3], constant: false), try kit.floats([1.5], [])], [y])
        #expect(node.hasDynamicOutputs)
        #expect(ShapeOpsTestKit.values(y, as: Float.self) == [1.5, 1.5, 1.5])
        expectShapeOpsError("negative") {
            try kit.run(.fill, [try kit.int32s([2, -1]), try kit.floats([1], [])], [kit.output(.float32)])
        }
        expectShapeOpsError("scalar") {
            try kit.run(.fill, [try kit.int32s([2]), try kit.floats([1, 2], [2])], [kit.output(.float32)])
        }
        expectShapeOpsError("INT32 or INT64") {
            try kit.run(.fill, [try kit.floats([2], [1]), try kit.floats([1], [])], [kit.output(.float32)])
        }
    }

    @Test func shapeOperandsFromAnotherKernelAreReadAtPrepareTime() throws {
        // SHAPE binds its output as a constant, so a RESHAPE reading it is not deferred.
        let kit = ShapeOpsTestKit()
        let source = try kit.floats([Float](repeating: 0, count: 6), [3, 2])
        let shape = kit.output(.int32)
        try kit.run(.shape, [source], [shape])
        let y = kit.output(.float32)
        let node = try kit.run(.reshape, [try kit.floats((0..<6).map(Float.init), [6]), shape], [y])
        #expect(!node.hasDynamicOutputs)
        #expect(y.shape == [3, 2])
    }
}

import CKernels
import Foundation
import Testing

@testable import TFLiteRuntime

/// CAST, DEQUANTIZE, DENSIFY and the 16-bit float conversions.
struct ConversionKernelTests {
    typealias Ref = ReferenceConversion

    @Test func halfToFloatIsExactForEveryValue() {
        for bits in 0...UInt16.max {
            let fast = HalfPrecision.float(fromHalf: bits), slow = Ref.halfToFloat(bits)
            if slow.isNaN {
                #expect(fast.isNaN)
            } else {
                #expect(fast.bitPattern == slow.bitPattern, "half \(bits)")
            }
        }
    }

    /// The C conversion that loading fp16 weights uses, at every half value, at an odd address
    /// (weights need not be aligned) and split at every length modulo the vector width.
    @Test func cHalfToFloatMatchesForEveryValue() {
        let all = (0...UInt16.max).map { $0 }
        var bytes = [UInt8](repeating: 0, count: 1 + 2 * all.count)
        for (i, h) in all.enumerated() {
            bytes[1 + 2 * i] = UInt8(h & 0xFF)
            bytes[2 + 2 * i] = UInt8(h >> 8)
        }
        var out = [Float](repeating: 0, count: all.count)
        bytes.withUnsafeBytes { b in
            out.withUnsafeMutableBufferPointer { o in
                // Uneven pieces exercise the vector loop's tails.
                var at = 0, piece = 1
                while at < all.count {
                    let n = min(piece, all.count - at)
                    omk_f16_to_f32(b.baseAddress! + 1 + 2 * at, o.baseAddress! + at, n)
                    at += n
                    piece = piece % 37 + 1
                }
            }
        }
        var mismatches = 0
        for (i, h) in all.enumerated() where out[i].bitPattern != HalfPrecision.float(fromHalf: h).bitPattern {
            mismatches += 1
        }
        #expect(mismatches == 0)
        #expect(out[0x3C00] == 1 && out[0xC000] == -2 && out[0x0001] == Float(sign: .plus, exponent: -24, significand: 1))
    }

    @Test func floatToHalfRoundsToNearestEven() {
        var rng = ShapeOpsRandom(seed: 41)
        var samples: [Float] = [0, -0, 1, 65504, 65519.99, 65520, 1e-8, 2.98e-8, 5.96e-8, -3.0e-5, .infinity, -.infinity, .nan]
        // Every half value, and the midpoints between neighbours, exercise the rounding ties.
        for bits in stride(from: UInt16(0), to: 0x7C00, by: 7) {
            let v = Ref.halfToFloat(bits), next = Ref.halfToFloat(bits + 1)
            samples += [v, (v + next) / 2, -v]
        }
        for _ in 0..<20000 { samples.append(Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))) }
        for f in samples {
            #expect(HalfPrecision.half(from: f) == Ref.floatToHalf(f), "float \(f) bits \(f.bitPattern)")
            #expect(HalfPrecision.bfloat16(from: f) == Ref.floatToBFloat16(f), "float \(f)")
        }
    }

    @Test func castMatchesReferenceBetweenAllTypes() throws {
        let types: [TensorType] = [.float32, .float16, .bfloat16, .float64, .int8, .uint8, .int16, .uint16, .int32, .uint32, .int64, .uint64, .bool]
        var rng = ShapeOpsRandom(seed: 42)
        let specials: [Double] = [0, -0.0, 0.5, -0.5, 1.9, -1.9, 127.5, -128.7, 255.9, 256, 32767.9, -32769, 2147483647.9, 4294967296, 9.3e18, -9.3e18, 2e19, .nan, .infinity, -.infinity]
        for from in types {
            for to in types {
                let kit = ShapeOpsTestKit()
                let n = 300
                var bytes = rng.bytes(n * from.byteSize)
                if from == .bool { bytes = bytes.map { $0 & 1 } }
                if [.float32, .float64, .float16, .bfloat16].contains(from) {
                    // Mix in values around every integer type's limits, written through the reference.
                    for (i, v) in specials.enumerated() {
                        let encoded = Ref.write(.real(v), from)
                        bytes.replaceSubrange((i * from.byteSize)..<((i + 1) * from.byteSize), with: encoded)
                    }
                }
                let y = kit.output(to)
                try kit.run(.cast, [try kit.tensor(from, [n], bytes: bytes)], [y], threads: 2)
                let expected = Ref.cast(bytes, from: from, to: to, count: n)
                #expect(ShapeOpsTestKit.bytes(of: y) == expected, "\(from.name) -> \(to.name)")
            }
        }
    }

    @Test func castHandCheckedValues() throws {
        let kit = ShapeOpsTestKit()
        let y = kit.output(.int32)
        try kit.run(.cast, [try kit.floats([1.9, -1.9, 3e9, -3e9, .nan, 0.5], [6])], [y])
        #expect(ShapeOpsTestKit.values(y, as: Int32.self) == [1, -1, .max, .min, .max, 0])
        let b = kit.output(.bool)
        try kit.run(.cast, [try kit.int32s([0, 5, -1], constant: false)], [b])
        #expect(ShapeOpsTestKit.bytes(of: b) == [0, 1, 1])
        let u = kit.output(.uint8)
        try kit.run(.cast, [try kit.int32s([256, 257, -1], constant: false)], [u])
        #expect(ShapeOpsTestKit.bytes(of: u) == [0, 1, 255])
        expectShapeOpsError("cannot cast to") {
            try kit.run(.cast, [try kit.floats([1], [1])], [kit.output(.string)])
        }
    }

    @Test func dequantizeMatchesReference() throws {
        var rng = ShapeOpsRandom(seed: 43)
        for trial in 0..<40 {
            let kit = ShapeOpsTestKit()
            let shape = rng.shape(rank: rng.int(1...4))
            let type: TensorType = [.int8, .uint8, .int16, .float16][trial % 4]
            let bytes = rng.bytes(shape.reduce(1, *) * type.byteSize)
            var q: QuantizationInfo? = nil
            if type != .float16 {
                let perChannel = trial % 3 == 0 && type != .int16
                let dim = rng.int(0...(shape.count - 1))
                let channels = perChannel ? shape[dim] : 1
                let scales = (0..<channels).map { _ in Float(rng.int(1...1000)) / 997 }
                let zeros = (0..<channels).map { _ in type == .int16 ? 0 : Int64(rng.int(-20...20)) }
                q = QuantizationInfo(scales: scales, zeroPoints: zeros, quantizedDimension: perChannel ? dim : 0, min: [], max: [])
            }
            let y = kit.output(.float32)
            try kit.run(.dequantize, [try kit.tensor(type, shape, bytes: bytes, constant: trial % 2 == 0, quantization: q)], [y], threads: 2)
            #expect(y.isConstant == (trial % 2 == 0))
            let expected = Ref.dequantize(
                bytes, type: type, shape: shape, scales: q?.scales ?? [], zeroPoints: q?.zeroPoints ?? [],
                quantizedDimension: q?.quantizedDimension ?? 0)
            let got = ShapeOpsTestKit.values(y, as: Float.self)
            if type == .float16 || (q?.scales.count ?? 1) > 1 {
                // Widening halves and LiteRT's per-channel formula are exact.
                #expect(zip(got, expected).allSatisfy { $0.bitPattern == $1.bitPattern || ($0.isNaN && $1.isNaN) })
            } else {
                // Per tensor, LiteRT's optimized kernel (mirrored here) rounds groups of eight in float
                // where the reference computes in double: they agree to float rounding.
                let offset = abs(Float(q?.zeroPoints.first ?? 0) * (q?.scales.first ?? 0))
                #expect(zip(got, expected).allSatisfy { abs($0 - $1) <= 2.4e-7 * (abs($1) + offset) }, "\(type.name)")
            }
        }
        let kit = ShapeOpsTestKit()
        let bad = QuantizationInfo(scales: [1], zeroPoints: [3], quantizedDimension: 0, min: [], max: [])
        expectShapeOpsError("zero point 0") {
            try kit.run(.dequantize, [try kit.tensor(.int16, [1], bytes: [0, 0], quantization: bad)], [kit.output(.float32)])
        }
        expectShapeOpsError("supported") { try kit.run(.dequantize, [try kit.floats([1], [1])], [kit.output(.float32)]) }
    }

    private func blockSparse() -> SparsityInfo { .blocks2x2Of4x4 }

    @Test func densifyExpandsBlockSparseMatrices() throws {
        let kit = ShapeOpsTestKit()
        let values: [Float] = [1, 2, 3, 4, 5, 6, 7, 8]
        let x = try kit.tensor(.float32, [4, 4], bytes: ShapeOpsTestKit.bytes(values), constant: true, sparsity: blockSparse())
        let y = kit.output(.float32)
        try kit.run(.densify, [x], [y])
        #expect(y.isConstant && y.shape == [4, 4])
        #expect(ShapeOpsTestKit.values(y, as: Float.self) == [1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 5, 6, 0, 0, 7, 8])
        // The same layout for 16-bit payloads (fp16 weights) moves bytes unchanged.
        let halves = try kit.tensor(.float16, [4, 4], bytes: ShapeOpsTestKit.bytes((1...8).map(UInt16.init)), constant: true, sparsity: blockSparse())
        let h = kit.output(.float16)
        try kit.run(.densify, [halves], [h])
        #expect(ShapeOpsTestKit.values(h, as: UInt16.self) == [1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 5, 6, 0, 0, 7, 8])
    }

    @Test func densifyKeepsItsExpansionWhenPreparedAgain() throws {
        let kit = ShapeOpsTestKit()
        let x = try kit.tensor(.float32, [4, 4], bytes: ShapeOpsTestKit.bytes((1...8).map(Float.init)), constant: true, sparsity: blockSparse())
        let y = kit.output(.float32)
        let node = Node(
            index: 0, code: OperatorCode(builtin: .densify, customCode: nil, version: 1), inputs: [x], outputs: [y],
            intermediates: [], options: nil, customOptions: UnsafeRawBufferPointer(start: nil, count: 0), threadCount: 1)
        let kernel = try DensifyKernel(node)
        try kernel.prepare(node)
        let first = y.data
        try kernel.prepare(node)  // as after another allocateTensors()
        #expect(y.data == first && y.isConstant)
        try kernel.eval(node)
        #expect(ShapeOpsTestKit.values(y, as: Float.self) == [1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 5, 6, 0, 0, 7, 8])
    }

    @Test func densifyCSRMatrix() throws {
        // [[0, 7, 0], [0, 0, 0], [9, 0, 8]] as dense rows × CSR columns.
        let kit = ShapeOpsTestKit()
        let sparsity = SparsityInfo(
            traversalOrder: [0, 1], blockMap: [],
            dimensions: [
                SparseDimension(format: .dense, denseSize: 3, segments: [], indices: []),
                SparseDimension(format: .sparseCSR, denseSize: 0, segments: [0, 1, 1, 3], indices: [1, 0, 2]),
            ])
        let y = kit.output(.int8)
        try kit.run(.densify, [try kit.tensor(.int8, [3, 3], bytes: [7, 9, 8], constant: true, sparsity: sparsity)], [y])
        #expect(ShapeOpsTestKit.values(y, as: Int8.self) == [0, 7, 0, 0, 0, 0, 9, 0, 8])
    }

    @Test func densifyRejectsMalformedLayouts() throws {
        let kit = ShapeOpsTestKit()
        func run(_ sparsity: SparsityInfo, values: Int = 8, constant: Bool = true) throws {
            let x = try kit.tensor(.float32, [4, 4], bytes: ShapeOpsTestKit.bytes([Float](repeating: 1, count: values)), constant: constant, sparsity: sparsity)
            try kit.run(.densify, [x], [kit.output(.float32)])
        }
        expectShapeOpsError("constant sparse") { try run(blockSparse(), constant: false) }
        expectShapeOpsError("address more") { try run(blockSparse(), values: 7) }
        var badIndex = blockSparse()
        badIndex.dimensions[1].indices = [0, 5]
        expectShapeOpsError("outside shape") { try run(badIndex) }
        var badOrder = blockSparse()
        badOrder.traversalOrder = [0, 0, 2, 3]
        expectShapeOpsError("traversal order") { try run(badOrder) }
        var badDense = blockSparse()
        badDense.dimensions[0].denseSize = 1000
        expectShapeOpsError("expected 2") { try run(badDense) }
        var badBlock = blockSparse()
        badBlock.dimensions[2].denseSize = 3
        expectShapeOpsError("does not divide") { try run(badBlock) }
    }

    @Test(.enabled(if: TestPaths.hasSharedModels, "needs ../shared/models beside the checkout"))
    func densifyAndDequantizeTheSparseFaceDetector() throws {
        // DENSIFY → DEQUANTIZE (fp16 → fp32) pairs of a real model, checked for internal consistency:
        // every stored value lands in the dense tensor, and dequantizing is exact.
        let path = TestPaths.sharedModel("mediapipe_face_detection_full_range_sparse_fp16.tflite")
        let model = try Model(path: path)
        let graph = model.subgraphs[0]
        var checked = 0
        for op in graph.operators where model.operatorCodes[op.opcodeIndex].builtin == .densify {
            let kit = ShapeOpsTestKit()
            let t = graph.tensors[op.inputs[0]]
            let stored = model.bufferBytes(t.buffer)
            let x = try kit.tensor(t.type, t.shape, bytes: Array(stored), constant: true, sparsity: t.sparsity)
            let dense = kit.output(t.type)
            try kit.run(.densify, [x], [dense])
            let denseValues = ShapeOpsTestKit.values(dense, as: UInt16.self)
            let storedValues = Array(stored).withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
            #expect(denseValues.count == t.shape.reduce(1, *))
            func nonZero(_ values: [UInt16]) -> Int { values.filter { $0 & 0x7FFF != 0 }.count }
            func sum(_ values: [UInt16]) -> Int { values.reduce(0) { $0 + Int($1) } }
            #expect(nonZero(denseValues) == nonZero(storedValues))
            #expect(sum(denseValues) == sum(storedValues))
            let floats = kit.output(.float32)
            try kit.run(.dequantize, [dense], [floats])
            #expect(floats.isConstant)
            #expect(ShapeOpsTestKit.values(floats, as: Float.self) == denseValues.map(HalfPrecision.float(fromHalf:)))
            checked += 1
        }
        #expect(checked == 46)
    }
}

extension SparsityInfo {
    /// A 4x4 matrix in 2x2 blocks with two non-zero blocks (LiteRT's densify test layout).
    static var blocks2x2Of4x4: SparsityInfo {
        SparsityInfo(
            traversalOrder: [0, 1, 2, 3], blockMap: [0, 1],
            dimensions: [
                SparseDimension(format: .dense, denseSize: 2, segments: [], indices: []),
                SparseDimension(format: .sparseCSR, denseSize: 0, segments: [0, 1, 2], indices: [0, 1]),
                SparseDimension(format: .dense, denseSize: 2, segments: [], indices: []),
                SparseDimension(format: .dense, denseSize: 2, segments: [], indices: []),
            ])
    }
}

import Testing

@testable import TFLiteRuntime

/// FULLY_CONNECTED with sparse constant weights (`SparseWeights`), as the converter's
/// EXPERIMENTAL_SPARSITY writes them. The single-operator fixtures compare the encodings LiteRT runs
/// with its answers; these check the arithmetic by hand and that the encodings LiteRT refuses are
/// refused here too, with an error rather than a misread buffer.
struct SparseFullyConnectedTests {
    static let dense = SparseDimension(format: .dense, denseSize: 3, segments: [], indices: [])

    /// [[0, 7, 0], [0, 0, 0], [9, 0, 8]] as dense rows with CSR columns.
    static let csr = SparsityInfo(
        traversalOrder: [0, 1], blockMap: [],
        dimensions: [dense, SparseDimension(format: .sparseCSR, denseSize: 0, segments: [0, 1, 1, 3], indices: [1, 0, 2])])

    @Test func csrWeightsGiveTheDenseProduct() throws {
        let kit = ShapeOpsTestKit()
        let x = try kit.floats([1, 2, 3, -1, 0, 0.5], [2, 3])
        let w = try kit.tensor(.float32, [3, 3], bytes: ShapeOpsTestKit.bytes([Float(7), 9, 8]), constant: true, sparsity: Self.csr)
        let b = try kit.floats([0.5, -1, 0], [3], constant: true)
        let y = kit.output(.float32)
        try kit.run(.fullyConnected, [x, w, b], [y])
        #expect(y.shape == [2, 3])
        #expect(ShapeOpsTestKit.values(y, as: Float.self) == [14.5, -1, 33, 0.5, -1, -5])
    }

    @Test func encodingsLiteRTRefusesAreErrors() throws {
        let kit = ShapeOpsTestKit()
        // 2x2 blocks: four levels, which LiteRT's float kernel does not take.
        let blocks = SparsityInfo.blocks2x2Of4x4
        let w = try kit.tensor(.float32, [4, 4], bytes: ShapeOpsTestKit.bytes((1...8).map(Float.init)), constant: true, sparsity: blocks)
        expectShapeOpsError("unsupported sparse FLOAT32 fully-connected weight format") {
            try kit.run(.fullyConnected, [try kit.floats([Float](repeating: 1, count: 4), [1, 4]), w, nil], [kit.output(.float32)])
        }
        // int8 weights are read sparse in 1x16 blocks only; unblocked CSR is refused.
        let q = QuantizationInfo(scales: [1], zeroPoints: [0], quantizedDimension: 0, min: [], max: [])
        let w8 = try kit.tensor(.int8, [3, 3], bytes: [7, 9, 8], constant: true, quantization: q, sparsity: Self.csr)
        let x8 = try kit.tensor(.int8, [1, 3], bytes: [1, 2, 3], quantization: q)
        expectShapeOpsError("unsupported sparse INT8 fully-connected weight format") {
            try kit.run(.fullyConnected, [x8, w8, nil], [kit.output(.int8, quantization: q)])
        }
    }

    @Test func int8WeightsIn1x16BlocksGiveTheDenseProduct() throws {
        let kit = ShapeOpsTestKit()
        // Two rows of 32: row 0 stores its second block of 16, row 1 none.
        let blocked = SparsityInfo(
            traversalOrder: [0, 1, 2], blockMap: [1],
            dimensions: [
                SparseDimension(format: .dense, denseSize: 2, segments: [], indices: []),
                SparseDimension(format: .sparseCSR, denseSize: 0, segments: [0, 1, 1], indices: [1]),
                SparseDimension(format: .dense, denseSize: 16, segments: [], indices: []),
            ])
        let q = QuantizationInfo(scales: [1], zeroPoints: [0], quantizedDimension: 0, min: [], max: [])
        let stored = (1...16).map { UInt8(bitPattern: Int8($0 % 2 == 0 ? $0 : -$0)) }
        let w = try kit.tensor(.int8, [2, 32], bytes: stored, constant: true, quantization: q, sparsity: blocked)
        let x = try kit.tensor(.int8, [1, 32], bytes: [UInt8](repeating: 0, count: 16) + [UInt8](repeating: 1, count: 16), quantization: q)
        let y = kit.output(.int8, quantization: q)
        try kit.run(.fullyConnected, [x, w, nil], [y])
        // Row 0: the sum of ±1...±16 with the even ones positive is 8; row 1 has no weights.
        #expect(ShapeOpsTestKit.values(y, as: Int8.self) == [8, 0])
    }
}

/// TOPK_V2: the `k` (input 1: int32, or int16 from version 3) largest values along the last axis,
/// in descending order, with their positions (output 1: int32, or int16). Equal values keep their
/// original order and NaNs come last, as in LiteRT. Float32, int32, int64, int8, uint8 and int16
/// (quantized tensors compare their stored integers; the values output keeps the input's
/// quantization).
final class TopKKernel: OpKernel {
    private var k = 0
    /// Positions of one row, sorted in `eval`; sized in `prepare`.
    private var order: [Int] = []

    init(_ node: Node) throws { try node.expect(inputs: 2, outputs: 2) }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let kt = try node.input(1)
        try node.expect(x, type: .float32, .int32, .int64, .int8, .uint8, .int16, role: "input")
        try node.expect(kt, type: .int32, .int16, role: "k")
        let indexType = try node.output(1).type
        guard indexType == .int32 || indexType == .int16 else {
            throw node.error("indices output has type \(indexType.name); supported: INT32, INT16")
        }
        guard x.rank >= 1 else { throw node.error("input must have at least one dimension") }
        guard node.knowsValues(of: kt) else {
            node.markOutputsDynamic()
            return
        }
        k = try IndexingSupport.scalar(kt, node, role: "k", allowInt16: true)
        let row = x.shape[x.rank - 1]
        guard k >= 0, k <= row else { throw node.error("k \(k) is outside 0...\(row)") }
        guard indexType != .int16 || row <= Int(Int16.max) + 1 else {
            throw node.error("rows of \(row) do not fit INT16 indices")
        }
        var shape = x.shape
        shape[shape.count - 1] = k
        try node.setOutput(0, type: x.type, shape: shape)
        try node.setOutput(1, type: indexType, shape: shape)
        if order.count != row { order = [Int](repeating: 0, count: row) }
    }

    func eval(_ node: Node) throws {
        switch try node.input(0).type {
        case .float32: try run(Float.self, node)
        case .int32: try run(Int32.self, node)
        case .int64: try run(Int64.self, node)
        case .int8: try run(Int8.self, node)
        case .uint8: try run(UInt8.self, node)
        case .int16: try run(Int16.self, node)
        case let type: throw node.error("input type \(type.name) is not supported")
        }
    }

    private func run<T: Comparable>(_: T.Type, _ node: Node) throws {
        let xt = try node.input(0)
        let x = try node.elementwiseBuffer(xt, T.self, role: "input")
        let values = try node.elementwiseBuffer(try node.output(0), T.self, role: "values")
        let row = xt.shape[xt.rank - 1]
        let rows = row == 0 ? 0 : x.count / row
        guard row == order.count, values.count == rows * k else {
            throw node.error("tensor sizes do not match the prepared shapes")
        }
        let indexOutput = try node.output(1)
        let wideIndices = indexOutput.type == .int32
        let indices32 = wideIndices ? try node.elementwiseBuffer(indexOutput, Int32.self, role: "indices") : nil
        let indices16 = wideIndices ? nil : try node.elementwiseBuffer(indexOutput, Int16.self, role: "indices")
        guard (indices32?.count ?? indices16?.count) == values.count else {
            throw node.error("indices do not match the values")
        }
        let k = self.k
        order.withUnsafeMutableBufferPointer { order in
            for r in 0..<rows {
                let base = r * row
                for i in 0..<row { order[i] = i }
                // Larger first; equal values by position.
                order.sort { a, b in
                    let va = x[base + a]
                    let vb = x[base + b]
                    // NaN (the only value unequal to itself) ranks below every number, as in LiteRT.
                    let aIsNaN = va != va
                    let bIsNaN = vb != vb
                    if aIsNaN != bIsNaN { return bIsNaN }
                    if aIsNaN { return a < b }
                    return va > vb || (va == vb && a < b)
                }
                for j in 0..<k {
                    values[r * k + j] = x[base + order[j]]
                    if let indices32 { indices32[r * k + j] = Int32(truncatingIfNeeded: order[j]) }
                    if let indices16 { indices16[r * k + j] = Int16(truncatingIfNeeded: order[j]) }
                }
            }
        }
    }
}

/// SEGMENT_SUM and UNSORTED_SEGMENT_SUM / _PROD / _MAX / _MIN: rows of `data` (input 0) combined by
/// the segment id each carries (input 1, int32).
///
/// SEGMENT_SUM takes a vector of ids that start at 0 and grow by 0 or 1 from one row to the next
/// (as LiteRT requires); the output has `last id + 1` rows. The unsorted forms take ids shaped like a
/// prefix of `data`'s shape and the segment count in input 2; negative ids are skipped and ids
/// from `num_segments` on fail. Empty segments hold the operation's neutral element (0, 1, the lowest or the highest
/// value). Float32 and int32 (integers wrap), as in LiteRT.
final class SegmentKernel: OpKernel {
    enum Operation { case sum, prod, max, min }

    let operation: Operation
    let sorted: Bool
    /// Elements per id (the product of `data`'s dimensions past the ids' rank).
    private var slice = 0

    init(_ node: Node, _ operation: Operation, sorted: Bool) throws {
        self.operation = operation
        self.sorted = sorted
        try node.expect(inputs: sorted ? 2 : 3, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        let data = try node.input(0)
        let ids = try node.input(1)
        try node.expect(data, type: .float32, .int32, role: "data")
        try node.expect(ids, type: .int32, role: "segment_ids")
        guard ids.rank >= 1, ids.rank <= data.rank, Array(data.shape.prefix(ids.rank)) == ids.shape,
            !sorted || ids.rank == 1
        else { throw node.error("segment_ids shape \(ids.shape) does not fit data shape \(data.shape)") }
        slice = MoveSupport.product(data.shape, ids.rank..<data.rank)
        let countSource = sorted ? ids : try node.input(2)
        if !sorted { try node.expect(countSource, type: .int32, role: "num_segments") }
        guard node.knowsValues(of: countSource) else {
            node.markOutputsDynamic()
            return
        }
        let segments = try segmentCount(node)
        try node.setOutput(0, type: data.type, shape: [segments] + Array(data.shape[ids.rank...]))
    }

    private func segmentCount(_ node: Node) throws -> Int {
        if !sorted {
            let n = try IndexingSupport.scalar(try node.input(2), node, role: "num_segments")
            guard n >= 0 else { throw node.error("num_segments \(n) is negative") }
            return n
        }
        let ids = try node.elementwiseBuffer(try node.input(1), Int32.self, role: "segment_ids")
        var previous: Int32 = 0
        for (i, id) in ids.enumerated() {
            let step = id &- (i == 0 ? 0 : previous)
            guard step == 0 || step == 1 else {
                throw node.error("segment ids must start at 0 and grow by 0 or 1, found \(id) after \(previous)")
            }
            previous = id
        }
        return ids.isEmpty ? 0 : Int(previous) + 1
    }

    func eval(_ node: Node) throws {
        switch try node.input(0).type {
        case .float32:
            switch operation {
            case .sum: try run(Float.self, node, 0) { $0 + $1 }
            case .prod: try run(Float.self, node, 1) { $0 * $1 }
            case .max: try run(Float.self, node, -.greatestFiniteMagnitude) { $1 > $0 ? $1 : $0 }
            case .min: try run(Float.self, node, .greatestFiniteMagnitude) { $1 < $0 ? $1 : $0 }
            }
        default:
            switch operation {
            case .sum: try run(Int32.self, node, 0) { $0 &+ $1 }
            case .prod: try run(Int32.self, node, 1) { $0 &* $1 }
            case .max: try run(Int32.self, node, .min) { Swift.max($0, $1) }
            case .min: try run(Int32.self, node, .max) { Swift.min($0, $1) }
            }
        }
    }

    private func run<T>(_: T.Type, _ node: Node, _ neutral: T, _ combine: (T, T) -> T) throws {
        let x = try node.elementwiseBuffer(try node.input(0), T.self, role: "data")
        let ids = try node.elementwiseBuffer(try node.input(1), Int32.self, role: "segment_ids")
        let yt = try node.output(0)
        let y = try node.elementwiseBuffer(yt, T.self, role: "output")
        let segments = yt.shape.first ?? 0
        guard x.count == ids.count * slice, y.count == segments * slice else {
            throw node.error("tensor sizes do not match the prepared shapes")
        }
        for i in y.indices { y[i] = neutral }
        for (row, id) in ids.enumerated() {
            let s = Int(id)
            // LiteRT skips negative ids of the unsorted forms and fails on ids past the last segment.
            if s < 0 && !sorted { continue }
            guard s >= 0, s < segments else { throw node.error("segment id \(s) is outside 0..<\(segments)") }
            for j in 0..<slice { y[s * slice + j] = combine(y[s * slice + j], x[row * slice + j]) }
        }
    }
}

/// EMBEDDING_LOOKUP: rows of the table (input 1, rank ≥ 2) picked by the int32 ids of input 0
/// (a vector). The output has the table's type (any fixed-size type), or float32 for an int8, uint8
/// or int4 table (hybrid): each row is then dequantized as `q × scale` with the table's scale, or its
/// row's scale when quantized per row (LiteRT ignores the zero point and reads uint8 bytes as int8;
/// int4 tables hold two values per byte, the first in the low nibble, each row read from byte
/// `id · row / 2` as LiteRT reads it).
final class EmbeddingLookupKernel: OpKernel {
    init(_ node: Node) throws { try node.expect(inputs: 2, outputs: 1) }

    func prepare(_ node: Node) throws {
        let ids = try node.input(0)
        let table = try node.input(1)
        let y = try node.output(0)
        try node.expect(ids, type: .int32, role: "ids")
        if table.type != .int4 { try MoveSupport.expectMovable(table, node, role: "table") }
        guard ids.rank == 1, table.rank >= 2 else {
            throw node.error("ids must be a vector and the table have at least two dimensions")
        }
        let hybrid = y.type == .float32 && (table.type == .int8 || table.type == .uint8 || table.type == .int4)
        if table.type == .int4, !hybrid { throw node.error("an int4 table needs a float32 output") }
        if hybrid {
            guard let q = table.quantization, q.scales.count == 1 || q.scales.count == table.shape[0] else {
                throw node.error("a hybrid table needs one scale, or one per row")
            }
        }
        try node.setOutput(0, type: hybrid ? .float32 : table.type, shape: [ids.shape[0]] + Array(table.shape[1...]))
    }

    func eval(_ node: Node) throws {
        let ids = try node.elementwiseBuffer(try node.input(0), Int32.self, role: "ids")
        let table = try node.input(1)
        let y = try node.output(0)
        let rows = table.shape[0]
        let row = MoveSupport.product(table.shape, 1..<table.rank)
        if table.type == .int4 {
            try lookupInt4(ids: ids, table: table, row: row, output: y, node: node)
            return
        }
        let src = try MoveSupport.source(table, node, role: "table")
        let dst = try MoveSupport.destination(y, node, role: "output")
        let hybrid = y.type != table.type
        let size = table.type.byteSize
        let scales = table.quantization?.scales ?? []
        for (i, id) in ids.enumerated() {
            let r = Int(id)
            guard r >= 0, r < rows else { throw node.error("id \(r) is outside 0..<\(rows)") }
            if !hybrid {
                (dst + i * row * size).copyMemory(from: src + r * row * size, byteCount: row * size)
                continue
            }
            let scale = Double(scales.count > 1 ? scales[r] : scales[0])
            let q = (src + r * row).assumingMemoryBound(to: Int8.self)
            let out = (dst + i * row * 4).assumingMemoryBound(to: Float.self)
            for j in 0..<row { out[j] = Float(Double(q[j]) * scale) }
        }
    }

    /// The hybrid lookup from a packed int4 table.
    private func lookupInt4(
        ids: UnsafeMutableBufferPointer<Int32>, table: RuntimeTensor, row: Int, output y: RuntimeTensor, node: Node
    ) throws {
        try QuantizedOperand.checkBytes(table, node: node, role: "table")
        let rows = table.shape[0]
        let scales = table.quantization?.scales ?? []
        let dst = try MoveSupport.destination(y, node, role: "output").assumingMemoryBound(to: Float.self)
        guard row > 0 else { return }
        guard let packed = table.data?.assumingMemoryBound(to: UInt8.self) else {
            throw node.error("table has no data")
        }
        for (i, id) in ids.enumerated() {
            let r = Int(id)
            guard r >= 0, r < rows else { throw node.error("id \(r) is outside 0..<\(rows)") }
            let scale = Double(scales.count > 1 ? scales[r] : scales[0])
            // LiteRT starts a row at byte `r · row / 2` (rounded down), so a row that begins
            // mid-byte (odd row length, odd id) is read from the nibble before it; kept, as LiteRT.
            let start = r * row / 2 * 2
            for j in 0..<row {
                let e = start + j
                let byte = packed[e >> 1]
                let q = Int8(bitPattern: e & 1 == 0 ? byte << 4 : byte & 0xF0) >> 4
                dst[i * row + j] = Float(Double(q) * scale)
            }
        }
    }
}

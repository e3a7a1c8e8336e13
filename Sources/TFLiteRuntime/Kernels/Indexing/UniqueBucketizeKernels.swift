/// UNIQUE: the distinct values of a vector in order of first appearance (output 0, its length known
/// only from the values) and, per input element, the position of its value there (output 1, int32
/// or int64 per `UniqueOptions.idx_out_type`). Float32 (-0 equals 0), int32, int64, int8, uint8
/// and int16, as in LiteRT.
final class UniqueKernel: OpKernel {
    let indexType: TensorType

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 2)
        let raw = try UniqueParameters(node).indexType
        guard let type = TensorType(rawValue: raw), type == .int32 || type == .int64 else {
            throw node.error("idx_out_type \(raw) is not supported; supported: INT32, INT64")
        }
        indexType = type
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        try node.expect(x, type: .float32, .int32, .int64, .int8, .uint8, .int16, role: "input")
        guard x.rank == 1 else { throw node.error("input must be a vector, has shape \(x.shape)") }
        guard node.knowsValues(of: x) else {
            node.markOutputsDynamic()
            return
        }
        let count = try compute(node, write: false)
        try node.setOutput(0, type: x.type, shape: [count])
        try node.setOutput(1, type: indexType, shape: x.shape)
    }

    func eval(_ node: Node) throws { _ = try compute(node, write: true) }

    /// The number of distinct values; with `write`, also fills both outputs.
    private func compute(_ node: Node, write: Bool) throws -> Int {
        switch try node.input(0).type {
        case .float32: return try unique(Float.self, node, write)
        case .int32: return try unique(Int32.self, node, write)
        case .int64: return try unique(Int64.self, node, write)
        case .int8: return try unique(Int8.self, node, write)
        case .uint8: return try unique(UInt8.self, node, write)
        case .int16: return try unique(Int16.self, node, write)
        case let type: throw node.error("input type \(type.name) is not supported")
        }
    }

    private func unique<T: Hashable>(_: T.Type, _ node: Node, _ write: Bool) throws -> Int {
        let x = try node.elementwiseBuffer(try node.input(0), T.self, role: "input")
        var positions = [T: Int]()
        var values = [T]()
        var idx = [Int]()
        idx.reserveCapacity(x.count)
        for v in x {
            if let p = positions[v] {
                idx.append(p)
            } else {
                positions[v] = values.count
                idx.append(values.count)
                values.append(v)
            }
        }
        guard write else { return values.count }
        let y = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        guard y.count == values.count else { throw node.error("output does not match the prepared length") }
        for (i, v) in values.enumerated() { y[i] = v }
        let indexOutput = try node.output(1)
        if indexType == .int64 {
            let out = try node.elementwiseBuffer(indexOutput, Int64.self, role: "idx")
            guard out.count == idx.count else { throw node.error("idx does not match the input") }
            for (i, p) in idx.enumerated() { out[i] = Int64(p) }
        } else {
            let out = try node.elementwiseBuffer(indexOutput, Int32.self, role: "idx")
            guard out.count == idx.count else { throw node.error("idx does not match the input") }
            for (i, p) in idx.enumerated() { out[i] = Int32(truncatingIfNeeded: p) }
        }
        return values.count
    }
}

/// BUCKETIZE: for each element, the number of `BucketizeOptions.boundaries` (ascending floats) that
/// are less than or equal to it, as int32. Float32, float64, int32 and int64 inputs; as in LiteRT
/// an element is compared with the float boundaries in float (in double for float64 inputs).
final class BucketizeKernel: OpKernel {
    let boundaries: [Float]

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
        boundaries = try BucketizeParameters(node).boundaries
        for i in boundaries.indices.dropFirst() where !(boundaries[i - 1] <= boundaries[i]) {
            throw node.error("boundaries must be sorted ascending")
        }
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        try node.expect(x, type: .float32, .float64, .int32, .int64, role: "input")
        try node.setOutput(0, type: .int32, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let xt = try node.input(0)
        let y = try node.elementwiseBuffer(try node.output(0), Int32.self, role: "output")
        switch xt.type {
        case .float32: try run(try node.elementwiseBuffer(xt, Float.self, role: "input"), y, node) { Double($0) }
        case .float64: try run(try node.elementwiseBuffer(xt, Double.self, role: "input"), y, node) { $0 }
        case .int32: try run(try node.elementwiseBuffer(xt, Int32.self, role: "input"), y, node) { Double(Float($0)) }
        default: try run(try node.elementwiseBuffer(xt, Int64.self, role: "input"), y, node) { Double(Float($0)) }
        }
    }

    private func run<T>(
        _ x: UnsafeMutableBufferPointer<T>, _ y: UnsafeMutableBufferPointer<Int32>, _ node: Node, _ value: (T) -> Double
    ) throws {
        guard x.count == y.count else { throw node.error("output does not match the input") }
        let bounds = boundaries.map(Double.init)
        for i in x.indices {
            let v = value(x[i])
            // upper_bound: the first boundary greater than v.
            var lo = 0
            var hi = bounds.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if v < bounds[mid] { hi = mid } else { lo = mid + 1 }
            }
            y[i] = Int32(lo)
        }
    }
}

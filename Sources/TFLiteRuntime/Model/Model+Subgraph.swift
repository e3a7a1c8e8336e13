extension Model {
    static func readSubgraph(_ table: FlatTable, index: Int, buffers: [Range<Int>], opcodeCount: Int) throws
        -> ModelSubgraph
    {
        let what = "subgraph \(index)"
        var tensors = [ModelTensor]()
        for (t, tt) in try table.tableVector(0, name: { "\(what) tensor \($0)" }).enumerated() {
            tensors.append(try readTensor(tt, index: t, buffers: buffers))
        }
        let count = tensors.count
        func indices(_ field: Int, _ kind: String, allowOmitted: Bool) throws -> [Int] {
            let raw = try table.int32Vector(field) ?? []
            return try raw.map { v in
                let i = Int(v)
                guard (i >= 0 && i < count) || (allowOmitted && i == -1) else {
                    throw ModelError.invalidIndex(what: "\(what) \(kind)", index: i, count: count)
                }
                return i
            }
        }
        let inputs = try indices(1, "input", allowOmitted: false)
        let outputs = try indices(2, "output", allowOmitted: false)

        var ops = [ModelOperator]()
        for (n, ot) in try table.tableVector(3, name: { "\(what) operator \($0)" }).enumerated() {
            let opWhat = "\(what) operator \(n)"
            let opcode = Int(try ot.uint32(0))
            guard opcode < opcodeCount else {
                throw ModelError.invalidIndex(what: "\(opWhat) opcode", index: opcode, count: opcodeCount)
            }
            func opIndices(_ field: Int, _ kind: String) throws -> [Int] {
                try (ot.int32Vector(field) ?? []).map { v in
                    let i = Int(v)
                    guard (i >= 0 && i < count) || i == -1 else {
                        throw ModelError.invalidIndex(what: "\(opWhat) \(kind)", index: i, count: count)
                    }
                    return i
                }
            }
            let opInputs = try opIndices(1, "input")
            let opOutputs = try opIndices(2, "output")
            if let bad = opOutputs.first(where: { $0 < 0 }) {
                throw ModelError.invalidIndex(what: "\(opWhat) output", index: bad, count: count)
            }
            let intermediates = try opIndices(8, "intermediate").filter { $0 >= 0 }
            var optionsPosition: Int? = nil
            if let options = try ot.table(4, what: "\(opWhat) options") { optionsPosition = options.position }
            var options2Position: Int? = nil
            if let options2 = try ot.table(12, what: "\(opWhat) options 2") { options2Position = options2.position }
            var custom = try ot.byteRange(5)
            let largeOffset = try ot.uint64(9)
            let largeSize = try ot.uint64(10)
            if largeOffset > 1 {
                let fileSize = ot.bytes.count
                guard largeOffset <= UInt64(fileSize), largeSize <= UInt64(fileSize) - largeOffset else {
                    throw ModelError.outOfBounds(
                        what: "\(opWhat) custom options", offset: Int(clamping: largeOffset),
                        length: Int(clamping: largeSize), fileSize: fileSize)
                }
                custom = Int(largeOffset)..<Int(largeOffset + largeSize)
            }
            ops.append(
                ModelOperator(
                    opcodeIndex: opcode, inputs: opInputs, outputs: opOutputs, intermediates: intermediates,
                    builtinOptionsPosition: optionsPosition, customOptions: custom,
                    builtinOptions2Position: options2Position))
        }
        return ModelSubgraph(name: try table.string(4) ?? "", tensors: tensors, inputs: inputs, outputs: outputs, operators: ops)
    }

    static func readTensor(_ table: FlatTable, index: Int, buffers: [Range<Int>]) throws -> ModelTensor {
        let what = table.what
        let rawType = try table.int8(1)
        guard let type = TensorType(rawValue: rawType) else {
            throw ModelError.invalidValue(what: what, detail: "unknown tensor type \(rawType)")
        }
        let shape = try (table.int32Vector(0) ?? []).map(Int.init)
        var elements = 1
        for d in shape {
            guard d >= 0 else {
                throw ModelError.invalidValue(what: what, detail: "shape \(shape) has a negative dimension")
            }
            let (p, o) = elements.multipliedReportingOverflow(by: d)
            guard !o, p <= maxTensorBytes else {
                throw ModelError.invalidValue(what: what, detail: "shape \(shape) is too large")
            }
            elements = p
        }
        let buffer = Int(try table.uint32(2))
        guard buffer < max(buffers.count, 1) else {
            throw ModelError.invalidIndex(what: "\(what) buffer", index: buffer, count: buffers.count)
        }
        let sparsity = try table.table(6, what: "\(what) sparsity").map { try readSparsity($0) }
        let dataBytes = buffer < buffers.count ? buffers[buffer].count : 0
        if dataBytes > 0, sparsity == nil, type.byteSize > 0, dataBytes != elements * type.byteSize {
            throw ModelError.invalidValue(
                what: what,
                detail: "buffer \(buffer) holds \(dataBytes) bytes but shape \(shape) of \(type.name) needs \(elements * type.byteSize)")
        }
        var quantization: QuantizationInfo? = nil
        if let q = try table.table(4, what: "\(what) quantization") {
            let scales = try q.floatVector(2) ?? []
            let zeroPoints = try q.scalarVector(3, as: Int64.self) ?? []
            let dim = Int(try q.int32(6))
            if !scales.isEmpty {
                guard zeroPoints.isEmpty || zeroPoints.count == scales.count else {
                    throw ModelError.invalidValue(
                        what: "\(what) quantization",
                        detail: "\(scales.count) scales but \(zeroPoints.count) zero points")
                }
                if scales.count > 1 {
                    guard dim >= 0, dim < shape.count, shape[dim] == scales.count else {
                        throw ModelError.invalidValue(
                            what: "\(what) quantization",
                            detail: "\(scales.count) per-channel scales do not match dimension \(dim) of shape \(shape)")
                    }
                }
            }
            // Zero points must be representable in the tensor's type (kernels narrow them to Int32
            // and integer arithmetic relies on the range), and scales must be finite.
            let zeroPointRange: ClosedRange<Int64>
            switch type {
            case .uint8: zeroPointRange = 0...255
            case .int8: zeroPointRange = -128...127
            case .int16: zeroPointRange = -32768...32767
            default: zeroPointRange = Int64(Int32.min)...Int64(Int32.max)
            }
            if let bad = zeroPoints.first(where: { !zeroPointRange.contains($0) }) {
                throw ModelError.invalidValue(
                    what: "\(what) quantization", detail: "zero point \(bad) is outside the range of \(type.name)")
            }
            if let bad = scales.first(where: { !$0.isFinite }) {
                throw ModelError.invalidValue(what: "\(what) quantization", detail: "scale \(bad) is not finite")
            }
            quantization = QuantizationInfo(
                scales: scales, zeroPoints: zeroPoints.isEmpty ? Array(repeating: 0, count: scales.count) : zeroPoints,
                quantizedDimension: dim, min: try q.floatVector(0) ?? [], max: try q.floatVector(1) ?? [])
            if scales.isEmpty { quantization = nil }
        }
        return ModelTensor(
            name: try table.string(3) ?? "", type: type, shape: shape,
            shapeSignature: try table.int32Vector(7)?.map(Int.init), buffer: buffer, quantization: quantization,
            sparsity: sparsity, isVariable: try table.bool(5))
    }

    static func readSparsity(_ table: FlatTable) throws -> SparsityInfo {
        let order = try (table.int32Vector(0) ?? []).map(Int.init)
        let blockMap = try (table.int32Vector(1) ?? []).map(Int.init)
        var dims = [SparseDimension]()
        for dt in try table.tableVector(2, name: { "\(table.what) dimension \($0)" }) {
            let rawFormat = try dt.int8(0)
            guard let format = SparseDimension.Format(rawValue: rawFormat) else {
                throw ModelError.invalidValue(what: dt.what, detail: "unknown dimension format \(rawFormat)")
            }
            func indexVector(typeField: Int, valueField: Int) throws -> [Int] {
                let kind = try dt.uint8(typeField)
                guard let vt = try dt.table(valueField, what: "\(dt.what) index vector") else { return [] }
                switch kind {
                case 1: return try (vt.scalarVector(0, as: Int32.self) ?? []).map(Int.init)
                case 2: return try (vt.scalarVector(0, as: UInt16.self) ?? []).map(Int.init)
                case 3: return try (vt.scalarVector(0, as: UInt8.self) ?? []).map(Int.init)
                default: throw ModelError.invalidValue(what: dt.what, detail: "unknown index vector type \(kind)")
                }
            }
            dims.append(
                SparseDimension(
                    format: format, denseSize: Int(try dt.int32(1)),
                    segments: format == .sparseCSR ? try indexVector(typeField: 2, valueField: 3) : [],
                    indices: format == .sparseCSR ? try indexVector(typeField: 4, valueField: 5) : []))
        }
        return SparsityInfo(traversalOrder: order, blockMap: blockMap, dimensions: dims)
    }
}

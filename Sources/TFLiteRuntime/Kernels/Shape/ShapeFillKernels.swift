/// SHAPE: the input's dimensions as an int32 (default) or int64 vector (`ShapeOptions.out_type`).
///
/// The values depend only on the input's shape, which is known while preparing, so they are written
/// then and the output is bound as a constant: later shape computations (RESHAPE, FILL, SLICE) can
/// read them without deferring to run time.
final class ShapeKernel: OpKernel {
    private let outputType: TensorType
    private let folded = FoldedOutputs()

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
        if let raw = try ShapeParameters(node).outputType {
            guard raw == TensorType.int32.rawValue || raw == TensorType.int64.rawValue else {
                throw node.error("output type \(TensorType(rawValue: raw)?.name ?? "\(raw)") is not INT32 or INT64")
            }
            outputType = raw == TensorType.int64.rawValue ? .int64 : .int32
        } else {
            outputType = .int32
        }
    }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let x = try node.input(0)
        try node.setOutput(0, type: outputType, shape: [x.rank])
        if !node.isRunning { try folded.fold(node) { try write(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try write(node)
    }

    private func write(_ node: Node) throws {
        let dims = try node.input(0).shape
        let y = try node.output(0)
        let out = try MoveSupport.destination(y, node, role: "output")
        for (i, d) in dims.enumerated() {
            if outputType == .int64 {
                out.storeBytes(of: Int64(d), toByteOffset: i * 8, as: Int64.self)
            } else {
                guard let v = Int32(exactly: d) else { throw node.error("dimension \(d) does not fit INT32") }
                out.storeBytes(of: v, toByteOffset: i * 4, as: Int32.self)
            }
        }
    }
}

/// FILL: a tensor of the shape given by input 0 (int32/int64 vector) with every element equal to
/// the one-element input 1; the output type is the value's type.
final class FillKernel: OpKernel {
    private let folded = FoldedOutputs()

    init(_ node: Node) throws { try node.expect(inputs: 2, outputs: 1) }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let dims = try node.input(0), value = try node.input(1)
        guard dims.rank == 1 else { throw node.error("dims must be a vector, has shape \(dims.shape)") }
        guard dims.type == .int32 || dims.type == .int64 else {
            throw node.error("dims has type \(dims.type.name); it must be INT32 or INT64")
        }
        if value.type != .string { try MoveSupport.expectMovable(value, node, role: "value") }
        guard value.elementCount == 1 else {
            throw node.error("value must be a scalar, has shape \(value.shape)")
        }
        guard node.knowsValues(of: dims) else {
            node.markOutputsDynamic()
            return
        }
        let shape = try MoveSupport.integers(dims, node, role: "dims")
        guard shape.allSatisfy({ $0 >= 0 }) else { throw node.error("dims \(shape) has a negative dimension") }
        try node.setOutput(0, type: value.type, shape: shape)
        if value.type != .string, MoveSupport.allInputsConstant(node) { try folded.fold(node) { try fill(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try fill(node)
    }

    private func fill(_ node: Node) throws {
        let value = try node.input(1), y = try node.output(0)
        if value.type == .string {
            let word = try value.strings("value")
            return try y.setStrings([[UInt8]](repeating: word.first ?? [], count: y.elementCount))
        }
        let pattern = try MoveSupport.source(value, node, role: "value")
        let out = try MoveSupport.destination(y, node, role: "output")
        MoveSupport.fill(out, count: y.elementCount, pattern: pattern, elementSize: value.type.byteSize)
    }
}

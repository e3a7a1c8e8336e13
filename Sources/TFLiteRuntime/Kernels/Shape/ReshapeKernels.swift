/// RESHAPE, SQUEEZE and EXPAND_DIMS: the output holds the input's bytes under another shape.
///
/// Each operator only supplies a rule for the new shape; `ByteCopyKernel` does the rest (the copy,
/// and folding when the input is a constant, as LiteRT does for RESHAPE).
final class ByteCopyKernel: OpKernel {
    /// The output shape for an input; nil when it depends on values not known yet.
    typealias ShapeRule = (Node, RuntimeTensor) throws -> [Int]?

    private let folded = FoldedOutputs()
    private let outputShape: ShapeRule

    /// The bytes copied, for the shapes of the last prepare (0 when not known then, or strings).
    private var preparedBytes = 0

    init(_ rule: @escaping ShapeRule) { outputShape = rule }

    func prepare(_ node: Node) throws {
        preparedBytes = 0
        try folded.reset(node)
        let x = try node.input(0)
        if x.type != .string { try MoveSupport.expectMovable(x, node, role: "input") }
        guard let shape = try outputShape(node, x) else {
            node.markOutputsDynamic()
            return
        }
        guard MoveSupport.elementCount(shape) == x.elementCount else {
            throw node.error("cannot reshape \(x.shape) (\(x.elementCount) elements) to \(shape)")
        }
        try node.setOutput(0, type: x.type, shape: shape)
        if x.type != .string { preparedBytes = x.requiredBytes }
        if x.type != .string, MoveSupport.allInputsConstant(node) { try folded.fold(node) { try copy(node) } }
    }

    /// The copy's addresses when both tensors hold the prepared bytes (resolved apart, so that no
    /// tensor is retained across the copy).
    @inline(never)
    private func preparedAddresses(_ node: Node) -> (UnsafeRawPointer, UnsafeMutableRawPointer)? {
        guard preparedBytes > 0, let x = node.inputs[0], let y = node.outputs.first, x.byteCount >= preparedBytes,
            y.byteCount >= preparedBytes, let source = x.data, let destination = y.data
        else { return nil }
        return (UnsafeRawPointer(source), destination)
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        if let (source, destination) = preparedAddresses(node) {
            if UnsafeRawPointer(destination) != source { destination.copyMemory(from: source, byteCount: preparedBytes) }
            return
        }
        try copy(node)
    }

    private func copy(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        if x.type == .string { return try y.setStrings(try x.strings("input")) }
        guard x.requiredBytes == y.requiredBytes, x.type.byteSize == y.type.byteSize else {
            throw node.error("output \(y.shape) does not match input \(x.shape)")
        }
        let source = try MoveSupport.source(x, node, role: "input")
        let destination = try MoveSupport.destination(y, node, role: "output")
        if UnsafeRawPointer(destination) != source {
            destination.copyMemory(from: source, byteCount: x.requiredBytes)
        }
    }
}

/// The shape rules of the reshaping operators.
enum ReshapeRules {
    /// RESHAPE: the new shape comes from input 1 when it is a vector, else from
    /// `ReshapeOptions.new_shape`; one dimension may be -1.
    static func reshape(_ node: Node) throws -> OpKernel {
        try node.expect(inputs: 1, 2, outputs: 1)
        let optionShape = try ShapeListParameters(node).dimensions
        return ByteCopyKernel { node, input in try reshapeShape(node, input, optionShape) }
    }

    private static func reshapeShape(_ node: Node, _ input: RuntimeTensor, _ optionShape: [Int]?) throws -> [Int]? {
        var requested: [Int]
        if let shapeTensor = node.optionalInput(1), shapeTensor.rank == 1,
            shapeTensor.type == .int32 || shapeTensor.type == .int64
        {
            guard node.knowsValues(of: shapeTensor) else { return nil }
            requested = try MoveSupport.integers(shapeTensor, node, role: "shape")
        } else {
            requested = optionShape ?? []
            // Old converters wrote [0] for a scalar result.
            if requested == [0] { requested = [] }
        }
        return try resolve(requested, elements: input.shape, node)
    }

    /// Replaces the single -1 of `requested` so the element count matches `elements`' (LiteRT's rule,
    /// including zero-sized tensors, where the -1 becomes 0 or the product of the non-zero dimensions).
    static func resolve(_ requested: [Int], elements inputShape: [Int], _ node: Node) throws -> [Int] {
        var shape = requested
        var stretch: Int? = nil
        var nonZeroOutput = 1
        for (i, d) in requested.enumerated() {
            if d == -1 {
                guard stretch == nil else { throw node.error("new shape \(requested) has more than one -1") }
                stretch = i
                continue
            }
            guard d >= 0 else { throw node.error("new shape \(requested) has a negative dimension") }
            if d != 0 {
                let (p, o) = nonZeroOutput.multipliedReportingOverflow(by: d)
                guard !o, p <= Model.maxTensorBytes else { throw node.error("new shape \(requested) is too large") }
                nonZeroOutput = p
            }
        }
        if let s = stretch {
            let inputCount = MoveSupport.product(inputShape, 0..<inputShape.count)
            let outputCountWithoutStretch = requested.contains(0) ? 0 : nonZeroOutput
            if inputCount == 0 && outputCountWithoutStretch != 0 {
                shape[s] = 0
            } else {
                var nonZeroInput = 1
                for d in inputShape where d != 0 {
                    let (p, o) = nonZeroInput.multipliedReportingOverflow(by: d)
                    guard !o else { throw node.error("input shape \(inputShape) is too large to reshape") }
                    nonZeroInput = p
                }
                shape[s] = nonZeroInput / nonZeroOutput
            }
        }
        return shape
    }

    /// SQUEEZE: drops the size-1 dimensions listed in `SqueezeOptions.squeeze_dims`, or all of them.
    static func squeeze(_ node: Node) throws -> OpKernel {
        try node.expect(inputs: 1, outputs: 1)
        let dims = try ShapeListParameters(node).dimensions ?? []
        return ByteCopyKernel { node, input in try squeezeShape(node, input, dims) }
    }

    private static func squeezeShape(_ node: Node, _ input: RuntimeTensor, _ dims: [Int]) throws -> [Int]? {
        let shape = input.shape
        var drop = [Bool](repeating: false, count: shape.count)
        if dims.isEmpty {
            for (i, d) in shape.enumerated() where d == 1 { drop[i] = true }
        } else {
            for d in dims {
                let axis = try MoveSupport.axis(d, rank: shape.count, node, role: "squeeze dimension")
                guard shape[axis] == 1 else {
                    throw node.error("cannot squeeze dimension \(d) of size \(shape[axis]) in \(shape)")
                }
                drop[axis] = true
            }
        }
        return shape.indices.filter { !drop[$0] }.map { shape[$0] }
    }

    /// EXPAND_DIMS: inserts a dimension of size 1 at the axis given by input 1.
    static func expandDims(_ node: Node) throws -> OpKernel {
        try node.expect(inputs: 2, outputs: 1)
        return ByteCopyKernel { node, input in try expandedShape(node, input) }
    }

    private static func expandedShape(_ node: Node, _ input: RuntimeTensor) throws -> [Int]? {
        let axisTensor = try node.input(1)
        guard node.knowsValues(of: axisTensor) else { return nil }
        let axis = try MoveSupport.axis(
            MoveSupport.scalarInteger(axisTensor, node, role: "axis"), rank: input.rank + 1, node, role: "axis")
        var shape = input.shape
        shape.insert(1, at: axis)
        return shape
    }
}

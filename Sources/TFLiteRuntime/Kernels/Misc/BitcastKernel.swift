/// BITCAST: reinterprets the input's bytes as the output's type (any two fixed-size types).
///
/// Same element size: same shape. A larger input element adds a last dimension of
/// `inputSize / outputSize`; a smaller one requires the last dimension to be
/// `outputSize / inputSize` and drops it. No options.
final class BitcastKernel: OpKernel {
    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let target = try node.output(0).type
        let inSize = x.type.byteSize
        let outSize = target.byteSize
        guard inSize > 0, outSize > 0 else {
            throw node.error("cannot bitcast \(x.type.name) to \(target.name): both need a fixed element size")
        }
        var shape = x.shape
        if inSize > outSize {
            guard inSize % outSize == 0 else { throw node.error("\(x.type.name) is not a multiple of \(target.name)") }
            shape.append(inSize / outSize)
        } else if inSize < outSize {
            guard outSize % inSize == 0 else { throw node.error("\(target.name) is not a multiple of \(x.type.name)") }
            guard let last = shape.last, last == outSize / inSize else {
                throw node.error(
                    "the last dimension must be \(outSize / inSize) to make \(target.name); shape is \(x.shape)")
            }
            shape.removeLast()
        }
        try node.setOutput(0, type: target, shape: shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        let source = x.raw
        let destination = y.raw
        guard destination.count >= y.requiredBytes else { throw node.error("output has no memory for its shape") }
        let n = min(source.count, destination.count)
        guard n > 0, let s = source.baseAddress, let d = destination.baseAddress, s != d else { return }
        d.copyMemory(from: s, byteCount: n)
        if n < destination.count {
            (d + n).initializeMemory(as: UInt8.self, repeating: 0, count: destination.count - n)
        }
    }
}

/// STABLEHLO_ADD, STABLEHLO_MULTIPLY, STABLEHLO_MAXIMUM, STABLEHLO_MINIMUM, STABLEHLO_AND and
/// STABLEHLO_SHIFT_LEFT: elementwise on two operands of one type and one shape (no broadcasting).
///
/// Types as LiteRT's kernels take them: float32, float16, float64, int8, int16, int32, int64, uint8,
/// uint16, uint32, uint64 and bool for the arithmetic four; bool and the integers for AND; int8, int16 and
/// int32 for SHIFT_LEFT. Quantized tensors are treated as their raw integers (LiteRT does the same).
/// Integer results wrap, as C++'s arithmetic on the promoted values truncated to the type does; for
/// bool, ADD and MAXIMUM are OR, MULTIPLY, MINIMUM and AND are AND. MAXIMUM is `a < b ? b : a` and
/// MINIMUM `b < a ? b : a` (std::max/min), which decides which NaN or signed zero comes out.
final class StableHLOBinaryKernel: OpKernel {
    enum Operation { case add, multiply, maximum, minimum, and, shiftLeft }

    let operation: Operation

    init(_ node: Node, _ operation: Operation) throws {
        self.operation = operation
    }

    private func supports(_ type: TensorType) -> Bool {
        switch operation {
        case .add, .multiply, .maximum, .minimum:
            return [.float32, .float16, .float64, .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64,
                .bool].contains(type)
        case .and:
            return [.bool, .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64].contains(type)
        case .shiftLeft:
            return [.int8, .int16, .int32].contains(type)
        }
    }

    func prepare(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        let a = try node.input(0)
        let b = try node.input(1)
        guard a.type == b.type else {
            throw node.error("operands have different types (\(a.type.name), \(b.type.name))")
        }
        guard a.shape == b.shape else { throw node.error("operand shapes \(a.shape) and \(b.shape) differ") }
        guard supports(a.type) else { throw node.error("type \(a.type.name) is not supported") }
        try node.setOutput(0, type: a.type, shape: a.shape)
    }

    func eval(_ node: Node) throws {
        let type = try node.input(0).type
        switch type {
        case .float32: try floats(node, Float.self)
        case .float64: try floats(node, Double.self)
        case .float16: try halves(node)
        case .int8: try integers(node, Int8.self)
        case .int16: try integers(node, Int16.self)
        case .int32: try integers(node, Int32.self)
        case .int64: try integers(node, Int64.self)
        case .uint8: try integers(node, UInt8.self)
        case .uint16: try integers(node, UInt16.self)
        case .uint32: try integers(node, UInt32.self)
        case .uint64: try integers(node, UInt64.self)
        case .bool: try bools(node)
        default: throw node.error("type \(type.name) is not supported")
        }
    }

    private func buffers<T>(_ node: Node, _: T.Type) throws
        -> (UnsafeMutableBufferPointer<T>, UnsafeMutableBufferPointer<T>, UnsafeMutableBufferPointer<T>)
    {
        let a = try node.elementwiseBuffer(try node.input(0), T.self, role: "operand 0")
        let b = try node.elementwiseBuffer(try node.input(1), T.self, role: "operand 1")
        let o = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        guard a.count == o.count, b.count == o.count else { throw node.error("operand sizes differ from the output") }
        return (a, b, o)
    }

    private func integers<T: FixedWidthInteger>(_ node: Node, _: T.Type) throws {
        let (a, b, o) = try buffers(node, T.self)
        let n = o.count
        switch operation {
        case .add: for i in 0..<n { o[i] = a[i] &+ b[i] }
        case .multiply: for i in 0..<n { o[i] = a[i] &* b[i] }
        case .maximum: for i in 0..<n { o[i] = a[i] < b[i] ? b[i] : a[i] }
        case .minimum: for i in 0..<n { o[i] = b[i] < a[i] ? b[i] : a[i] }
        case .and: for i in 0..<n { o[i] = a[i] & b[i] }
        case .shiftLeft:
            // C++ shifts the value promoted to int; amounts outside 0..<32 are undefined there and
            // give 0 here (StableHLO's definition).
            for i in 0..<n {
                let amount = Int64(truncatingIfNeeded: b[i])
                let value = Int64(truncatingIfNeeded: a[i])
                o[i] = amount >= 0 && amount < 32 ? T(truncatingIfNeeded: value << amount) : 0
            }
        }
    }

    private func floats<T: BinaryFloatingPoint>(_ node: Node, _: T.Type) throws {
        let (a, b, o) = try buffers(node, T.self)
        let n = o.count
        switch operation {
        case .add: for i in 0..<n { o[i] = a[i] + b[i] }
        case .multiply: for i in 0..<n { o[i] = a[i] * b[i] }
        case .maximum: for i in 0..<n { o[i] = a[i] < b[i] ? b[i] : a[i] }
        case .minimum: for i in 0..<n { o[i] = b[i] < a[i] ? b[i] : a[i] }
        case .and, .shiftLeft: throw node.error("floating-point operands are not supported")
        }
    }

    /// float16 as Eigen::half computes: each operation in float, rounded back to half.
    private func halves(_ node: Node) throws {
        let (a, b, o) = try buffers(node, UInt16.self)
        for i in 0..<o.count {
            let x = HalfPrecision.float(fromHalf: a[i])
            let y = HalfPrecision.float(fromHalf: b[i])
            switch operation {
            case .add: o[i] = HalfPrecision.half(from: x + y)
            case .multiply: o[i] = HalfPrecision.half(from: x * y)
            case .maximum: o[i] = x < y ? b[i] : a[i]
            case .minimum: o[i] = y < x ? b[i] : a[i]
            case .and, .shiftLeft: throw node.error("floating-point operands are not supported")
            }
        }
    }

    private func bools(_ node: Node) throws {
        let (a, b, o) = try buffers(node, UInt8.self)
        let n = o.count
        switch operation {
        case .add, .maximum: for i in 0..<n { o[i] = (a[i] != 0 || b[i] != 0) ? 1 : 0 }
        case .multiply, .minimum, .and: for i in 0..<n { o[i] = (a[i] != 0 && b[i] != 0) ? 1 : 0 }
        case .shiftLeft: throw node.error("bool operands are not supported")
        }
    }
}

import Foundation

/// POW, ATAN2, RIGHT_SHIFT and BITWISE_XOR: two operands of one type, NumPy broadcasting, an output
/// of that type. No options.
///
/// Types, as LiteRT 2.3 accepts them: POW float32 (C's `powf`) and int32 (`pow` in double, a result
/// out of range giving `Int32.min` as on x86; a negative exponent is an error, as in LiteRT); ATAN2 float32 (`atan2f`),
/// float64 and float16 (computed in float32, rounded back); RIGHT_SHIFT and BITWISE_XOR on int8,
/// int16, int32, uint8, uint16 and uint32, the shift arithmetic for signed types and its count
/// clamped to [0, bits − 1] so no value is undefined.
final class MathBinaryKernel: OpKernel {
    enum Operator {
        case pow, atan2, rightShift, bitwiseXor

        init?(_ code: BuiltinOperator) {
            switch code {
            case .pow: self = .pow
            case .atan2: self = .atan2
            case .rightShift: self = .rightShift
            case .bitwiseXor: self = .bitwiseXor
            default: return nil
            }
        }

        var supportedTypes: [TensorType] {
            switch self {
            case .pow: return [.float32, .int32]
            case .atan2: return [.float32, .float64, .float16]
            case .rightShift, .bitwiseXor: return [.int8, .int16, .int32, .uint8, .uint16, .uint32]
            }
        }
    }

    let op: Operator
    private var plan: BroadcastPlan?

    init(_ node: Node, _ op: Operator) throws {
        self.op = op
        try node.expect(inputs: 2, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        let a = try node.input(0)
        let b = try node.input(1)
        guard a.type == b.type else {
            throw node.error("inputs have different types, \(a.type.name) and \(b.type.name)")
        }
        guard op.supportedTypes.contains(a.type) else {
            throw node.error(
                "input type \(a.type.name) is not supported; supported: "
                    + op.supportedTypes.map(\.name).joined(separator: ", ")
            )
        }
        guard let plan = BroadcastPlan(a.shape, b.shape) else {
            throw node.error("input shapes \(a.shape) and \(b.shape) cannot be broadcast together")
        }
        self.plan = plan
        try node.setOutput(0, type: a.type, shape: plan.outputShape)
    }

    func eval(_ node: Node) throws {
        guard let plan else { throw node.error("eval before prepare") }
        switch (op, try node.input(0).type) {
        case (.pow, .float32): try run(node, plan, Float.self) { Foundation.pow($0, $1) }
        case (.pow, .int32):
            let exponents = try node.elementwiseBuffer(try node.input(1), Int32.self, role: "input 1")
            if exponents.contains(where: { $0 < 0 }) { throw node.error("integer POW needs exponents of 0 or more") }
            try run(node, plan, Int32.self, MathBinaryKernel.integerPower)
        case (.atan2, .float32): try run(node, plan, Float.self) { Foundation.atan2($0, $1) }
        case (.atan2, .float64): try run(node, plan, Double.self) { Foundation.atan2($0, $1) }
        case (.atan2, .float16):
            try run(node, plan, UInt16.self) {
                HalfPrecision.half(
                    from: Foundation.atan2(HalfPrecision.float(fromHalf: $0), HalfPrecision.float(fromHalf: $1)))
            }
        case (.rightShift, .int8): try run(node, plan, Int8.self, MathBinaryKernel.shiftRight)
        case (.rightShift, .int16): try run(node, plan, Int16.self, MathBinaryKernel.shiftRight)
        case (.rightShift, .int32): try run(node, plan, Int32.self, MathBinaryKernel.shiftRight)
        case (.rightShift, .uint8): try run(node, plan, UInt8.self, MathBinaryKernel.shiftRight)
        case (.rightShift, .uint16): try run(node, plan, UInt16.self, MathBinaryKernel.shiftRight)
        case (.rightShift, .uint32): try run(node, plan, UInt32.self, MathBinaryKernel.shiftRight)
        case (.bitwiseXor, .int8): try run(node, plan, Int8.self) { $0 ^ $1 }
        case (.bitwiseXor, .int16): try run(node, plan, Int16.self) { $0 ^ $1 }
        case (.bitwiseXor, .int32): try run(node, plan, Int32.self) { $0 ^ $1 }
        case (.bitwiseXor, .uint8): try run(node, plan, UInt8.self) { $0 ^ $1 }
        case (.bitwiseXor, .uint16): try run(node, plan, UInt16.self) { $0 ^ $1 }
        case (.bitwiseXor, .uint32): try run(node, plan, UInt32.self) { $0 ^ $1 }
        case (_, let type): throw node.error("input type \(type.name) is not supported")
        }
    }

    /// `base^exponent` as LiteRT computes it: `pow` in double precision, converted as x86 does, so a
    /// result beyond the int32 range gives `Int32.min` (LiteRT 2.3's outputs show exactly that).
    static func integerPower(_ base: Int32, _ exponent: Int32) -> Int32 {
        let r = Foundation.pow(Double(base), Double(exponent))
        return r.isNaN || r >= 2_147_483_648 || r <= -2_147_483_649 ? Int32.min : Int32(r)
    }

    /// `x >> y` with `y` clamped to [0, bits − 1].
    static func shiftRight<T: FixedWidthInteger>(_ x: T, _ y: T) -> T {
        let count = y < 0 ? 0 : Swift.min(Int(y), T.bitWidth - 1)
        return x >> count
    }

    private func run<T>(_ node: Node, _ plan: BroadcastPlan, _: T.Type, _ f: (T, T) -> T) throws {
        let a = try node.elementwiseBuffer(try node.input(0), T.self, role: "input 0")
        let b = try node.elementwiseBuffer(try node.input(1), T.self, role: "input 1")
        let out = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        guard out.count == plan.outputCount else { throw node.error("output is not sized for the broadcast shape") }
        guard let pa = a.baseAddress, let pb = b.baseAddress, let po = out.baseAddress else { return }
        plan.map(UnsafePointer(pa), UnsafePointer(pb), po, f)
    }
}

/// EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER and GREATER_EQUAL: a bool tensor of the NumPy
/// broadcast shape of two operands of one type.
///
/// Types: float32, float16 (compared as float32, which is exact), int16, int32, int64, bool (EQUAL and
/// NOT_EQUAL only) and quantized uint8/int8. No options. Quantized operands may have different scales
/// and zero points: as in LiteRT, each is offset by its zero point, shifted left by 8 bits and
/// multiplied by its own scale as a Q31 fixed-point multiplier (`ComparisonWithScaling`), and the
/// two results are compared as integers.
final class ComparisonKernel: OpKernel {
    enum Operator {
        case equal, notEqual, less, lessEqual, greater, greaterEqual

        init?(_ code: BuiltinOperator) {
            switch code {
            case .equal: self = .equal
            case .notEqual: self = .notEqual
            case .less: self = .less
            case .lessEqual: self = .lessEqual
            case .greater: self = .greater
            case .greaterEqual: self = .greaterEqual
            default: return nil
            }
        }

        var isEquality: Bool { self == .equal || self == .notEqual }
    }

    /// LiteRT's fixed left shift before the quantized operands are rescaled.
    static let quantizedLeftShift = 8

    let op: Operator
    private var plan: BroadcastPlan?
    /// Rescaling of each quantized operand: its negated zero point and its scale as a multiplier.
    private var rescaleA = (offset: Int32(0), multiplier: FixedPoint.Multiplier(multiplier: 0, shift: 0))
    private var rescaleB = (offset: Int32(0), multiplier: FixedPoint.Multiplier(multiplier: 0, shift: 0))

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
        switch a.type {
        case .float32, .float16, .int16, .int32, .int64:
            break
        case .bool where op.isEquality, .string where op.isEquality:
            break
        case .uint8, .int8:
            for t in [a, b] {
                guard t.quantization != nil, t.scale > 0, t.scale.isFinite else {
                    throw node.error("quantized \(t.type.name) input needs a positive scale, has \(t.scale)")
                }
            }
            rescaleA = (Int32(-a.zeroPoint), FixedPoint.quantizeMultiplier(Double(a.scale)))
            rescaleB = (Int32(-b.zeroPoint), FixedPoint.quantizeMultiplier(Double(b.scale)))
        default:
            throw node.error("input type \(a.type.name) is not supported")
        }
        guard let plan = BroadcastPlan(a.shape, b.shape) else {
            throw node.error("input shapes \(a.shape) and \(b.shape) cannot be broadcast together")
        }
        self.plan = plan
        try node.setOutput(0, type: .bool, shape: plan.outputShape)
    }

    func eval(_ node: Node) throws {
        guard let plan else { throw node.error("eval before prepare") }
        let a = try node.input(0)
        let b = try node.input(1)
        let out = try node.elementwiseBuffer(try node.output(0), Bool.self, role: "output")
        guard out.count == plan.outputCount else { throw node.error("output is not sized for the broadcast shape") }
        switch a.type {
        case .float32: try compare(node, Float.self, a, b, out, plan)
        case .int16: try compare(node, Int16.self, a, b, out, plan)
        case .int32: try compare(node, Int32.self, a, b, out, plan)
        case .int64: try compare(node, Int64.self, a, b, out, plan)
        case .bool: try compare(node, UInt8.self, a, b, out, plan)
        case .string:
            // Strings compare byte for byte; the broadcast runs over their positions.
            let sa = try a.strings("input 0"), sb = try b.strings("input 1")
            let pa = (0..<sa.count).map { Int32($0) }, pb = (0..<sb.count).map { Int32($0) }
            let equal = op == .equal
            guard let outBase = out.baseAddress else { return }
            pa.withUnsafeBufferPointer { x in
                pb.withUnsafeBufferPointer { y in
                    guard let px = x.baseAddress, let py = y.baseAddress else { return }
                    plan.map(px, py, outBase) { i, j in (sa[Int(i)] == sb[Int(j)]) == equal }
                }
            }
        case .float16:
            let x = try widened(node, a, "input 0") { HalfPrecision.float(fromHalf: $0) }
            let y = try widened(node, b, "input 1") { HalfPrecision.float(fromHalf: $0) }
            try compare(x, y, out, plan)
        case .uint8:
            try compare(
                try rescaled(node, UInt8.self, a, rescaleA), try rescaled(node, UInt8.self, b, rescaleB), out, plan)
        case .int8:
            try compare(
                try rescaled(node, Int8.self, a, rescaleA), try rescaled(node, Int8.self, b, rescaleB), out, plan)
        case let type:
            throw node.error("input type \(type.name) is not supported")
        }
    }

    private func compare<T: Comparable>(
        _ node: Node, _: T.Type, _ a: RuntimeTensor, _ b: RuntimeTensor, _ out: UnsafeMutableBufferPointer<Bool>,
        _ plan: BroadcastPlan
    ) throws {
        let x = try node.elementwiseBuffer(a, T.self, role: "input 0")
        let y = try node.elementwiseBuffer(b, T.self, role: "input 1")
        try compare(UnsafeBufferPointer(x), UnsafeBufferPointer(y), out, plan)
    }

    private func compare<T: Comparable>(
        _ x: [T], _ y: [T], _ out: UnsafeMutableBufferPointer<Bool>, _ plan: BroadcastPlan
    ) throws {
        try x.withUnsafeBufferPointer { x in
            try y.withUnsafeBufferPointer { y in try compare(x, y, out, plan) }
        }
    }

    private func compare<T: Comparable>(
        _ x: UnsafeBufferPointer<T>, _ y: UnsafeBufferPointer<T>, _ out: UnsafeMutableBufferPointer<Bool>,
        _ plan: BroadcastPlan
    ) throws {
        guard let pa = x.baseAddress, let pb = y.baseAddress, let po = out.baseAddress else { return }
        switch op {
        case .equal: plan.map(pa, pb, po) { $0 == $1 }
        case .notEqual: plan.map(pa, pb, po) { $0 != $1 }
        case .less: plan.map(pa, pb, po) { $0 < $1 }
        case .lessEqual: plan.map(pa, pb, po) { $0 <= $1 }
        case .greater: plan.map(pa, pb, po) { $0 > $1 }
        case .greaterEqual: plan.map(pa, pb, po) { $0 >= $1 }
        }
    }

    /// A quantized operand as LiteRT compares it: `((q + offset) << 8) × scale` in fixed point.
    private func rescaled<T: QuantizedElement>(
        _ node: Node, _: T.Type, _ t: RuntimeTensor, _ r: (offset: Int32, multiplier: FixedPoint.Multiplier)
    ) throws -> [Int32] {
        let q = try node.elementwiseBuffer(t, T.self, role: "input")
        let shift = Int32(1) << Int32(ComparisonKernel.quantizedLeftShift)
        let m = r.multiplier
        return q.map { value in
            let shifted = (Int32(value) &+ r.offset) &* shift
            let product = FixedPoint.saturatingRoundingDoublingHighMul(shifted, m.multiplier)
            // LiteRT rounds by `-shift` bits even when a scale above one makes that negative.
            return FixedPoint.roundingDivideByPOTAsX86(product, -m.shift)
        }
    }

    private func widened(_ node: Node, _ t: RuntimeTensor, _ role: String, _ f: (UInt16) -> Float) throws -> [Float] {
        try node.elementwiseBuffer(t, UInt16.self, role: role).map(f)
    }
}

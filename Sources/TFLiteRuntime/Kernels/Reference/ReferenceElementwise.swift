/// Plain scalar versions of the elementwise binary operators: the oracle the fast kernels in
/// `Kernels/Elementwise/` are tested against.
///
/// Each output element finds its operands by decomposing its own index (no merged dimensions, no
/// fast paths), and the floor operators use formulas independent of the fast ones: LiteRT's
/// double-precision `floor(a / b)` for float and int32, and `a - b * floor(a / b)` for the modulo.
enum ReferenceElementwise {
    /// `f` applied with NumPy broadcasting; nil when the shapes do not broadcast.
    static func broadcast<T>(_ a: [T], _ aShape: [Int], _ b: [T], _ bShape: [Int], _ f: (T, T) -> T)
        -> (values: [T], shape: [Int])?
    {
        let rank = max(aShape.count, bShape.count)
        let pa = [Int](repeating: 1, count: rank - aShape.count) + aShape
        let pb = [Int](repeating: 1, count: rank - bShape.count) + bShape
        var shape = [Int]()
        for i in 0..<rank {
            guard pa[i] == pb[i] || pa[i] == 1 || pb[i] == 1 else { return nil }
            shape.append(pa[i] == 1 ? pb[i] : pa[i])
        }
        let count = shape.reduce(1, *)
        var out = [T]()
        out.reserveCapacity(count)
        for flat in 0..<count {
            var rest = flat
            var ia = 0
            var ib = 0
            var sa = 1
            var sb = 1
            for d in stride(from: rank - 1, through: 0, by: -1) {
                let i = rest % shape[d]
                rest /= shape[d]
                if pa[d] != 1 { ia += i * sa }
                if pb[d] != 1 { ib += i * sb }
                sa *= pa[d]
                sb *= pb[d]
            }
            out.append(f(a[ia], b[ib]))
        }
        return (out, shape)
    }

    /// The float32 operator with its fused activation (LiteRT clamps even without one, to the
    /// finite range).
    static func floatFunction(_ op: BinaryOperator, _ activation: FusedActivation) -> (Float, Float) -> Float {
        var (lo, hi) = (-Float.greatestFiniteMagnitude, Float.greatestFiniteMagnitude)
        switch activation {
        case .relu: lo = 0
        case .relu6: (lo, hi) = (0, 6)
        case .reluN1To1: (lo, hi) = (-1, 1)
        default: break
        }
        func clamp(_ v: Float) -> Float { v.isNaN ? v : Swift.min(Swift.max(v, lo), hi) }
        switch op {
        case .add: return { clamp($0 + $1) }
        case .subtract: return { clamp($0 - $1) }
        case .multiply: return { clamp($0 * $1) }
        case .divide: return { clamp($0 / $1) }
        case .squaredDifference: return { ($0 - $1) * ($0 - $1) }
        case .maximum: return { $0 > $1 ? $0 : $1 }
        case .minimum: return { $0 < $1 ? $0 : $1 }
        case .floorDivide: return { Float((Double($0) / Double($1)).rounded(.down)) }
        case .floorModulo:
            return { a, b in
                let r = a.truncatingRemainder(dividingBy: b)
                return r != 0 && (r < 0) != (b < 0) ? r + b : r
            }
        }
    }

    /// The integer operator, wrapping on overflow; nil for a zero divisor the operator rejects.
    static func integerFunction<T: FixedWidthInteger & SignedInteger>(
        _ op: BinaryOperator, _ activation: FusedActivation, _: T.Type
    ) -> (T, T) -> T? {
        var (lo, hi) = (T.min, T.max)
        switch activation {
        case .relu: lo = 0
        case .relu6: (lo, hi) = (0, 6)
        case .reluN1To1: (lo, hi) = (-1, 1)
        default: break
        }
        func clamp(_ v: T) -> T { Swift.min(Swift.max(v, lo), hi) }
        func floorDivide(_ a: T, _ b: T) -> T {
            if T.bitWidth <= 32 { return T(truncatingIfNeeded: Int64((Double(a) / Double(b)).rounded(.down))) }
            let q = a.dividedReportingOverflow(by: b).partialValue
            return q &* b != a && (a < 0) != (b < 0) ? q &- 1 : q
        }
        switch op {
        case .add: return { clamp($0 &+ $1) }
        case .subtract: return { clamp($0 &- $1) }
        case .multiply: return { clamp($0 &* $1) }
        case .divide: return { $1 == 0 ? nil : clamp($0.dividedReportingOverflow(by: $1).partialValue) }
        case .squaredDifference: return { ($0 &- $1) &* ($0 &- $1) }
        case .maximum: return { Swift.max($0, $1) }
        case .minimum: return { Swift.min($0, $1) }
        case .floorDivide: return { $1 == 0 ? nil : floorDivide($0, $1) }
        case .floorModulo: return { $1 == 0 ? nil : $0 &- $1 &* floorDivide($0, $1) }
        }
    }
}

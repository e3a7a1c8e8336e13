/// An element type the unquantized elementwise kernels compute on (`Float`, `Int32`, `Int64`), with
/// the arithmetic of TensorFlow Lite's kernels for it.
///
/// Integer arithmetic wraps on overflow, as the C++ kernels do on every platform LiteRT ships on,
/// instead of trapping: model data must never crash the process. Division by zero is the caller's
/// to rule out (the kernels scan divisors first and throw).
protocol ElementwiseScalar: Comparable, ExpressibleByIntegerLiteral {
    /// The widest range a fused activation clamps to when it does not clamp at all. For `Float`
    /// this is the finite range, not ±infinity: LiteRT clamps arithmetic results to it, so `1 / 0`
    /// gives `Float.greatestFiniteMagnitude` there, and we match.
    static var activationLowest: Self { get }
    static var activationHighest: Self { get }
    /// The type this element type is stored as in a model.
    static var tensorType: TensorType { get }
    /// `x + identity == x` for every `x`: -0.0 for floats (so a sum of negative zeros stays -0.0, as
    /// in LiteRT), 0 for integers.
    static var additiveIdentity: Self { get }
    /// A value no element is greater than (-infinity for floats), so a maximum seeded with it equals
    /// one seeded with the first element.
    static var maximumIdentity: Self { get }

    static func add(_ a: Self, _ b: Self) -> Self
    static func subtract(_ a: Self, _ b: Self) -> Self
    static func multiply(_ a: Self, _ b: Self) -> Self
    /// C++ `/`: IEEE division for floats, truncation toward zero for integers (`b` is nonzero).
    static func divide(_ a: Self, _ b: Self) -> Self
    /// `floor(a / b)`; for integers `b` is nonzero.
    static func floorDivide(_ a: Self, _ b: Self) -> Self
    /// The remainder with the sign of `b` (Python's `%`); for integers `b` is nonzero.
    static func floorModulo(_ a: Self, _ b: Self) -> Self
    /// `-a` (wrapping for integers).
    static func negated(_ a: Self) -> Self
    /// `|a|` (wrapping for the most negative integer, which stays as it is).
    static func absoluteValue(_ a: Self) -> Self
}

extension ElementwiseScalar {
    /// `min(max(x, lo), hi)` with C++'s `std::min`/`std::max` semantics, so a NaN passes through.
    @inline(__always) static func clamp(_ x: Self, _ lo: Self, _ hi: Self) -> Self {
        let t = x < lo ? lo : x
        return hi < t ? hi : t
    }

    /// The clamp range of a fused activation for this type (LiteRT's `CalculateActivationRange`).
    ///
    /// TANH and SIGN_BIT are not clamps; LiteRT's arithmetic kernels ignore them, and so do we.
    static func activationRange(_ activation: FusedActivation) -> (lower: Self, upper: Self) {
        switch activation {
        case .relu: return (0, activationHighest)
        case .relu6: return (0, 6)
        case .reluN1To1: return (-1, 1)
        case .none, .tanh, .signBit: return (activationLowest, activationHighest)
        }
    }
}

extension Float: ElementwiseScalar {
    static var activationLowest: Float { -.greatestFiniteMagnitude }
    static var activationHighest: Float { .greatestFiniteMagnitude }
    static var tensorType: TensorType { .float32 }
    static var additiveIdentity: Float { -0.0 }
    static var maximumIdentity: Float { -.infinity }

    @inline(__always) static func add(_ a: Float, _ b: Float) -> Float { a + b }
    @inline(__always) static func subtract(_ a: Float, _ b: Float) -> Float { a - b }
    @inline(__always) static func multiply(_ a: Float, _ b: Float) -> Float { a * b }
    @inline(__always) static func divide(_ a: Float, _ b: Float) -> Float { a / b }
    /// Computed in double precision, as LiteRT does, so the floor is taken of the exact quotient.
    @inline(__always) static func floorDivide(_ a: Float, _ b: Float) -> Float {
        Float((Double(a) / Double(b)).rounded(.down))
    }
    @inline(__always) static func floorModulo(_ a: Float, _ b: Float) -> Float {
        let r = a.truncatingRemainder(dividingBy: b)  // C's fmod
        return r != 0 && ((b < 0) != (r < 0)) ? r + b : r
    }
    @inline(__always) static func negated(_ a: Float) -> Float { -a }
    @inline(__always) static func absoluteValue(_ a: Float) -> Float { Swift.abs(a) }
}

/// Integer arithmetic shared by `Int32` and `Int64`.
extension ElementwiseScalar where Self: FixedWidthInteger & SignedInteger {
    static var activationLowest: Self { .min }
    static var activationHighest: Self { .max }
    static var additiveIdentity: Self { 0 }
    static var maximumIdentity: Self { .min }

    @inline(__always) static func add(_ a: Self, _ b: Self) -> Self { a &+ b }
    @inline(__always) static func subtract(_ a: Self, _ b: Self) -> Self { a &- b }
    @inline(__always) static func multiply(_ a: Self, _ b: Self) -> Self { a &* b }
    /// `.min / -1` overflows; it wraps to `.min` (x86's C++ would fault) instead of trapping.
    @inline(__always) static func divide(_ a: Self, _ b: Self) -> Self {
        a.dividedReportingOverflow(by: b).partialValue
    }
    @inline(__always) static func floorDivide(_ a: Self, _ b: Self) -> Self {
        let q = a.dividedReportingOverflow(by: b).partialValue
        let r = a.remainderReportingOverflow(dividingBy: b).partialValue
        return r != 0 && ((r < 0) != (b < 0)) ? q &- 1 : q
    }
    @inline(__always) static func floorModulo(_ a: Self, _ b: Self) -> Self {
        let r = a.remainderReportingOverflow(dividingBy: b).partialValue
        return r != 0 && ((b < 0) != (r < 0)) ? r &+ b : r
    }
    @inline(__always) static func negated(_ a: Self) -> Self { 0 &- a }
    @inline(__always) static func absoluteValue(_ a: Self) -> Self { a < 0 ? 0 &- a : a }
}

extension Int32: ElementwiseScalar {
    static var tensorType: TensorType { .int32 }
}

extension Int64: ElementwiseScalar {
    static var tensorType: TensorType { .int64 }
}

/// FLOOR_DIV and FLOOR_MOD on plain int8 and int16 (LiteRT's other 8/16-bit operators are quantized).
extension Int8: ElementwiseScalar {}
extension Int16: ElementwiseScalar {}

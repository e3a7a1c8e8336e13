import Foundation

/// One pointwise operation on one element type, as a value the loop in `UnaryKernel` is
/// specialized on (no closure or dynamic dispatch per element).
///
/// The float formulas are LiteRT's; transcendentals come from the C library through Foundation.
protocol UnaryFunctor {
    associatedtype Element
    func callAsFunction(_ x: Element) -> Element
}

/// `1 / (1 + e^-x)`; exact at both tails (e^-x overflowing to infinity gives 0).
struct LogisticFunctor: UnaryFunctor {
    @inline(__always) func callAsFunction(_ x: Float) -> Float { 1 / (1 + Foundation.exp(-x)) }
}

struct TanhFunctor: UnaryFunctor {
    @inline(__always) func callAsFunction(_ x: Float) -> Float { Foundation.tanh(x) }
}

/// A clamp to `lower...upper` (RELU, RELU6, RELU_N1_TO_1); a NaN passes through.
struct ClampFunctor: UnaryFunctor {
    let lower: Float, upper: Float
    @inline(__always) func callAsFunction(_ x: Float) -> Float { Float.clamp(x, lower, upper) }
}

/// `x` when positive, else `alpha * x`.
struct LeakyReluFunctor: UnaryFunctor {
    let alpha: Float
    @inline(__always) func callAsFunction(_ x: Float) -> Float { x > 0 ? x : x * alpha }
}

/// `x` when not negative, else `e^x - 1` (expm1 keeps precision near zero).
struct EluFunctor: UnaryFunctor {
    @inline(__always) func callAsFunction(_ x: Float) -> Float { x < 0 ? Foundation.expm1(x) : x }
}

/// `x * relu6(x + 3) / 6`, in that order of operations.
struct HardSwishFunctor: UnaryFunctor {
    @inline(__always) func callAsFunction(_ x: Float) -> Float { x * Float.clamp(x + 3, 0, 6) / 6 }
}

/// `x * Φ(x)`, written as `0.5 x erfc(-x / √2)`: unlike `1 + erf(x / √2)` it does not cancel for
/// large negative `x`.
struct GeluFunctor: UnaryFunctor {
    /// √½ (M_SQRT1_2), a literal so the hot loop does not touch a lazily initialized global.
    static var sqrtHalf: Float { 0.707_106_781_186_547_524 }
    @inline(__always) func callAsFunction(_ x: Float) -> Float {
        0.5 * x * Foundation.erfc(x * -GeluFunctor.sqrtHalf)
    }
}

/// The tanh approximation, `0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))`, evaluated as the equal
/// `x / (1 + e^(-2z))`: `1 + tanh(z)` cancels to noise for large negative `x` (LiteRT's own result
/// is off by several percent there, e.g. at x = -4.5), while this form stays accurate.
struct GeluTanhFunctor: UnaryFunctor {
    /// √(2/π).
    static var sqrt2OverPi: Float { 0.797_884_560_802_865_355 }
    @inline(__always) func callAsFunction(_ x: Float) -> Float {
        let z = GeluTanhFunctor.sqrt2OverPi * (x + 0.044715 * x * x * x)
        return x / (1 + Foundation.exp(-2 * z))
    }
}

struct ExpFunctor: UnaryFunctor {
    @inline(__always) func callAsFunction(_ x: Float) -> Float { Foundation.exp(x) }
}

struct LogFunctor: UnaryFunctor {
    @inline(__always) func callAsFunction(_ x: Float) -> Float { Foundation.log(x) }
}

struct SqrtFunctor: UnaryFunctor {
    @inline(__always) func callAsFunction(_ x: Float) -> Float { x.squareRoot() }
}

/// `1 / √x`, computed exactly as that (no fast reciprocal-square-root estimate).
struct RsqrtFunctor: UnaryFunctor {
    @inline(__always) func callAsFunction(_ x: Float) -> Float { 1 / x.squareRoot() }
}

/// `-x`; wraps for the most negative integer.
struct NegateFunctor<T: ElementwiseScalar>: UnaryFunctor {
    @inline(__always) func callAsFunction(_ x: T) -> T { T.negated(x) }
}

/// `|x|`; the most negative integer stays as it is.
struct AbsoluteFunctor<T: ElementwiseScalar>: UnaryFunctor {
    @inline(__always) func callAsFunction(_ x: T) -> T { T.absoluteValue(x) }
}

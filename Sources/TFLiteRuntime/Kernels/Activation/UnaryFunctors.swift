import Foundation

/// One pointwise operation on one element type, as a value the loop in `UnaryKernel` is
/// specialized on (no closure or dynamic dispatch per element).
///
/// The float formulas are LiteRT's; transcendentals come from the C library through Foundation.
protocol UnaryFunctor {
    associatedtype Element
    func callAsFunction(_ x: Element) -> Element
}

/// A float operation built on one `e^t` per element: `combine(x, exp(exponent(x)))`.
///
/// `UnaryKernel` runs these in two passes over blocks: the `expf` calls alone (glibc's is fast,
/// ~2 ns), then `combine` over the block, which vectorizes. Mixing the arithmetic into the loop of
/// calls made every variant 2-4x slower (registers spilled around each call, branches mispredicted).
protocol ExponentialFunctor {
    func exponent(_ x: Float) -> Float
    func combine(_ x: Float, _ e: Float) -> Float
}

/// `1 / (1 + e^-x)`; exact at both tails (e^-x overflowing to infinity gives 0).
struct LogisticFunctor: ExponentialFunctor {
    @inline(__always) func exponent(_ x: Float) -> Float { -x }
    @inline(__always) func combine(_ x: Float, _ e: Float) -> Float { 1 / (1 + e) }
}

/// `tanh(x)`, as `1 - 2 / (e^(2|x|) + 1)` with the sign of `x`, and an odd Taylor polynomial below
/// |x| = 1/4 where that form would cancel. glibc's `tanhf` costs ~17 ns an element (30x LiteRT's
/// vectorized tanh); this, ~2 ns. Relative error stays below 1e-6.
struct TanhFunctor: ExponentialFunctor {
    @inline(__always) func exponent(_ x: Float) -> Float { 2 * Swift.abs(x) }
    @inline(__always) func combine(_ x: Float, _ e: Float) -> Float {
        // The next Taylor term, 21844/6081075 x^13, is below 1e-10 relative for |x| < 1/4.
        let x2 = x * x
        let p: Float = -1382.0 / 155925.0
        let q = 62.0 / 2835.0 + x2 * p
        let r = -17.0 / 315.0 + x2 * q
        let s = 2.0 / 15.0 + x2 * r
        let small = x * (1 + x2 * (-1.0 / 3.0 + x2 * s))
        let large = Float(signOf: x, magnitudeOf: 1 - 2 / (e + 1))
        return Swift.abs(x) < 0.25 ? small : large
    }
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

/// `x` when not negative, else `e^x - 1`, with a Taylor polynomial for `e^x - 1` above -1/4 where
/// the subtraction would cancel (glibc's `expm1f` costs ~13 ns; this needs only `expf`).
struct EluFunctor: ExponentialFunctor {
    @inline(__always) func exponent(_ x: Float) -> Float { Swift.min(x, 0) }
    @inline(__always) func combine(_ x: Float, _ e: Float) -> Float {
        // The next term, x^7/5040, is below 2e-8 relative for |x| <= 1/4.
        let series = x * (1 + x * (1.0 / 2 + x * (1.0 / 6 + x * (1.0 / 24 + x * (1.0 / 120 + x * (1.0 / 720))))))
        let negative = x < -0.25 ? e - 1 : series
        return x >= 0 ? x : negative
    }
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
struct GeluTanhFunctor: ExponentialFunctor {
    /// √(2/π).
    static var sqrt2OverPi: Float { 0.797_884_560_802_865_355 }
    @inline(__always) func exponent(_ x: Float) -> Float {
        -2 * GeluTanhFunctor.sqrt2OverPi * (x + 0.044715 * x * x * x)
    }
    @inline(__always) func combine(_ x: Float, _ e: Float) -> Float { x / (1 + e) }
}

struct ExpFunctor: ExponentialFunctor {
    @inline(__always) func exponent(_ x: Float) -> Float { x }
    @inline(__always) func combine(_ x: Float, _ e: Float) -> Float { e }
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

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

/// LiteRT's float LOGISTIC and TANH, bit for bit as its x86 build computes them: `optimized_ops::Logistic`
/// and `Tanh` map the tensor as one Eigen array, whose SSE build (no FMA: every multiply-add below is a
/// rounded product, then a rounded sum) runs whole blocks of 4 elements through Eigen's packet
/// formulas and the `count % 4` remaining ones through its scalar formulas. Measured against LiteRT 2.3
/// on every multiple of 1/1024 in [-20, 20], 200 000 random bit patterns, tiny values, ±0, ±inf and NaN,
/// and tensors of 1 to 1007 elements: 0 differing bits. LOGISTIC's block formula runs in C
/// (`omk_f32_logistic`, `f32_elementwise.c`, built for this CPU); its tail runs here.
enum LiteRTActivation {
    /// Above this the logistic is exactly 1 in float (Eigen truncates its argument here).
    static var logisticHigh: Float { 16.635_532_4 }

    /// The logistic of one of the last `count % 4` elements: Eigen's scalar path, `e / (1 + e)` with the
    /// C library's `expf` of the argument truncated at `logisticHigh`.
    @inline(__always)
    static func logisticTail(_ x: Float) -> Float {
        let e = Foundation.exp(logisticHigh < x ? logisticHigh : x)
        return e / (1 + e)
    }

    /// Eigen's float tanh (the same in blocks and for the remaining elements): a [9/8] odd/even rational
    /// on the argument clamped to ±7.90738964 (where it reaches ±1 without FMA); NaN stays NaN.
    @inline(__always)
    static func tanh(_ value: Float) -> Float {
        let clamp: Float = 7.907_389_640_808_105_47
        let upper = clamp < value ? clamp : value
        let x = upper < -clamp ? -clamp : upper
        let x2 = x * x
        let x3 = x2 * x
        var p: Float = 1.394_553_628e-8 * x2 + 2.102_733_560e-5
        p = p * x2 + 3.520_756_727e-3
        p = p * x2 + 1.340_216_100e-1
        var q: Float = 8.015_776_984e-7 * x2 + 3.326_951_409e-4
        q = q * x2 + 2.597_254_514e-2
        q = q * x2 + 4.673_548_340e-1
        q = q * x2 + 1
        p = x3 * p + x
        return p / q
    }

    /// `floor(t)` for |t| < 2^22 with plain additions (no libm call, vectorizable without SSE4.1):
    /// adding and removing 1.5 * 2^23 rounds to the nearest integer, then one step down if that was up.
    @inline(__always)
    static func floorBounded(_ t: Float) -> Float {
        let nearest = (t + 12_582_912) - 12_582_912
        return nearest > t ? nearest - 1 : nearest
    }
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

import Foundation

/// Plain scalar versions of the activation and unary operators: the oracle the kernels in
/// `Kernels/Activation/` are tested against.
///
/// Computed in double precision from the textbook definitions (e.g. GELU as `x Φ(x)` with `erf`),
/// then rounded to float, so they also check the precision of the float formulas the kernels use.
enum ReferenceActivation {
    /// The float function of a unary operator; `alpha` is LEAKY_RELU's slope, `approximate` GELU's.
    static func floatFunction(_ op: UnaryOperator, alpha: Float = 0, approximate: Bool = false) -> (Float) -> Float {
        let f: (Double) -> Double
        switch op {
        case .logistic: f = { 1 / (1 + Foundation.exp(-$0)) }
        case .tanh: f = { Foundation.tanh($0) }
        case .relu: f = { $0.isNaN ? $0 : Swift.max($0, 0) }
        case .relu6: f = { $0.isNaN ? $0 : Swift.min(Swift.max($0, 0), 6) }
        case .reluN1To1: f = { $0.isNaN ? $0 : Swift.min(Swift.max($0, -1), 1) }
        case .relu0To1: f = { $0.isNaN ? $0 : Swift.min(Swift.max($0, 0), 1) }
        case .leakyRelu: f = { $0 > 0 ? $0 : $0 * Double(alpha) }
        case .elu: f = { $0 < 0 ? Foundation.exp($0) - 1 : $0 }
        case .hardSwish: f = { $0 * Swift.min(Swift.max($0 + 3, 0), 6) / 6 }
        case .gelu:
            if approximate {
                f = { x in 0.5 * x * (1 + Foundation.tanh((2 / Double.pi).squareRoot() * (x + 0.044715 * x * x * x))) }
            } else {
                f = { x in 0.5 * x * (1 + Foundation.erf(x / 2.0.squareRoot())) }
            }
        case .exp: f = { Foundation.exp($0) }
        case .log: f = { Foundation.log($0) }
        case .sqrt: f = { $0.squareRoot() }
        case .rsqrt: f = { 1 / $0.squareRoot() }
        case .negate: f = { -$0 }
        case .absolute: f = { Swift.abs($0) }
        }
        return { Float(f(Double($0))) }
    }

    /// NEG and ABS on integers, wrapping for the most negative value.
    static func integerFunction<T: FixedWidthInteger & SignedInteger>(_ op: UnaryOperator, _: T.Type) -> ((T) -> T)? {
        switch op {
        case .negate: return { 0 &- $0 }
        case .absolute: return { $0 == T.min ? T.min : Swift.abs($0) }
        default: return nil
        }
    }

    /// SOFTMAX over the last axis of `x` (rows of `depth` values), in double precision.
    static func softmax(_ x: [Float], depth: Int, beta: Float) -> [Float] {
        var y = [Float](repeating: 0, count: x.count)
        guard depth > 0 else { return y }
        for start in stride(from: 0, to: x.count, by: depth) {
            let row = x[start..<(start + depth)].map(Double.init)
            let maximum = row.max() ?? 0
            let e = row.map { Foundation.exp(($0 - maximum) * Double(beta)) }
            let sum = e.reduce(0, +)
            for i in 0..<depth { y[start + i] = Float(e[i] / sum) }
        }
        return y
    }

    /// PRELU with `alpha` broadcast against `x`; nil when the shapes do not broadcast.
    static func prelu(_ x: [Float], _ xShape: [Int], _ alpha: [Float], _ alphaShape: [Int]) -> (
        values: [Float], shape: [Int]
    )? {
        ReferenceElementwise.broadcast(x, xShape, alpha, alphaShape) { v, a in v >= 0 ? v : v * a }
    }
}

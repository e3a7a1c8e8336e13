import Foundation

/// SIN, COS, FLOOR, CEIL, ROUND, SIGN, SQUARE and ZEROS_LIKE: one tensor in, one of the
/// same shape and type out. No options.
///
/// Types, as LiteRT 2.3 accepts them: float32 for all; float16 for SIN, COS, FLOOR and ROUND
/// (computed in float32 and rounded back to half, as Eigen's half does); float64 and int32 for
/// SIGN (NaN stays NaN, as in LiteRT); int32 and int64 for ZEROS_LIKE. ROUND rounds halves to
/// even, as LiteRT's `RoundToNearest` does. (RELU_0_TO_1 is a `UnaryOperator`, beside the other
/// clamps.)
final class MathUnaryKernel: OpKernel {
    enum Operator {
        case sin, cos, floor, ceil, round, sign, square, zerosLike

        init?(_ code: BuiltinOperator) {
            switch code {
            case .sin: self = .sin
            case .cos: self = .cos
            case .floor: self = .floor
            case .ceil: self = .ceil
            case .round: self = .round
            case .sign: self = .sign
            case .square: self = .square
            case .zerosLike: self = .zerosLike
            default: return nil
            }
        }

        var supportedTypes: [TensorType] {
            switch self {
            case .sin, .cos, .floor, .round: return [.float32, .float16]
            case .ceil, .square: return [.float32]
            case .sign: return [.float32, .float64, .int32]
            case .zerosLike: return [.float32, .int32, .int64]
            }
        }
    }

    let op: Operator

    init(_ node: Node, _ op: Operator) throws {
        self.op = op
        try node.expect(inputs: 1, outputs: 1)
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        guard op.supportedTypes.contains(x.type) else {
            throw node.error(
                "input type \(x.type.name) is not supported; supported: "
                    + op.supportedTypes.map(\.name).joined(separator: ", ")
            )
        }
        try node.setOutput(0, type: x.type, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        switch x.type {
        case .float32:
            // One specialised loop per operator (no call through a closure per element).
            switch op {
            case .sin: try map(node, x, y, Float.self) { Foundation.sin($0) }
            case .cos: try map(node, x, y, Float.self) { Foundation.cos($0) }
            case .floor: try map(node, x, y, Float.self) { $0.rounded(.down) }
            case .ceil: try map(node, x, y, Float.self) { $0.rounded(.up) }
            case .round: try map(node, x, y, Float.self) { MathUnaryKernel.roundHalfToEven($0) }
            case .sign: try map(node, x, y, Float.self) { MathUnaryKernel.sign($0) }
            case .square: try map(node, x, y, Float.self) { $0 * $0 }
            case .zerosLike: try map(node, x, y, Float.self) { _ in 0 }
            }
        case .float16:
            let f = floatFunction
            try map(node, x, y, UInt16.self) { HalfPrecision.half(from: f(HalfPrecision.float(fromHalf: $0))) }
        case .float64:
            try map(node, x, y, Double.self) { MathUnaryKernel.sign($0) }
        case .int32 where op == .sign:
            try map(node, x, y, Int32.self) { $0 > 0 ? 1 : $0 < 0 ? -1 : 0 }
        case .int32:
            try map(node, x, y, Int32.self) { _ in 0 }
        case .int64:
            try map(node, x, y, Int64.self) { _ in 0 }
        case let type:
            throw node.error("input type \(type.name) is not supported")
        }
    }

    private var floatFunction: (Float) -> Float {
        switch op {
        case .sin: return { Foundation.sin($0) }
        case .cos: return { Foundation.cos($0) }
        case .floor: return { $0.rounded(.down) }
        case .ceil: return { $0.rounded(.up) }
        case .round: return MathUnaryKernel.roundHalfToEven
        case .sign: return MathUnaryKernel.sign
        case .square: return { $0 * $0 }
        case .zerosLike: return { _ in 0 }
        }
    }

    /// -1, 0 or 1; NaN stays NaN.
    @inline(__always)
    static func sign<F: FloatingPoint>(_ x: F) -> F { x > 0 ? 1 : x < 0 ? -1 : x.isNaN ? x : 0 }

    /// LiteRT's `RoundToNearest`: the floor, plus one when the rest is above one half, or exactly
    /// one half and the floor is odd (so -0.5 gives +0.0, not -0.0).
    @inline(__always)
    static func roundHalfToEven(_ x: Float) -> Float {
        let below = x.rounded(.down)
        let rest = x - below
        if rest < 0.5 || (rest == 0.5 && below.truncatingRemainder(dividingBy: 2) == 0) { return below }
        return below + 1
    }

    @inline(__always)
    private func map<T>(_ node: Node, _ x: RuntimeTensor, _ y: RuntimeTensor, _: T.Type, _ f: (T) -> T) throws {
        let input = try node.elementwiseBuffer(x, T.self, role: "input")
        let output = try node.elementwiseBuffer(y, T.self, role: "output")
        guard input.count == output.count else { throw node.error("output is not sized like the input") }
        for i in 0..<input.count { output[i] = f(input[i]) }
    }
}

import Foundation

/// L2_NORMALIZATION: each vector along the last axis divided by its L2 norm.
///
/// Float32 (norm floored at 1e-6, as LiteRT's fixed epsilon), uint8 and int8. The quantized forms
/// need an output scale of 1/128 (zero point 128 for uint8, 0 for int8) and use LiteRT's fixed-point
/// inverse square root of the sum of squared offsets. Options: `L2NormOptions` (activation must be
/// none). Inputs of rank at most 4.
final class L2NormalizationKernel: OpKernel {
    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
        guard try L2NormParameters(node).activation == .none else {
            throw node.error("a fused activation is not supported")
        }
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        try node.expect(x, type: .float32, .uint8, .int8, role: "input")
        guard x.rank <= 4 else { throw node.error("input rank \(x.rank) is above 4") }
        guard y.type == x.type else { throw node.error("output type \(y.type.name) differs from input \(x.type.name)") }
        if x.type != .float32 {
            let zero = x.type == .uint8 ? 128 : 0
            guard y.scale == Float(1.0 / 128.0), y.zeroPoint == zero else {
                throw node.error("quantized output needs scale 1/128 and zero point \(zero)")
            }
        }
        try node.setOutput(0, type: x.type, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        let depth = x.rank == 0 ? 1 : x.shape[x.rank - 1]
        guard depth > 0 else { return }
        let rows = x.elementCount / depth
        switch x.type {
        case .float32:
            let input = try node.elementwiseBuffer(x, Float.self, role: "input")
            let output = try node.elementwiseBuffer(y, Float.self, role: "output")
            for r in 0..<rows {
                let base = r * depth
                var sum: Float = 0
                for c in 0..<depth { sum += input[base + c] * input[base + c] }
                let norm = max(sum.squareRoot(), 1e-6)
                for c in 0..<depth { output[base + c] = input[base + c] / norm }
            }
        case .uint8:
            try quantized(node, x, y, UInt8.self, rows: rows, depth: depth, offset: 128, range: 0...255)
        case .int8:
            // LiteRT's int8 kernel folds the ×128 into the shift (one rounding) instead of scaling first.
            try quantized(node, x, y, Int8.self, rows: rows, depth: depth, offset: 0, range: -128...127, folded: true)
        default:
            throw node.error("input type \(x.type.name) is not supported")
        }
    }

    private func quantized<T: FixedWidthInteger>(
        _ node: Node, _ x: RuntimeTensor, _ y: RuntimeTensor, _: T.Type, rows: Int, depth: Int, offset: Int32,
        range: ClosedRange<Int32>, folded: Bool = false
    ) throws {
        let input = try node.elementwiseBuffer(x, T.self, role: "input")
        let output = try node.elementwiseBuffer(y, T.self, role: "output")
        let zero = Int32(x.zeroPoint)
        for r in 0..<rows {
            let base = r * depth
            var sum: Int32 = 0
            for c in 0..<depth {
                let d = Int32(input[base + c]) - zero
                sum = sum &+ d &* d
            }
            let inverse = FixedPoint.inverseSqrtMultiplier(sum)
            for c in 0..<depth {
                let d = Int32(input[base + c]) - zero
                let scaled =
                    folded
                    ? FixedPoint.multiply(
                        d, by: FixedPoint.Multiplier(multiplier: inverse.multiplier, shift: inverse.shift + 7))
                    : FixedPoint.multiplySmallerThanOne(128 &* d, by: inverse) &+ offset
                output[base + c] = T(truncatingIfNeeded: min(range.upperBound, max(range.lowerBound, scaled)))
            }
        }
    }
}

/// LOCAL_RESPONSE_NORMALIZATION on float32 rank-4 tensors: across channels,
/// `y = x / (bias + alpha · Σ x²)^beta` over the `2·radius + 1` neighbouring channels.
///
/// Options: `LocalResponseNormalizationOptions` (radius, bias, alpha, beta). The window sum slides
/// along the channels (add the entering square, drop the leaving one) as LiteRT's optimized kernel
/// does, so rounding follows it; beta 1 and 0.5 take its reciprocal / reciprocal-square-root forms.
final class LocalResponseNormalizationKernel: OpKernel {
    private let p: LocalResponseNormalizationParameters

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
        p = try LocalResponseNormalizationParameters(node)
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        try node.expect(x, type: .float32, role: "input")
        guard x.rank == 4 else { throw node.error("input must have rank 4, has shape \(x.shape)") }
        guard p.radius >= 0, p.radius <= 1 << 20 else { throw node.error("radius \(p.radius) is out of range") }
        try node.setOutput(0, type: .float32, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let input = try node.elementwiseBuffer(x, Float.self, role: "input")
        let output = try node.elementwiseBuffer(try node.output(0), Float.self, role: "output")
        let depth = x.shape[3]
        guard depth > 0 else { return }
        let rows = x.elementCount / depth
        let radius = p.radius
        var padded = [Float](repeating: 0, count: depth + 2 * radius)
        padded.withUnsafeMutableBufferPointer { squares in
            for r in 0..<rows {
                let base = r * depth
                for c in 0..<depth { squares[radius + c] = input[base + c] * input[base + c] * p.alpha }
                var accumulated: Float = 0
                for i in 0..<(2 * radius) { accumulated += squares[i] }
                for c in 0..<depth {
                    accumulated += squares[c + 2 * radius]
                    output[base + c] = p.bias + accumulated
                    accumulated -= squares[c]
                }
                for c in 0..<depth {
                    let v = output[base + c]
                    let factor: Float
                    if p.beta == 1 {
                        factor = 1 / v
                    } else if p.beta == 0.5 {
                        factor = 1 / v.squareRoot()
                    } else {
                        factor = Foundation.pow(v, -p.beta)
                    }
                    output[base + c] = input[base + c] * factor
                }
            }
        }
    }
}

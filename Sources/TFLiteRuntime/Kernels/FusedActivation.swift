/// An activation fused into an operator (`ActivationFunctionType` in the schema).
enum FusedActivation: Int8 {
    case none = 0
    case relu = 1
    case reluN1To1 = 2
    case relu6 = 3
    case tanh = 4
    case signBit = 5

    /// The clamp range of a clamping activation (`-inf...inf` for none).
    var floatRange: (lower: Float, upper: Float) {
        switch self {
        case .relu: return (0, .infinity)
        case .reluN1To1: return (-1, 1)
        case .relu6: return (0, 6)
        default: return (-.infinity, .infinity)
        }
    }

    /// True when the activation is a clamp (or nothing), which kernels fold into their output stage.
    var isClamp: Bool { self != .tanh && self != .signBit }

    @inline(__always) func apply(_ x: Float) -> Float {
        switch self {
        case .none: return x
        case .relu: return max(x, 0)
        case .reluN1To1: return min(max(x, -1), 1)
        case .relu6: return min(max(x, 0), 6)
        case .tanh: return Float(Foundation.tanh(Double(x)))
        case .signBit: return x.sign == .minus ? 1 : 0
        }
    }

    /// Applies the activation in place.
    func apply(to values: UnsafeMutableBufferPointer<Float>) {
        switch self {
        case .none: return
        case .relu, .reluN1To1, .relu6:
            let (lo, hi) = floatRange
            for i in values.indices { values[i] = min(max(values[i], lo), hi) }
        default:
            for i in values.indices { values[i] = apply(values[i]) }
        }
    }
}

import Foundation

/// The padding scheme of convolutions and pools (`Padding` in the schema).
enum PaddingScheme: Int8 {
    case same = 0
    case valid = 1

    /// Output size along one spatial dimension, as TensorFlow computes it.
    func outputSize(input: Int, filter: Int, stride: Int, dilation: Int) -> Int {
        let effective = (filter - 1) * dilation + 1
        switch self {
        case .same: return (input + stride - 1) / stride
        case .valid: return (input - effective + stride) / stride
        }
    }

    /// Padding before the first element along one dimension (TFLite's `ComputePadding`).
    func paddingBefore(input: Int, filter: Int, stride: Int, dilation: Int, output: Int) -> Int {
        let effective = (filter - 1) * dilation + 1
        let total = (output - 1) * stride + effective - input
        return max(total / 2, 0)
    }
}

/// The shape two operands broadcast to (NumPy rules), or nil when they are incompatible.
func broadcastShape(_ a: [Int], _ b: [Int]) -> [Int]? {
    let rank = max(a.count, b.count)
    var out = [Int](repeating: 1, count: rank)
    for i in 0..<rank {
        let da = i < rank - a.count ? 1 : a[i - (rank - a.count)]
        let db = i < rank - b.count ? 1 : b[i - (rank - b.count)]
        if da == db || db == 1 { out[i] = da } else if da == 1 { out[i] = db } else { return nil }
    }
    return out
}

/// Row-major strides of `shape`.
func stridesOf(_ shape: [Int]) -> [Int] {
    var strides = [Int](repeating: 1, count: shape.count)
    var s = 1
    for i in stride(from: shape.count - 1, through: 0, by: -1) {
        strides[i] = s
        s *= shape[i]
    }
    return strides
}

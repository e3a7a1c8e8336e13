import Foundation

/// Sum of quantized values in a wrapping int32, LiteRT's `temp_sum` for quantized MEAN and SUM.
struct QuantizedSumReducer<T: QuantizedElement>: Reducer {
    var identity: Int32 { 0 }
    var emptyValue: Int32 { 0 }
    @inline(__always) func callAsFunction(_ accumulator: Int32, _ x: T) -> Int32 { accumulator &+ Int32(x) }
    @inline(__always) func merge(_ a: Int32, _ b: Int32) -> Int32 { a &+ b }
    /// Wrapping integer addition regroups exactly.
    static var mergesExactly: Bool { true }
}

/// REDUCE_MAX on raw quantized values (LiteRT compares the stored integers).
struct QuantizedMaxReducer<T: QuantizedElement>: Reducer {
    var identity: T { T.min }
    var emptyValue: T { T.min }
    @inline(__always) func callAsFunction(_ accumulator: T, _ x: T) -> T { accumulator > x ? accumulator : x }
    @inline(__always) func merge(_ a: T, _ b: T) -> T { a > b ? a : b }
    /// The maximum of integers does not depend on grouping.
    static var mergesExactly: Bool { true }
}

/// The requantization of quantized MEAN and SUM, with the path LiteRT's optimized kernel takes.
struct QuantizedReduceParams {
    enum Path {
        /// MEAN of a 4D uint8/int8 tensor over H and W with keep_dims (`optimized_integer_ops::Mean`):
        /// `MBQM(Σq, s_in / (n × s_out)) + bias`, the multiplier and bias computed in float. LiteRT's
        /// x86 build runs the NEON loop (through NEON_2_SSE) on blocks of 16 channels, whose
        /// multiply rounds ties toward +infinity; the remaining channels use the scalar multiply.
        case meanOverHW(FixedPoint.Multiplier, bias: Int32, depth: Int)
        /// Any other MEAN (`reference_ops::QuantizedMeanOrSum`): `MBQM(Σq − zp·n, m')` where the
        /// multiplier of `s_in / s_out` absorbs `1/n` as an integer division.
        case mean(FixedPoint.Multiplier)
        /// SUM (`optimized_ops::QuantizedMeanOrSum`): `round(Σq × s + bias)` in float.
        case sum(scale: Float, bias: Float)

    }
    var path: Path
    var inputZeroPoint: Int32
    var outputZeroPoint: Int32
    var count: Int

    init(
        _ node: Node, sum: Bool, input x: RuntimeTensor, output y: RuntimeTensor, axes: [Int], keepDims: Bool,
        reducedCount n: Int
    ) throws {
        guard x.quantization != nil, y.quantization != nil, x.scale > 0, y.scale > 0 else {
            throw node.error("quantized input and output need positive scales")
        }
        inputZeroPoint = Int32(x.zeroPoint)
        outputZeroPoint = Int32(y.zeroPoint)
        count = n
        let normalized = Set(axes.map { $0 < 0 ? $0 + x.rank : $0 })
        if sum {
            let scale: Float = x.scale / y.scale
            path = .sum(scale: scale, bias: Float(-inputZeroPoint) * scale * Float(n))
        } else if keepDims, x.rank == 4, x.type != .int16, normalized == [1, 2] {
            let elements = Float(x.shape[1] * x.shape[2])
            var temp: Float = Float(inputZeroPoint) * x.scale / y.scale
            temp = temp > 0 ? temp + 0.5 : temp - 0.5
            let bias = outputZeroPoint &- ReferenceQuantizedActivation.truncateToInt32(temp)
            let realScale: Float = x.scale / (elements * y.scale)
            path = .meanOverHW(FixedPoint.quantizeMultiplier(Double(realScale)), bias: bias, depth: x.shape[3])
        } else {
            var m = FixedPoint.quantizeMultiplier(Double(x.scale) / Double(y.scale))
            if n > 0 {
                var s = Int.bitWidth - 1 - n.leadingZeroBitCount
                s = min(s, 32, 31 + m.shift)
                m = FixedPoint.Multiplier(
                    multiplier: Int32(truncatingIfNeeded: (Int64(m.multiplier) << Int64(max(s, 0))) / Int64(n)),
                    shift: m.shift - s)
            }
            path = .mean(m)
        }
    }

    /// The output value of one int32 sum, for output element `index`.
    @inline(__always)
    func output(_ sum: Int32, index: Int, qmin: Int32, qmax: Int32) -> Int32 {
        let r: Int32
        switch path {
        case .meanOverHW(let m, let bias, let depth):
            let inBlock = depth > 0 && index % depth < depth / 16 * 16
            r = (inBlock ? FixedPoint.neonMultiply(sum, by: m) : FixedPoint.multiply(sum, by: m)) &+ bias
        case .mean(let m):
            r = FixedPoint.multiply(sum &- inputZeroPoint &* Int32(truncatingIfNeeded: count), by: m) &+ outputZeroPoint
        case .sum(let scale, let bias):
            let rounded = (Float(sum) * scale + bias).rounded(.toNearestOrAwayFromZero)
            r = ReferenceQuantizedActivation.truncateToInt32(rounded)
                &+ outputZeroPoint
        }
        return min(qmax, max(qmin, r))
    }
}

import CKernels
import Foundation

/// The pointwise unary operators (LOGISTIC, TANH, RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, LEAKY_RELU,
/// ELU, HARD_SWISH, GELU, EXP, LOG, SQRT, RSQRT, NEG, ABS): the output has the input's shape and type.
///
/// Float32 for all; NEG also int32, int64 and float16 (an exact sign flip), ABS also int32; ABS on
/// plain int16 and NEG on plain int8/int16 (no quantization) wrap like the other integers; the
/// quantized forms are in `QuantizedUnaryTable`. Options: LEAKY_RELU's alpha
/// (`LeakyReluOptions` field 0) and GELU's `approximate` (`GeluOptions` field 0).
final class UnaryKernel: OpKernel {
    let op: UnaryOperator
    /// LEAKY_RELU's slope for negative inputs.
    let alpha: Float
    /// GELU: the tanh approximation instead of the exact erf form.
    let approximate: Bool
    /// The quantized variants' value tables, built in `prepare`.
    private var quantized = QuantizedUnaryTable()
    /// ABS and NEG on an int8/int16 tensor without quantization: plain integers, as LiteRT runs them.
    private var plainInteger = false

    init(_ node: Node, _ op: UnaryOperator) throws {
        self.op = op
        try node.expect(inputs: 1, outputs: 1)
        alpha = op == .leakyRelu ? try LeakyReluParameters(node).alpha : 0
        approximate = op == .gelu ? try GeluParameters(node).approximate : false
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        plainInteger = false
        switch x.type {
        case let type where op.supportedTypes.contains(type):
            break
        case .int16 where x.quantization == nil && (op == .absolute || op == .negate),
            .int8 where x.quantization == nil && op == .negate:
            plainInteger = true
        case .uint8, .int8, .int16:
            let y = try node.output(0)
            guard y.type == x.type else { throw node.error("output type \(y.type.name) differs from input \(x.type.name)") }
            quantized = try QuantizedUnaryTable(
                node, op: op, alpha: alpha, approximate: approximate, input: x, output: y)
        default:
            throw node.error(
                "input type \(x.type.name) is not supported; supported: \(op.supportedTypes.map(\.name).joined(separator: ", "))"
            )
        }
        try node.setOutput(0, type: x.type, shape: x.shape)
    }

    func eval(_ node: Node) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        switch x.type {
        case .float32:
            let input = try node.elementwiseBuffer(x, Float.self, role: "input")
            let output = try node.elementwiseBuffer(y, Float.self, role: "output")
            try runFloat(node, input, output)
        case .int32:
            try runInteger(node, Int32.self, x, y)
        case .int64:
            try runInteger(node, Int64.self, x, y)
        case .float16 where op == .negate:
            let input = try node.elementwiseBuffer(x, UInt16.self, role: "input")
            let output = try node.elementwiseBuffer(y, UInt16.self, role: "output")
            guard input.count == output.count else { throw node.error("output is not sized like the input") }
            for i in 0..<input.count { output[i] = input[i] ^ 0x8000 }
        case .int8 where plainInteger:
            try runInteger(node, Int8.self, x, y)
        case .int16 where plainInteger:
            try runInteger(node, Int16.self, x, y)
        case .uint8, .int8, .int16:
            try quantized.apply(node, x, y)
        case let type:
            throw node.error("input type \(type.name) is not supported")
        }
    }

    /// RELU and its bounded forms on float32: the range they clamp to, which the ADD before them may
    /// apply in its own pass (`ClampFusion`); nil for the other operators and types.
    func floatClampRange(_ node: Node) -> (lower: Float, upper: Float)? {
        guard let x = node.optionalInput(0), x.type == .float32 else { return nil }
        switch op {
        case .relu: return (0, .infinity)
        case .relu6: return (0, 6)
        case .reluN1To1: return (-1, 1)
        case .relu0To1: return (0, 1)
        default: return nil
        }
    }

    private func runFloat(_ node: Node, _ x: UnsafeMutableBufferPointer<Float>, _ y: UnsafeMutableBufferPointer<Float>)
        throws
    {
        guard x.count == y.count else { throw node.error("output is not sized like the input") }
        let t = node.threadCount
        switch op {
        case .logistic: UnaryKernel.applyLogistic(x, y, threads: t, op.minimumPerThread)
        case .tanh: UnaryKernel.applyTanh(x, y, threads: t, op.minimumPerThread)
        case .relu: UnaryKernel.applyClamp(x, y, lower: 0, upper: .infinity, threads: t, op.minimumPerThread)
        case .relu6: UnaryKernel.applyClamp(x, y, lower: 0, upper: 6, threads: t, op.minimumPerThread)
        case .reluN1To1: UnaryKernel.applyClamp(x, y, lower: -1, upper: 1, threads: t, op.minimumPerThread)
        case .relu0To1: UnaryKernel.applyClamp(x, y, lower: 0, upper: 1, threads: t, op.minimumPerThread)
        case .leakyRelu: UnaryKernel.apply(LeakyReluFunctor(alpha: alpha), x, y, threads: t, op.minimumPerThread)
        case .elu: UnaryKernel.applyExponential(EluFunctor(), x, y, threads: t, op.minimumPerThread)
        case .hardSwish: UnaryKernel.applyHardSwish(x, y, threads: t, op.minimumPerThread)
        case .gelu:
            if approximate {
                UnaryKernel.applyExponential(GeluTanhFunctor(), x, y, threads: t, op.minimumPerThread)
            } else {
                UnaryKernel.apply(GeluFunctor(), x, y, threads: t, op.minimumPerThread)
            }
        case .exp: UnaryKernel.applyExponential(ExpFunctor(), x, y, threads: t, op.minimumPerThread)
        case .log: UnaryKernel.apply(LogFunctor(), x, y, threads: t, op.minimumPerThread)
        case .sqrt: UnaryKernel.apply(SqrtFunctor(), x, y, threads: t, op.minimumPerThread)
        case .rsqrt: UnaryKernel.apply(RsqrtFunctor(), x, y, threads: t, op.minimumPerThread)
        case .negate: UnaryKernel.apply(NegateFunctor<Float>(), x, y, threads: t, op.minimumPerThread)
        case .absolute: UnaryKernel.apply(AbsoluteFunctor<Float>(), x, y, threads: t, op.minimumPerThread)
        }
    }

    private func runInteger<T: ElementwiseScalar>(_ node: Node, _: T.Type, _ xt: RuntimeTensor, _ yt: RuntimeTensor)
        throws
    {
        let x = try node.elementwiseBuffer(xt, T.self, role: "input")
        let y = try node.elementwiseBuffer(yt, T.self, role: "output")
        guard x.count == y.count else { throw node.error("output is not sized like the input") }
        switch op {
        case .negate: UnaryKernel.apply(NegateFunctor<T>(), x, y, threads: node.threadCount, op.minimumPerThread)
        case .absolute: UnaryKernel.apply(AbsoluteFunctor<T>(), x, y, threads: node.threadCount, op.minimumPerThread)
        default: throw node.error("input type \(xt.type.name) is not supported")
        }
    }

    /// `y[i] = f.combine(x[i], exp(f.exponent(x[i])))` for every element, in blocks: first the
    /// exponentials into a stack buffer, then the combination (see `ExponentialFunctor`).
    @inline(__always)
    static func applyExponential<F: ExponentialFunctor>(
        _ f: F, _ x: UnsafeMutableBufferPointer<Float>, _ y: UnsafeMutableBufferPointer<Float>,
        threads: Int, _ minimumPerThread: Int
    ) {
        guard let px = x.baseAddress, let py = y.baseAddress else { return }
        let block = 256
        parallelFor(x.count, threads: threads, minimumPerThread: minimumPerThread) { range in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: block) { buffer in
                guard let e = buffer.baseAddress else { return }
                var start = range.lowerBound
                while start < range.upperBound {
                    let n = Swift.min(block, range.upperBound - start)
                    exponentials(f, px + start, e, n)
                    combine(f, px + start, e, py + start, n)
                    start += n
                }
            }
        }
    }

    @inline(never)
    static func exponentials<F: ExponentialFunctor>(
        _ f: F, _ x: UnsafePointer<Float>, _ e: UnsafeMutablePointer<Float>, _ n: Int
    ) {
        for i in 0..<n { e[i] = Foundation.exp(f.exponent(x[i])) }
    }

    @inline(never)
    static func combine<F: ExponentialFunctor>(
        _ f: F, _ x: UnsafePointer<Float>, _ e: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ n: Int
    ) {
        for i in 0..<n { y[i] = f.combine(x[i], e[i]) }
    }

    /// LOGISTIC as LiteRT's x86 build splits it: the whole blocks of 4 elements (counted from the start
    /// of the tensor, whichever thread runs them) through Eigen's packet formula, the rest through its
    /// scalar one (see `LiteRTActivation`).
    static func applyLogistic(
        _ x: UnsafeMutableBufferPointer<Float>, _ y: UnsafeMutableBufferPointer<Float>, threads: Int,
        _ minimumPerThread: Int
    ) {
        guard let px = x.baseAddress, let py = y.baseAddress else { return }
        let blocked = x.count / 4 * 4
        parallelFor(x.count, threads: threads, minimumPerThread: minimumPerThread) { range in
            let split = Swift.min(Swift.max(blocked, range.lowerBound), range.upperBound)
            // Whole blocks of 4 in C, built for this CPU (the same lane formula as `logisticBlock`).
            omk_f32_logistic(px + range.lowerBound, py + range.lowerBound, split - range.lowerBound)
            for i in split..<range.upperBound { py[i] = LiteRTActivation.logisticTail(px[i]) }
        }
    }

    /// TANH with LiteRT's formula (`LiteRTActivation.tanh`), eight lanes at a time.
    static func applyTanh(
        _ x: UnsafeMutableBufferPointer<Float>, _ y: UnsafeMutableBufferPointer<Float>, threads: Int,
        _ minimumPerThread: Int
    ) {
        guard let px = x.baseAddress, let py = y.baseAddress else { return }
        parallelFor(x.count, threads: threads, minimumPerThread: minimumPerThread) { range in
            LiteRTActivation.map(px, py, range, LiteRTActivation.tanh, LiteRTActivation.tanh)
        }
    }

    /// HARD_SWISH with LiteRT's float rounding: its optimized kernel computes whole blocks of 4 as
    /// `(x · ⅙) · relu6(x + 3)` and the remaining elements as `(x · relu6(x + 3)) · ⅙` (measured
    /// against LiteRT 2.3 on x86; the plain `x · relu6(x + 3) / 6` differs in the last bit for a
    /// third of the elements, which a following dynamic-range layer can turn into a whole quantum).
    static func applyHardSwish(
        _ x: UnsafeMutableBufferPointer<Float>, _ y: UnsafeMutableBufferPointer<Float>, threads: Int,
        _ minimumPerThread: Int
    ) {
        guard let px = x.baseAddress, let py = y.baseAddress else { return }
        let blocked = x.count / 4 * 4
        let sixth: Float = 1.0 / 6.0
        // std::min(std::max(v + 3, 0), 6) spelled as its comparisons (NaN passes through, as there),
        // in two branch-free loops the compiler vectorizes.
        @inline(__always) func relu6(_ v: Float) -> Float {
            let a = v + 3
            let m = a < 0 ? 0 : a
            return 6 < m ? 6 : m
        }
        parallelFor(x.count, threads: threads, minimumPerThread: minimumPerThread) { range in
            let split = Swift.min(Swift.max(blocked, range.lowerBound), range.upperBound)
            for i in range.lowerBound..<split {
                let v = px[i]
                py[i] = (v * sixth) * relu6(v)
            }
            for i in split..<range.upperBound {
                let v = px[i]
                py[i] = (v * relu6(v)) * sixth
            }
        }
    }

    /// `y[i] = f(x[i])` for every element, split over threads when there are enough.
    @inline(__always)
    /// RELU and its bounded forms: the vectorized C clamp for this CPU (LiteRT's comparisons, the same bits).
    static func applyClamp(
        _ x: UnsafeMutableBufferPointer<Float>, _ y: UnsafeMutableBufferPointer<Float>, lower: Float, upper: Float,
        threads: Int, _ minimumPerThread: Int
    ) {
        guard let px = x.baseAddress, let py = y.baseAddress else { return }
        parallelFor(x.count, threads: threads, minimumPerThread: minimumPerThread) { range in
            omk_f32_clamp(px + range.lowerBound, py + range.lowerBound, range.count, lower, upper)
        }
    }

    static func apply<F: UnaryFunctor>(
        _ f: F, _ x: UnsafeMutableBufferPointer<F.Element>, _ y: UnsafeMutableBufferPointer<F.Element>,
        threads: Int, _ minimumPerThread: Int
    ) {
        guard let px = x.baseAddress, let py = y.baseAddress else { return }
        parallelFor(x.count, threads: threads, minimumPerThread: minimumPerThread) { range in
            for i in range { py[i] = f(px[i]) }
        }
    }
}

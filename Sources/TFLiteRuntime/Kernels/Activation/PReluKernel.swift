import CKernels

/// PRELU: `x` where it is not negative, else `x * alpha`, with `alpha` (input 1) broadcast against
/// `x` by NumPy rules (usually one slope per channel). Float32.
///
/// The output has the broadcast shape of the two inputs, as in LiteRT.
///
/// uint8, int8 and int16 (same type for input and alpha, or int16 input with int8 alpha) follow LiteRT's
/// `reference_ops::Prelu` / `BroadcastPrelu4DSlow`: `x − zp ≥ 0` is rescaled by `s_x / s_out`, otherwise the product
/// `(x − zp)(α − zp_α)` by `s_x s_α / s_out`.
final class PReluKernel: OpKernel {
    private var plan: BroadcastPlan?
    private var quantized: QuantizedPReluParameters?
    /// int8 slopes of an int16 input, widened.
    private var wideAlpha: [Int16] = []
    /// Float with one slope per channel of the innermost dimension (alpha `[1, ..., 1, C]`, the usual
    /// case): the channel count, so that `eval` runs plain rows in C (`omk_f32_prelu`, vectorized
    /// for this CPU) instead of the broadcast walk.
    private var perChannel: Int?

    init(_ node: Node) throws { try node.expect(inputs: 2, outputs: 1) }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let alpha = try node.input(1)
        switch x.type {
        case .float32:
            break
        case .uint8, .int8, .int16:
            let y = try node.output(0)
            guard x.quantization != nil, alpha.quantization != nil, y.quantization != nil, y.scale > 0 else {
                throw node.error("quantized input, alpha and output need scales")
            }
            quantized = QuantizedPReluParameters(
                inputOffset: -Int32(x.zeroPoint), alphaOffset: -Int32(alpha.zeroPoint), outputOffset: Int32(y.zeroPoint),
                identity: FixedPoint.quantizeMultiplier(Double(x.scale / y.scale)),
                product: FixedPoint.quantizeMultiplier(Double(x.scale * alpha.scale / y.scale)))
        default:
            throw node.error("input type \(x.type.name) is not supported; supported: FLOAT32, UINT8, INT8, INT16")
        }
        // int16 activations take int8 slopes (LiteRT's 16x8 scheme), widened in `eval`.
        guard alpha.type == x.type || (x.type == .int16 && alpha.type == .int8) else {
            throw node.error("alpha has type \(alpha.type.name), the input \(x.type.name)")
        }
        guard let shape = broadcastShape(x.shape, alpha.shape) else {
            throw node.error("alpha shape \(alpha.shape) cannot be broadcast against input shape \(x.shape)")
        }
        guard let plan = BroadcastPlan(x.shape, alpha.shape) else {
            throw node.error("broadcast shape \(shape) has too many elements")
        }
        self.plan = plan
        let channels = x.shape.last ?? 0
        let slopesPerChannel =
            x.type == .float32 && channels > 0 && alpha.rank <= x.rank && alpha.shape.last == channels
            && alpha.shape.dropLast().allSatisfy { $0 == 1 } && plan.outputShape == x.shape
        perChannel = slopesPerChannel ? channels : nil
        if alpha.type != x.type { wideAlpha = [Int16](repeating: 0, count: alpha.elementCount) }
        try node.setOutput(0, type: x.type, shape: plan.outputShape)
    }

    func eval(_ node: Node) throws {
        guard let plan else { throw node.error("eval before prepare") }
        switch try node.input(0).type {
        case .uint8: return try runQuantized(UInt8.self, node, plan)
        case .int8: return try runQuantized(Int8.self, node, plan)
        case .int16: return try runQuantized(Int16.self, node, plan)
        default: break
        }
        let x = try node.elementwiseBuffer(try node.input(0), Float.self, role: "input")
        let alpha = try node.elementwiseBuffer(try node.input(1), Float.self, role: "alpha")
        let y = try node.elementwiseBuffer(try node.output(0), Float.self, role: "output")
        guard y.count == plan.outputCount else { throw node.error("output is not sized for the broadcast shape") }
        guard let px = x.baseAddress, let pa = alpha.baseAddress, let py = y.baseAddress else { return }
        if let channels = perChannel, x.count == y.count, alpha.count == channels {
            let rows = y.count / channels
            parallelFor(rows, threads: node.threadCount, minimumPerThread: max(1, 8192 / channels)) { range in
                omk_f32_prelu(px + range.lowerBound * channels, pa, py + range.lowerBound * channels, range.count, channels)
            }
            return
        }
        plan.apply(PReluFunctor(), px, pa, py, threads: node.threadCount, minimumPerThread: 32768)
    }
}

extension PReluKernel {
    private func runQuantized<T: QuantizedElement>(_: T.Type, _ node: Node, _ plan: BroadcastPlan) throws {
        guard let quantized else { throw node.error("eval before prepare") }
        let x = try node.elementwiseBuffer(try node.input(0), T.self, role: "input")
        let y = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        guard y.count == plan.outputCount else { throw node.error("output is not sized for the broadcast shape") }
        let alphaTensor = try node.input(1)
        if alphaTensor.type != T.tensorType {
            let narrow = try node.elementwiseBuffer(alphaTensor, Int8.self, role: "alpha")
            guard narrow.count == wideAlpha.count else { throw node.error("alpha changed size after prepare") }
            for i in 0..<narrow.count { wideAlpha[i] = Int16(narrow[i]) }
            wideAlpha.withUnsafeBufferPointer { wide in
                wide.withMemoryRebound(to: T.self) { a in
                    guard let px = x.baseAddress, let pa = a.baseAddress, let py = y.baseAddress else { return }
                    plan.apply(
                        QuantizedPReluFunctor<T>(p: quantized), px, pa, py, threads: node.threadCount,
                        minimumPerThread: 32768)
                }
            }
            return
        }
        let alpha = try node.elementwiseBuffer(alphaTensor, T.self, role: "alpha")
        guard let px = x.baseAddress, let pa = alpha.baseAddress, let py = y.baseAddress else { return }
        plan.apply(QuantizedPReluFunctor<T>(p: quantized), px, pa, py, threads: node.threadCount, minimumPerThread: 32768)
    }
}

/// Quantized PRELU of raw values.
struct QuantizedPReluParameters {
    var inputOffset: Int32, alphaOffset: Int32, outputOffset: Int32
    var identity: FixedPoint.Multiplier, product: FixedPoint.Multiplier
}

struct QuantizedPReluFunctor<T: FixedWidthInteger>: BinaryFunctor {
    let p: QuantizedPReluParameters
    @inline(__always) func callAsFunction(_ x: T, _ alpha: T) -> T {
        let v = p.inputOffset + Int32(x)
        let r =
            v >= 0
            ? FixedPoint.multiply(v, by: p.identity)
            : FixedPoint.multiply(v &* (p.alphaOffset + Int32(alpha)), by: p.product)
        return T(truncatingIfNeeded: min(Int32(T.max), max(Int32(T.min), r &+ p.outputOffset)))
    }
}

/// `x` where it is not negative, else `x * alpha`.
struct PReluFunctor: BinaryFunctor {
    @inline(__always) func callAsFunction(_ x: Float, _ alpha: Float) -> Float { x >= 0 ? x : x * alpha }
}

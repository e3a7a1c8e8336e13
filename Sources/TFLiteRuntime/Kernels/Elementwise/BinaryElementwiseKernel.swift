import CKernels

/// ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, FLOOR_DIV and FLOOR_MOD on float32,
/// int32 and int64 tensors, with NumPy broadcasting of any rank.
///
/// Beyond those, as LiteRT 2.3 accepts: ADD, MUL, MAXIMUM and MINIMUM on float16 (each result
/// computed in float32 and rounded back to half, as Eigen's half does); MUL on uint32 (wrapping);
/// FLOOR_DIV and FLOOR_MOD on plain int8/int16; quantized DIV (`MathQuantizedDivide`); MAXIMUM and
/// MINIMUM on uint8/int8/int16 compare the stored integers whether or not they are quantized.
///
/// Results match LiteRT's: float results of ADD/SUB/MUL/DIV are clamped to the fused activation's
/// range, which without an activation is the finite float range (so overflow gives ±FLT_MAX, not
/// ±inf); integers wrap on overflow; an integer division by zero (and, as in LiteRT, any zero
/// divisor of FLOOR_DIV) throws.
final class BinaryElementwiseKernel: OpKernel {
    let op: BinaryOperator
    let activation: FusedActivation
    private var plan: BroadcastPlan?
    /// Integer parameters of the quantized (uint8/int8/int16) variants.
    private var quantized = QuantizedBinaryParams()
    /// 8-bit ADD/MUL in LiteRT's optimized walk (same shapes or a five-fold broadcast), and whether
    /// LiteRT swaps the inputs for it; nil for other operators, types and broadcasts.
    private var runs: (walk: QuantizedBinaryRuns, swap: Bool)?
    /// 8-bit ADD/SUB/MUL/SQUARED_DIFFERENCE outside `runs` on a large output: every result, precomputed.
    private var byteTable: QuantizedByteTable?
    /// Quantized DIV's parameters.
    private var division: MathQuantizedDivide?
    private let parameters: BinaryParameters

    init(_ node: Node, _ op: BinaryOperator) throws {
        self.op = op
        try node.expect(inputs: 2, outputs: 1)
        parameters = try BinaryParameters(node, hasActivation: op.hasFusedActivation)
        activation = parameters.activation
    }

    func prepare(_ node: Node) throws {
        let a = try node.input(0)
        let b = try node.input(1)
        guard a.type == b.type else {
            throw node.error("inputs have different types, \(a.type.name) and \(b.type.name)")
        }
        switch a.type {
        case let type where op.supportedTypes.contains(type):
            break
        case .float16 where op.takesHalfFloats, .uint32 where op == .multiply:
            break
        case .int8 where op.isFloorDivision, .int16 where op.isFloorDivision:
            break
        case .uint8, .int8, .int16:
            try prepareQuantized(node, a, b)
        default:
            throw node.error(
                "input type \(a.type.name) is not supported; supported: \(op.supportedTypes.map(\.name).joined(separator: ", "))"
            )
        }
        guard let shape = broadcastShape(a.shape, b.shape) else {
            throw node.error("input shapes \(a.shape) and \(b.shape) cannot be broadcast together")
        }
        guard let plan = BroadcastPlan(a.shape, b.shape) else {
            throw node.error("broadcast shape \(shape) has too many elements")
        }
        self.plan = plan
        runs = nil
        if a.type == .uint8 || a.type == .int8, op == .add || op == .multiply {
            // LiteRT's vector blocks round differently from its scalar tail: keep its split.
            if case .elementwise = plan.kind {
                runs = (QuantizedBinaryRuns(count: plan.outputCount), false)
            } else if let fiveFold = FiveFoldBroadcast(a.shape, b.shape) {
                runs = (QuantizedBinaryRuns(fiveFold), fiveFold.swap)
            }
        }
        byteTable = nil
        if runs == nil, plan.outputCount >= QuantizedByteTable.minimumOutputCount {
            let (rows, columns) = (QuantizedByteTable.Values(b), QuantizedByteTable.Values(a))
            switch a.type {
            case .uint8: byteTable = quantizedTable(UInt8.self, rows: rows, columns: columns)
            case .int8: byteTable = quantizedTable(Int8.self, rows: rows, columns: columns)
            default: break
            }
        }
        try node.setOutput(0, type: a.type, shape: plan.outputShape)
    }

    /// The byte table of this node's scalar formula, for the operators that have one.
    private func quantizedTable<T: QuantizedElement>(
        _: T.Type, rows: QuantizedByteTable.Values, columns: QuantizedByteTable.Values
    ) -> QuantizedByteTable? {
        switch op {
        case .add, .subtract:
            return QuantizedByteTable(addSub: quantized, subtract: op == .subtract, T.self, rows: rows, columns: columns)
        case .multiply: return QuantizedByteTable(QuantizedMultiplyFunctor<T>(p: quantized), rows: rows, columns: columns)
        case .squaredDifference:
            return QuantizedByteTable(QuantizedSquaredDifferenceFunctor<T>(p: quantized), rows: rows, columns: columns)
        default: return nil
        }
    }

    func eval(_ node: Node) throws {
        guard let plan else { throw node.error("eval before prepare") }
        switch try node.input(0).type {
        case .float32: try run(Float.self, node, plan)
        case .int32: try run(Int32.self, node, plan)
        case .int64: try run(Int64.self, node, plan)
        case .int8 where op.isFloorDivision: try run(Int8.self, node, plan)
        case .int16 where op.isFloorDivision: try run(Int16.self, node, plan)
        case .float16: try runHalf(node, plan)
        case .uint32: try map(UInt32.self, node, plan) { $0 &* $1 }
        case .uint8: try runQuantized(UInt8.self, node, plan)
        case .int8: try runQuantized(Int8.self, node, plan)
        case .int16: try runQuantized(Int16.self, node, plan)
        case let type: throw node.error("input type \(type.name) is not supported")
        }
    }

    private func run<T: ElementwiseScalar>(_: T.Type, _ node: Node, _ plan: BroadcastPlan) throws {
        let a = try node.elementwiseBuffer(try node.input(0), T.self, role: "input 0")
        let b = try node.elementwiseBuffer(try node.input(1), T.self, role: "input 1")
        let out = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        guard out.count == plan.outputCount else { throw node.error("output is not sized for the broadcast shape") }
        guard let pa = a.baseAddress, let pb = b.baseAddress, let po = out.baseAddress else { return }
        if op.rejectsZeroDivisor(for: T.tensorType) && b.contains(where: { $0 == 0 }) {
            throw node.error("division by zero")
        }
        let threads = node.threadCount
        let minimum = op.minimumPerThread
        let (lower, upper) = T.activationRange(activation)
        switch op {
        case .add where T.self == Float.self && plan.kind == .elementwise:
            // Same shapes: the vectorized C loop for this CPU (one add and the clamp, the same bits).
            let a = UnsafeRawPointer(pa).assumingMemoryBound(to: Float.self)
            let b = UnsafeRawPointer(pb).assumingMemoryBound(to: Float.self)
            let y = UnsafeMutableRawPointer(po).assumingMemoryBound(to: Float.self)
            let lo = unsafeBitCast(lower, to: Float.self), hi = unsafeBitCast(upper, to: Float.self)
            parallelFor(plan.outputCount, threads: threads, minimumPerThread: minimum) { range in
                omk_f32_add(a + range.lowerBound, b + range.lowerBound, y + range.lowerBound, range.count, lo, hi)
            }
        case .add:
            plan.apply(AddFunctor(lower: lower, upper: upper), pa, pb, po, threads: threads, minimumPerThread: minimum)
        case .subtract:
            plan.apply(
                SubtractFunctor(lower: lower, upper: upper), pa, pb, po, threads: threads, minimumPerThread: minimum)
        case .multiply:
            plan.apply(
                MultiplyFunctor(lower: lower, upper: upper), pa, pb, po, threads: threads, minimumPerThread: minimum)
        case .divide:
            plan.apply(
                DivideFunctor(lower: lower, upper: upper), pa, pb, po, threads: threads, minimumPerThread: minimum)
        case .squaredDifference:
            plan.apply(SquaredDifferenceFunctor<T>(), pa, pb, po, threads: threads, minimumPerThread: minimum)
        case .maximum:
            plan.apply(MaximumFunctor<T>(), pa, pb, po, threads: threads, minimumPerThread: minimum)
        case .minimum:
            plan.apply(MinimumFunctor<T>(), pa, pb, po, threads: threads, minimumPerThread: minimum)
        case .floorDivide:
            plan.apply(FloorDivideFunctor<T>(), pa, pb, po, threads: threads, minimumPerThread: minimum)
        case .floorModulo:
            plan.apply(FloorModuloFunctor<T>(), pa, pb, po, threads: threads, minimumPerThread: minimum)
        }
    }

    /// Whether this node is a float32 ADD of two same-shaped inputs, the case `evalFused` runs.
    func isFusableFloatAdd(_ node: Node) -> Bool {
        op == .add && plan?.kind == .elementwise && (try? node.input(0).type) == .float32
    }

    /// This ADD and the RELU-like clamp after it (`ClampFusion`) in one pass: each thread adds its
    /// range into `destination`, the clamp's output, and clamps that range in place while it is in
    /// cache. Every element goes through the same two C loops as when the nodes run apart, so the
    /// bits are the same; what goes is the clamp's fork/join and its pass over memory.
    func evalFused(_ node: Node, into destination: RuntimeTensor, lower clampLower: Float, upper clampUpper: Float)
        throws
    {
        guard let plan, isFusableFloatAdd(node) else { throw node.error("fused eval of a node that cannot be fused") }
        let a = try node.elementwiseBuffer(try node.input(0), Float.self, role: "input 0")
        let b = try node.elementwiseBuffer(try node.input(1), Float.self, role: "input 1")
        let out = try node.elementwiseBuffer(destination, Float.self, role: "fused output")
        guard out.count == plan.outputCount else { throw node.error("fused output is not sized for the sum") }
        guard let pa = a.baseAddress, let pb = b.baseAddress, let y = out.baseAddress else { return }
        let (lower, upper) = Float.activationRange(activation)
        parallelFor(plan.outputCount, threads: node.threadCount, minimumPerThread: op.minimumPerThread) { range in
            let start = range.lowerBound
            omk_f32_add(pa + start, pb + start, y + start, range.count, lower, upper)
            omk_f32_clamp(y + start, y + start, range.count, clampLower, clampUpper)
        }
    }

    private func runHalf(_ node: Node, _ plan: BroadcastPlan) throws {
        let f: (Float, Float) -> Float
        switch op {
        case .add: f = { $0 + $1 }
        case .multiply: f = { $0 * $1 }
        case .maximum: f = { Swift.max($0, $1) }
        case .minimum: f = { Swift.min($0, $1) }
        default: throw node.error("FLOAT16 inputs are not supported")
        }
        try map(UInt16.self, node, plan) {
            HalfPrecision.half(from: f(HalfPrecision.float(fromHalf: $0), HalfPrecision.float(fromHalf: $1)))
        }
    }

    private func map<T>(_: T.Type, _ node: Node, _ plan: BroadcastPlan, _ f: (T, T) -> T) throws {
        let a = try node.elementwiseBuffer(try node.input(0), T.self, role: "input 0")
        let b = try node.elementwiseBuffer(try node.input(1), T.self, role: "input 1")
        let out = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        guard out.count == plan.outputCount else { throw node.error("output is not sized for the broadcast shape") }
        guard let pa = a.baseAddress, let pb = b.baseAddress, let po = out.baseAddress else { return }
        plan.map(UnsafePointer(pa), UnsafePointer(pb), po, f)
    }

    private func prepareQuantized(_ node: Node, _ a: RuntimeTensor, _ b: RuntimeTensor) throws {
        let out = try node.output(0)
        // MAXIMUM and MINIMUM compare the stored integers; quantized or not, they need no parameters.
        if op == .maximum || op == .minimum { return }
        guard a.quantization != nil, b.quantization != nil, out.quantization != nil
        else { throw node.error("quantized \(a.type.name) inputs need quantization parameters") }
        for t in [a, b, out] where t.quantization != nil {
            guard t.scale > 0, t.scale.isFinite else { throw node.error("quantization scale \(t.scale) is not positive") }
        }
        switch op {
        case .add, .subtract:
            if a.type == .int16 {
                guard a.zeroPoint == 0, b.zeroPoint == 0, out.zeroPoint == 0 else {
                    throw node.error("int16 inputs and output need zero points of 0")
                }
                // The power-of-two int16 path (`pot_scale_int16`, default true) is LiteRT's LSTM
                // special case; the converter writes false for 16x8 models.
                if parameters.potScaleInt16 && isPowerOfTwo(a.scale) && isPowerOfTwo(b.scale)
                    && isPowerOfTwo(out.scale)
                {
                    throw node.error("int16 power-of-two-scale ADD/SUB is not supported")
                }
            }
            quantized = .addSub(a: a, b: b, out: out, activation: activation)
        case .multiply:
            quantized = .multiply(a: a, b: b, out: out, activation: activation)
        case .maximum, .minimum:
            break
        case .divide:
            division = try MathQuantizedDivide(node, a: a, b: b, out: out, activation: activation)
        case .squaredDifference where a.type == .int8:
            quantized = .squaredDifference(a: a, b: b, out: out)
        default:
            throw node.error("quantized \(a.type.name) inputs are not supported")
        }
    }

    private func isPowerOfTwo(_ s: Float) -> Bool {
        s > 0 && s.significandBitPattern == 0
    }

    private func runQuantized<T: QuantizedElement>(_: T.Type, _ node: Node, _ plan: BroadcastPlan) throws {
        let a = try node.elementwiseBuffer(try node.input(0), T.self, role: "input 0")
        let b = try node.elementwiseBuffer(try node.input(1), T.self, role: "input 1")
        let out = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        guard out.count == plan.outputCount else { throw node.error("output is not sized for the broadcast shape") }
        guard let pa = a.baseAddress, let pb = b.baseAddress, let po = out.baseAddress else { return }
        let threads = node.threadCount
        let minimum = 16384
        if op == .divide {
            guard let division else { throw node.error("eval before prepare") }
            if b.contains(where: { Int32($0) &+ division.offsetB == 0 }) { throw node.error("division by zero") }
            plan.map(UnsafePointer(pa), UnsafePointer(pb), po) {
                T(truncatingIfNeeded: division.divide(Int32($0), Int32($1)))
            }
            return
        }
        if T.self != Int16.self, let (walk, swap) = runs, walk.outputCount == plan.outputCount {
            walk.apply(
                swap ? quantized.swapped() : quantized, multiply: op == .multiply, swap ? pb : pa, swap ? pa : pb, po,
                threads: threads)
            return
        }
        if T.bitWidth == 8, let table = byteTable {
            table.results.withUnsafeBufferPointer { t in
                guard let base = t.baseAddress else { return }
                plan.apply(
                    QuantizedByteTableFunctor<T>(table: base), UnsafePointer(pa), UnsafePointer(pb), po, threads: threads,
                    minimumPerThread: minimum)
            }
            return
        }
        switch op {
        case .add, .subtract:
            plan.apply(
                QuantizedAddFunctor<T>(p: quantized, subtract: op == .subtract), UnsafePointer(pa), UnsafePointer(pb), po,
                threads: threads, minimumPerThread: minimum)
        case .multiply:
            plan.apply(
                QuantizedMultiplyFunctor<T>(p: quantized), UnsafePointer(pa), UnsafePointer(pb), po, threads: threads,
                minimumPerThread: minimum)
        case .squaredDifference:
            plan.apply(
                QuantizedSquaredDifferenceFunctor<T>(p: quantized), UnsafePointer(pa), UnsafePointer(pb), po,
                threads: threads, minimumPerThread: minimum)
        case .maximum, .minimum:
            plan.apply(
                QuantizedMaxMinFunctor<T>(maximum: op == .maximum), UnsafePointer(pa), UnsafePointer(pb), po,
                threads: threads, minimumPerThread: minimum)
        default:
            throw node.error("quantized \(T.tensorType.name) inputs are not supported")
        }
    }
}

import Foundation

/// The precomputed parameters of LiteRT's integer (8x8→16) LSTM, as `PopulateQuantizedLstmParams8x8_16`
/// and `PopulatePrecomputedZPTimesWeightsWithBias` compute them, and its step
/// (`LstmStepInteger8x8_16`).
///
/// Supported: with or without CIFG, peephole, projection and layer normalization.
struct LSTMIntegerParameters {
    /// Gate g's input and recurrent multipliers and effective biases (nil for the input gate with CIFG).
    struct Gate {
        var inputWeights: UnsafeBufferPointer<Int8>
        var inputScale: FixedPoint.Multiplier
        var inputBias: [Int32]
        var recurrentWeights: UnsafeBufferPointer<Int8>
        var recurrentScale: FixedPoint.Multiplier
        var recurrentBias: [Int32]
        var peephole: UnsafeBufferPointer<Int16>?
        var peepholeScale: FixedPoint.Multiplier
        /// Layer normalization: int16 coefficients, the gate bias (applied after normalization),
        /// the coefficients' scale as a multiplier, and the variance guard.
        var layerNorm: UnsafeBufferPointer<Int16>? = nil
        var layerNormBias: [Int32] = []
        var layerNormScale = FixedPoint.Multiplier(multiplier: 0, shift: 0)
        var varianceGuard: Int32 = 1
    }

    var gates: [Gate?]  // input, forget, cell, output
    var cellScaleExponent: Int
    var hiddenScale: FixedPoint.Multiplier
    var hiddenZeroPoint: Int32
    var quantizedCellClip: Int16
    var inputZeroPoint: Int32
    var outputStateZeroPoint: Int32
    /// Projection weights [output, cell], multiplier, effective bias and clip (nil without projection).
    var projection: UnsafeBufferPointer<Int8>?
    var projectionScale = FixedPoint.Multiplier(multiplier: 0, shift: 0)
    var projectionBias: [Int32] = []
    var quantizedProjClip: Int8 = 0

    init(_ node: Node, shape s: LSTMShape, options: LSTMOptions) throws {
        func t(_ i: Int) -> RuntimeTensor? { node.optionalInput(i) }
        let input = try node.input(LSTMOperand.input)
        let outputState = try node.input(LSTMOperand.outputState)
        let cellState = try node.input(LSTMOperand.cellState)
        try node.expect(outputState, type: .int8, role: "output state")
        try node.expect(cellState, type: .int16, role: "cell state")
        let useLayerNorm = t(LSTMOperand.forgetLayerNorm) != nil
        for i in [1, 2, 3, 4, 5, 6, 7, 8] where t(i) != nil {
            try node.expect(try node.input(i), type: .int8, role: "weights \(i)")
        }
        for i in [12, 13, 14, 15] where t(i) != nil {
            try node.expect(try node.input(i), type: .int32, role: "bias \(i)")
        }
        for i in [9, 10, 11] where t(i) != nil {
            try node.expect(try node.input(i), type: .int16, role: "peephole weights \(i)")
        }
        guard node.intermediates.count >= 5, let hidden = node.intermediates[4].quantization, !hidden.scales.isEmpty else {
            throw node.error("integer LSTM needs 5 intermediate tensors with the hidden state's quantization")
        }
        // Cell state scale must be a power of two 2^k with k <= -9 (LiteRT's CheckedLog2).
        let cellScale = cellState.scale
        guard cellScale > 0, cellScale.isFinite else {
            throw node.error("cell state scale \(cellScale) must be a positive power of two")
        }
        let log2Scale = log2(Double(cellScale))
        let k = Int(log2Scale.rounded())
        guard cellScale > 0, abs(log2Scale - Double(k)) < 1e-3, k <= -9, 15 + k >= 0 else {
            throw node.error("cell state scale \(cellScale) must be 2^k with -15 <= k <= -9")
        }
        cellScaleExponent = k
        let inputScale = input.scale
        let stateScale = outputState.scale
        inputZeroPoint = Int32(input.zeroPoint)
        outputStateZeroPoint = Int32(outputState.zeroPoint)
        // Gate pre-activations are Q3.12 without layer normalization; with it, each gate's
        // intermediate tensor gives the scale.
        var intermediateScales = [Float](repeating: Float(pow(2.0, -12.0)), count: 4)
        if useLayerNorm {
            for g in 0..<4 {
                if g == 0 && t(1) == nil { continue }
                guard let q = node.intermediates[g].quantization, let scale = q.scales.first, scale > 0 else {
                    throw node.error("layer-normalized integer LSTM needs the quantization of intermediate \(g)")
                }
                intermediateScales[g] = scale
            }
        }

        func rowSumsTimes(_ w: UnsafeBufferPointer<Int8>, rows: Int, cols: Int, _ zp: Int32, bias: UnsafeBufferPointer<Int32>?) -> [Int32] {
            (0..<rows).map { r in
                var sum: Int32 = 0
                for c in 0..<cols { sum &+= Int32(w[r * cols + c]) }
                return (bias?[r] ?? 0) &+ sum &* zp
            }
        }
        var gates = [Gate?]()
        for g in 0..<4 {
            guard let iw = t(1 + g), let rw = t(5 + g) else {
                gates.append(nil)
                continue
            }
            let iwq = UnsafeBufferPointer(iw.buffer(Int8.self))
            let rwq = UnsafeBufferPointer(rw.buffer(Int8.self))
            guard iwq.count == s.cell * s.input, rwq.count == s.cell * s.output else { throw node.error("weights have no data") }
            let bias = t(12 + g).map { UnsafeBufferPointer($0.buffer(Int32.self)) }
            if let b = bias, b.count != s.cell { throw node.error("bias \(12 + g) has no data") }
            let intermediate = intermediateScales[g]
            let effInput = iw.scale * inputScale / intermediate
            let effRecurrent = rw.scale * stateScale / intermediate
            let peepholeIndex: Int? = g == 0 ? 9 : g == 1 ? 10 : g == 3 ? 11 : nil
            var peephole: UnsafeBufferPointer<Int16>?
            var peepholeScale = FixedPoint.Multiplier(multiplier: 0, shift: 0)
            if let pi = peepholeIndex, let p = t(pi) {
                peephole = UnsafeBufferPointer(p.buffer(Int16.self))
                peepholeScale = try Self.multiplier(
                    Double(Float(pow(2.0, Double(k)) * Double(p.scale) / Double(intermediate))), "peephole", node)
            }
            var gate = Gate(
                inputWeights: iwq, inputScale: try Self.multiplier(Double(effInput), "input-to-gate", node),
                inputBias: rowSumsTimes(iwq, rows: s.cell, cols: s.input, -inputZeroPoint, bias: useLayerNorm ? nil : bias),
                recurrentWeights: rwq, recurrentScale: try Self.multiplier(Double(effRecurrent), "recurrent-to-gate", node),
                recurrentBias: rowSumsTimes(rwq, rows: s.cell, cols: s.output, -outputStateZeroPoint, bias: nil),
                peephole: peephole, peepholeScale: peepholeScale)
            if useLayerNorm {
                guard let ln = t(20 + g) else { throw node.error("layer norm coefficients \(20 + g) are missing") }
                try node.expect(ln, type: .int16, role: "layer norm coefficients \(20 + g)")
                let coefficients = UnsafeBufferPointer(ln.buffer(Int16.self))
                guard coefficients.count == s.cell, let b = bias else { throw node.error("layer norm operands have no data") }
                gate.layerNorm = coefficients
                gate.layerNormBias = Array(b)
                gate.layerNormScale = try Self.multiplier(Double(ln.scale), "layer norm", node)
                gate.varianceGuard = max(1, Int32(clamping: Int64(min(10000 * Double(ln.scale), 1e9))))
            }
            gates.append(gate)
        }
        guard gates[1] != nil, gates[2] != nil, gates[3] != nil else { throw node.error("forget, cell and output gate weights are required") }
        self.gates = gates
        let effHidden = Float(pow(2.0, -15.0) / Double(hidden.scales[0]) * pow(2.0, -15.0))
        hiddenScale = try Self.multiplier(Double(effHidden), "hidden", node)
        hiddenZeroPoint = hidden.zeroPoints.first.map { Int32($0) } ?? 0
        if let p = t(LSTMOperand.projectionWeights) {
            try node.expect(p, type: .int8, role: "projection weights")
            let pw = UnsafeBufferPointer(p.buffer(Int8.self))
            guard pw.count == s.output * s.cell else { throw node.error("projection weights have no data") }
            var bias: UnsafeBufferPointer<Int32>?
            if let b = t(LSTMOperand.projectionBias) {
                try node.expect(b, type: .int32, role: "projection bias")
                bias = UnsafeBufferPointer(b.buffer(Int32.self))
                guard bias!.count == s.output else { throw node.error("projection bias has no data") }
            }
            projection = pw
            projectionScale = try Self.multiplier(Double(p.scale * hidden.scales[0] / stateScale), "projection", node)
            projectionBias = rowSumsTimes(pw, rows: s.output, cols: s.cell, -hiddenZeroPoint, bias: bias)
            if options.projClip > 0 {
                let clip = options.projClip / stateScale
                quantizedProjClip = clip.isNaN ? 0 : Int8(min(max(clip, -128), 127))
            }
        }
        if options.cellClip > 0 {
            quantizedCellClip = Int16(min(max(options.cellClip / cellScale, -32768), 32767))
        } else {
            quantizedCellClip = 0
        }
    }

    /// `QuantizeMultiplier` of an effective scale, refusing values it cannot represent.
    static func multiplier(_ real: Double, _ what: String, _ node: Node) throws -> FixedPoint.Multiplier {
        guard real.isFinite, real >= 0 else { throw node.error("\(what) scale \(real) is not a finite non-negative number") }
        return FixedPoint.quantizeMultiplier(real)
    }

    /// Runs the whole sequence.
    func run(_ node: Node, shape s: LSTMShape) throws {
        let input = try node.input(0).buffer(Int8.self)
        let output = try node.output(0).buffer(Int8.self)
        let outputState = try node.input(LSTMOperand.outputState).buffer(Int8.self)
        let cellState = try node.input(LSTMOperand.cellState).buffer(Int16.self)
        guard input.count == s.batch * s.time * s.input, output.count == s.batch * s.time * s.output,
            outputState.count == s.batch * s.output, cellState.count == s.batch * s.cell
        else { throw node.error("tensors have no data") }
        if s.timeMajor {
            for t in 0..<s.time {
                step(
                    input: input.baseAddress! + t * s.batch * s.input, batch: s.batch, shape: s,
                    outputState: outputState.baseAddress!, cellState: cellState.baseAddress!,
                    output: output.baseAddress! + t * s.batch * s.output)
            }
        } else {
            for b in 0..<s.batch {
                for t in 0..<s.time {
                    step(
                        input: input.baseAddress! + (b * s.time + t) * s.input, batch: 1, shape: s,
                        outputState: outputState.baseAddress! + b * s.output, cellState: cellState.baseAddress! + b * s.cell,
                        output: output.baseAddress! + (b * s.time + t) * s.output)
                }
            }
        }
    }

    @inline(__always) private static func clamp16(_ x: Int32) -> Int32 { min(max(x, -32768), 32767) }

    /// Row `row` of `weights` (rows of `n`) times `x`, in wrapping int32 (the order does not matter).
    /// Pointers and wrapping products, so that the loop vectorizes: indexing the buffers with
    /// overflow-checked `row · n + c` kept it scalar (a third of keras_lstm_mnist's time).
    @inline(__always)
    private static func dot(_ weights: UnsafeBufferPointer<Int8>, row: Int, _ x: UnsafePointer<Int8>, _ n: Int) -> Int32 {
        guard n > 0, let base = weights.baseAddress, weights.count >= (row + 1) * n else { return 0 }
        let w = base + row * n
        var acc: Int32 = 0
        for c in 0..<n { acc &+= Int32(w[c]) &* Int32(x[c]) }
        return acc
    }

    /// One gate: int16 Q3.12 pre-activation, then sigmoid or tanh to Q0.15.
    private func gate(
        _ g: Gate, input: UnsafePointer<Int8>, state: UnsafePointer<Int8>, cell: UnsafePointer<Int16>, batch: Int,
        shape s: LSTMShape, tanh: Bool
    ) -> [Int16] {
        var out = [Int16](repeating: 0, count: batch * s.cell)
        for b in 0..<batch {
            for r in 0..<s.cell {
                var acc = g.inputBias[r] &+ Self.dot(g.inputWeights, row: r, input + b * s.input, s.input)
                var v = Self.clamp16(FixedPoint.multiply(acc, by: g.inputScale))
                acc = g.recurrentBias[r] &+ Self.dot(g.recurrentWeights, row: r, state + b * s.output, s.output)
                v = Self.clamp16(FixedPoint.multiply(acc, by: g.recurrentScale) &+ v)
                if let p = g.peephole {
                    let prod = Int32(p[r]) * Int32(cell[b * s.cell + r])
                    v = Self.clamp16(FixedPoint.multiply(prod, by: g.peepholeScale) &+ v)
                }
                out[b * s.cell + r] = Int16(v)
            }
        }
        if let ln = g.layerNorm {
            for b in 0..<batch { Self.layerNorm(&out, offset: b * s.cell, count: s.cell, ln, g) }
        }
        for i in out.indices {
            out[i] = tanh ? Int16FixedPoint.tanh(out[i], integerBits: 3) : Int16FixedPoint.logistic(out[i], integerBits: 3)
        }
        return out
    }

    /// LiteRT's `PortableApplyLayerNorm` on one batch row, in place.
    private static func layerNorm(
        _ x: inout [Int16], offset: Int, count n: Int, _ weights: UnsafeBufferPointer<Int16>, _ g: Gate
    ) {
        let twoToPower20: Int64 = 1 << 20
        var sum: Int64 = 0, sumSq: Int64 = 0
        for j in 0..<n {
            let v = Int64(x[offset + j])
            sum += v
            sumSq += v * v
        }
        let mean = Int32(truncatingIfNeeded: sum * 1024 / Int64(n))
        let temp = Int64(Int32(twoToPower20) / Int32(n))
        let variance = sumSq &* temp &- Int64(mean) * Int64(mean)
        var variance2 = Int32(truncatingIfNeeded: variance / twoToPower20)
        if variance2 < 1 { variance2 = g.varianceGuard }
        let inverse = invSqrtMultiplier(variance2)
        let outScale = FixedPoint.Multiplier(multiplier: g.layerNormScale.multiplier, shift: g.layerNormScale.shift + 12)
        for j in 0..<n {
            let shifted = 1024 &* Int32(x[offset + j]) &- mean
            let rescaled = FixedPoint.multiply(shifted, by: inverse)
            let val3 = Int64(rescaled &* Int32(weights[j]) &+ g.layerNormBias[j])
            let val4 = Int32(truncatingIfNeeded: (val3 > 0 ? val3 + 512 : val3 - 512) / 1024)
            let val5 = FixedPoint.multiply(val4, by: outScale)
            x[offset + j] = Int16(clamp16(val5))
        }
    }

    /// LiteRT's `GetInvSqrtQuantizedMultiplierExp(input, reverse_shift: -1)`: 1/sqrt(input) as a
    /// Q31 multiplier and a (left) shift.
    static func invSqrtMultiplier(_ value: Int32) -> FixedPoint.Multiplier {
        if value <= 1 { return FixedPoint.Multiplier(multiplier: Int32.max, shift: 0) }
        var input = value
        var shift = 11
        while input >= (1 << 29) {
            input /= 4
            shift += 1
        }
        let maxLeftShiftBits = UInt32(input).leadingZeroBitCount - 1
        let leftShiftBitPairs = maxLeftShiftBits / 2 - 1
        shift -= leftShiftBitPairs
        input <<= Int32(2 * leftShiftBitPairs)
        func srmPOT(_ x: Int32, _ e: Int) -> Int32 {
            if e < 0 { return FixedPoint.roundingDivideByPOT(x, -e) }
            let threshold: Int32 = (1 << Int32(31 - e)) - 1
            if x > threshold { return Int32.max }
            if x < -threshold { return Int32.min }
            return x << Int32(e)
        }
        let mul = FixedPoint.saturatingRoundingDoublingHighMul
        let fixedInput = input >> 1  // F3
        let halfInput = srmPOT(fixedInput, -1)
        let halfThree: Int32 = (1 << 28) + (1 << 27)
        var x: Int32 = 1 << 28  // F3 one
        for _ in 0..<5 {
            let x3 = srmPOT(mul(mul(x, x), x), 6)  // F9 -> F3
            x = srmPOT(mul(halfThree, x) &- mul(halfInput, x3), 3)  // F6 -> F3
        }
        x = mul(x, 1_518_500_250)  // × sqrt(2)/2
        if shift < 0 {
            x <<= Int32(-shift)
            shift = 0
        }
        return FixedPoint.Multiplier(multiplier: x, shift: -shift)
    }

    func step(
        input: UnsafePointer<Int8>, batch: Int, shape s: LSTMShape, outputState: UnsafeMutablePointer<Int8>,
        cellState: UnsafeMutablePointer<Int16>, output: UnsafeMutablePointer<Int8>
    ) {
        let n = batch * s.cell
        let useCIFG = gates[0] == nil
        let inputGate = gates[0].map { gate($0, input: input, state: outputState, cell: cellState, batch: batch, shape: s, tanh: false) }
        let forgetGate = gate(gates[1]!, input: input, state: outputState, cell: cellState, batch: batch, shape: s, tanh: false)
        let cellGate = gate(gates[2]!, input: input, state: outputState, cell: cellState, batch: batch, shape: s, tanh: true)
        // UpdateLstmCellInteger.
        let shift = 30 + cellScaleExponent
        for i in 0..<n {
            let kept = Int16(truncatingIfNeeded: FixedPoint.roundingDivideByPOT(Int32(forgetGate[i]) * Int32(cellState[i]), 15))
            let gateIn: Int32 = useCIFG ? 32767 - Int32(forgetGate[i]) : Int32(inputGate![i])
            let scratch = Int16(truncatingIfNeeded: FixedPoint.roundingDivideByPOT(gateIn * Int32(cellGate[i]), shift))
            var c = Self.clamp16(Int32(kept) + Int32(scratch))
            if quantizedCellClip > 0 { c = min(max(c, -Int32(quantizedCellClip)), Int32(quantizedCellClip)) }
            cellState[i] = Int16(c)
        }
        let outputGate = gate(gates[3]!, input: input, state: outputState, cell: cellState, batch: batch, shape: s, tanh: false)
        // CalculateLstmOutputInteger8x8_16: hidden = output_gate × tanh(cell), quantized with the
        // hidden intermediate's scale and zero point; then the optional projection.
        let tanhBits = 15 + cellScaleExponent
        var hidden = [Int8](repeating: 0, count: n)
        for i in 0..<n {
            let t = Int16FixedPoint.tanh(cellState[i], integerBits: tanhBits)
            let v = FixedPoint.multiply(Int32(outputGate[i]) * Int32(t), by: hiddenScale) &+ hiddenZeroPoint
            hidden[i] = Int8(min(max(v, -128), 127))
        }
        if let p = projection {
            for b in 0..<batch {
                for o in 0..<s.output {
                    var acc = projectionBias[o]
                    for c in 0..<s.cell { acc &+= Int32(p[o * s.cell + c]) * Int32(hidden[b * s.cell + c]) }
                    var v = FixedPoint.multiply(acc, by: projectionScale) &+ outputStateZeroPoint
                    v = min(max(v, -128), 127)
                    if quantizedProjClip > 0 { v = min(max(v, -Int32(quantizedProjClip)), Int32(quantizedProjClip)) }
                    outputState[b * s.output + o] = Int8(v)
                }
            }
        } else {
            for i in 0..<n { outputState[i] = hidden[i] }
        }
        for i in 0..<(batch * s.output) { output[i] = outputState[i] }
    }
}

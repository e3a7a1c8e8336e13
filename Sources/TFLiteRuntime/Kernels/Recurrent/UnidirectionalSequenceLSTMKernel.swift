import Foundation

/// UNIDIRECTIONAL_SEQUENCE_LSTM: an LSTM run over a whole sequence, with optional CIFG (no input
/// gate), peephole connections, projection and layer normalization, following LiteRT's
/// `lstm_eval.cc` step by step.
///
/// Three variants, chosen from the operand types:
/// - float: float input, weights and states;
/// - hybrid (dynamic range): float input and states, int8 weights; inputs and the output state
///   are quantized per batch row at every step, exactly as LiteRT does;
/// - integer (8x8→16): int8 input and output state, int16 cell state (power-of-two scale), int8
///   weights, int32 biases, gate arithmetic in Q3.12 / Q0.15 fixed point.
///
/// The output state and cell state operands are variable tensors: they hold the state between
/// steps and between invocations.
final class UnidirectionalSequenceLSTMKernel: OpKernel {
    enum Variant { case float, hybrid, integer }

    let options: LSTMOptions
    private(set) var variant: Variant = .float
    private(set) var shape = LSTMShape(batch: 0, time: 0, input: 0, cell: 0, output: 0, timeMajor: false)
    private var integerParameters: LSTMIntegerParameters?
    /// Set by `prepare`: LiteRT resets variable tensors whenever tensors are (re)allocated — to 0,
    /// or to the zero point for int8 — so the first run after a prepare starts from that state.
    private var needsStateReset = true

    init(_ node: Node) throws {
        options = try LSTMOptions(node)
    }

    private func operand(_ node: Node, _ i: Int) -> RuntimeTensor? { node.optionalInput(i) }

    func prepare(_ node: Node) throws {
        needsStateReset = true
        try node.expect(inputs: 20, 24, outputs: 1)
        let input = try node.input(LSTMOperand.input)
        guard input.rank == 3 else { throw node.error("input must have rank 3, has shape \(input.shape)") }
        let timeMajor = options.timeMajor
        let inputToOutput = try node.input(LSTMOperand.inputToOutput)
        let recurrentToOutput = try node.input(LSTMOperand.recurrentToOutput)
        let diagonal = options.diagonalRecurrent
        guard inputToOutput.rank == 2, recurrentToOutput.rank == (diagonal ? 1 : 2) else {
            throw node.error(diagonal ? "input weights must have rank 2, recurrent weights rank 1" : "weights must have rank 2")
        }
        // Diagonal recurrent weights need the output state as wide as the cell (no projection).
        let outputWidth = diagonal ? recurrentToOutput.dim(0) : recurrentToOutput.dim(1)
        var s = LSTMShape(
            batch: timeMajor ? input.dim(1) : input.dim(0), time: timeMajor ? input.dim(0) : input.dim(1),
            input: input.dim(2), cell: inputToOutput.dim(0), output: outputWidth, timeMajor: timeMajor)
        guard inputToOutput.dim(1) == s.input else {
            throw node.error("input_to_output_weights shape \(inputToOutput.shape) does not match input width \(s.input)")
        }
        guard s.cell > 0, s.output > 0 else { throw node.error("cell and output widths must be positive") }
        try checkShapes(node, &s)
        shape = s

        switch input.type {
        case .float32:
            let w = try node.input(LSTMOperand.inputToForget)
            variant = w.type == .float32 ? .float : .hybrid
            if variant == .hybrid, options.diagonalRecurrent {
                // LiteRT 2.3 produces NaN for this combination: nothing defined to match.
                throw node.error("diagonal recurrent weights need float weights")
            }
            if variant == .hybrid {
                for i in weightOperands where operand(node, i) != nil {
                    try node.expect(try node.input(i), type: .int8, role: "weights \(i)")
                }
            } else {
                for i in weightOperands + [12, 13, 14, 15, 17, 20, 21, 22, 23] where operand(node, i) != nil {
                    try node.expect(try node.input(i), type: .float32, role: "operand \(i)")
                }
            }
            for i in [LSTMOperand.outputState, LSTMOperand.cellState] {
                try node.expect(try node.input(i), type: .float32, role: i == 18 ? "output state" : "cell state")
            }
            try node.setOutput(0, type: .float32, shape: [input.dim(0), input.dim(1), s.output])
        case .int8:
            guard !options.diagonalRecurrent else { throw node.error("diagonal recurrent weights need a float input") }
            variant = .integer
            integerParameters = try LSTMIntegerParameters(node, shape: s, options: options)
            try node.setOutput(0, type: .int8, shape: [input.dim(0), input.dim(1), s.output])
        default:
            throw node.error("input has type \(input.type.name); supported: float32, int8")
        }
    }

    private let weightOperands = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16]

    private func checkShapes(_ node: Node, _ s: inout LSTMShape) throws {
        func expectShape(_ i: Int, _ dims: [Int], _ name: String) throws {
            guard let t = operand(node, i) else { return }
            guard t.shape == dims else { throw node.error("\(name) has shape \(t.shape), expected \(dims)") }
        }
        let useCIFG = operand(node, LSTMOperand.inputToInput) == nil
        if useCIFG {
            guard operand(node, LSTMOperand.recurrentToInput) == nil else {
                throw node.error("recurrent_to_input_weights present without input_to_input_weights")
            }
        } else {
            guard operand(node, LSTMOperand.recurrentToInput) != nil, operand(node, LSTMOperand.inputGateBias) != nil else {
                throw node.error("input gate needs recurrent_to_input_weights and input_gate_bias")
            }
        }
        for i in [1, 2, 3, 4] { try expectShape(i, [s.cell, s.input], "input weights \(i)") }
        for i in [5, 6, 7, 8] {
            try expectShape(i, options.diagonalRecurrent ? [s.cell] : [s.cell, s.output], "recurrent weights \(i)")
        }
        if options.diagonalRecurrent, operand(node, LSTMOperand.projectionWeights) != nil {
            throw node.error("diagonal recurrent weights cannot be used with a projection")
        }
        for i in [9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23] { try expectShape(i, [s.cell], "operand \(i)") }
        for i in [2, 3, 4, 6, 7, 8, 13, 14, 15] where operand(node, i) == nil {
            throw node.error("required operand \(i) is missing")
        }
        let peephole = [9, 10, 11].map { operand(node, $0) != nil }
        guard peephole[1] == peephole[2], !peephole[0] || peephole[2] else {
            throw node.error("peephole weights must be all present or all absent")
        }
        if let p = operand(node, LSTMOperand.projectionWeights) {
            guard p.shape == [s.output, s.cell] else {
                throw node.error("projection weights have shape \(p.shape), expected \([s.output, s.cell])")
            }
            try expectShape(LSTMOperand.projectionBias, [s.output], "projection bias")
        } else {
            guard s.output == s.cell else { throw node.error("without projection the output width must equal the cell width") }
            guard operand(node, LSTMOperand.projectionBias) == nil else { throw node.error("projection bias without projection weights") }
        }
        let outputState = try node.input(LSTMOperand.outputState)
        let cellState = try node.input(LSTMOperand.cellState)
        guard outputState.elementCount == s.batch * s.output else {
            throw node.error("output state has shape \(outputState.shape), needs \(s.batch * s.output) elements")
        }
        guard cellState.elementCount == s.batch * s.cell else {
            throw node.error("cell state has shape \(cellState.shape), needs \(s.batch * s.cell) elements")
        }
    }

    /// Resets the output and cell states as LiteRT's `ResetVariableTensor` does.
    private func resetStates(_ node: Node) throws {
        let outputState = try node.input(LSTMOperand.outputState)
        let cellState = try node.input(LSTMOperand.cellState)
        for t in [outputState, cellState] {
            guard let raw = t.raw.baseAddress else { continue }
            let fill: UInt8 = t.type == .int8 ? UInt8(truncatingIfNeeded: t.zeroPoint) : 0
            raw.initializeMemory(as: UInt8.self, repeating: fill, count: t.raw.count)
        }
    }

    func eval(_ node: Node) throws {
        if needsStateReset {
            try resetStates(node)
            needsStateReset = false
        }
        switch variant {
        case .float, .hybrid:
            try evalFloat(node)
        case .integer:
            guard let p = integerParameters else { throw node.error("not prepared") }
            try p.run(node, shape: shape)
        }
    }

    // MARK: - Float and hybrid

    private func floats(_ node: Node, _ i: Int) -> UnsafeBufferPointer<Float>? {
        guard let t = operand(node, i) else { return nil }
        return UnsafeBufferPointer(t.floats)
    }

    private func evalFloat(_ node: Node) throws {
        let s = shape
        let input = try node.input(0).floats
        let output = try node.output(0).floats
        let outputState = try node.input(LSTMOperand.outputState).floats
        let cellState = try node.input(LSTMOperand.cellState).floats
        guard input.count == s.batch * s.time * s.input, output.count == s.batch * s.time * s.output,
            outputState.count == s.batch * s.output, cellState.count == s.batch * s.cell
        else { throw node.error("tensors have no data") }

        let cell = LSTMFloatCell(node: node, shape: s, options: options, hybrid: variant == .hybrid)
        if s.timeMajor {
            for t in 0..<s.time {
                cell.step(
                    input: input.baseAddress! + t * s.batch * s.input, batch: s.batch,
                    outputState: outputState.baseAddress!, cellState: cellState.baseAddress!,
                    output: output.baseAddress! + t * s.batch * s.output)
            }
        } else {
            for b in 0..<s.batch {
                for t in 0..<s.time {
                    cell.step(
                        input: input.baseAddress! + (b * s.time + t) * s.input, batch: 1,
                        outputState: outputState.baseAddress! + b * s.output, cellState: cellState.baseAddress! + b * s.cell,
                        output: output.baseAddress! + (b * s.time + t) * s.output)
                }
            }
        }
    }
}

/// One float (or hybrid) LSTM step over `batch` rows, as LiteRT's `LstmStepFloat` / `LstmStepHybrid`.
struct LSTMFloatCell {
    /// A weight matrix: float, or int8 with a scale (hybrid).
    struct Matrix {
        var rows: Int
        var cols: Int
        var floats: UnsafeBufferPointer<Float>?
        var int8: UnsafeBufferPointer<Int8>?
        var scale: Float
        /// Row sums, for asymmetric input quantization.
        var rowSums: [Int32] = []
    }

    let shape: LSTMShape
    let options: LSTMOptions
    let hybrid: Bool
    var inputWeights: [Matrix?] = []  // i, f, c, o
    var recurrentWeights: [Matrix?] = []
    var peephole: [[Float]?] = []  // i, f, o (dequantized for hybrid)
    var biases: [UnsafeBufferPointer<Float>?] = []
    var layerNorm: [UnsafeBufferPointer<Float>?] = []
    var projection: Matrix?
    var projectionBias: UnsafeBufferPointer<Float>?
    /// Auxiliary-input weights per gate (i, f, c, o), for the bidirectional kernels' aux input.
    var auxWeights: [Matrix?] = [nil, nil, nil, nil]

    /// A cell with no operands bound (tests fill the weights in).
    init(shape: LSTMShape, options: LSTMOptions, hybrid: Bool) {
        self.shape = shape
        self.options = options
        self.hybrid = hybrid
    }

    init(node: Node, shape: LSTMShape, options: LSTMOptions, hybrid: Bool) {
        self.shape = shape
        self.options = options
        self.hybrid = hybrid
        func matrix(_ i: Int) -> Matrix? {
            guard let t = node.optionalInput(i) else { return nil }
            var m = Matrix(rows: t.dim(0), cols: t.rank == 2 ? t.dim(1) : 1, floats: nil, int8: nil, scale: t.scale)
            if t.type == .float32 {
                m.floats = UnsafeBufferPointer(t.floats)
            } else {
                let q = UnsafeBufferPointer(t.buffer(Int8.self))
                m.int8 = q
                if options.asymmetricQuantizeInputs {
                    m.rowSums = (0..<m.rows).map { r in (0..<m.cols).reduce(Int32(0)) { $0 + Int32(q[r * m.cols + $1]) } }
                }
            }
            return m
        }
        func vector(_ i: Int) -> UnsafeBufferPointer<Float>? {
            node.optionalInput(i).map { UnsafeBufferPointer($0.floats) }
        }
        inputWeights = [1, 2, 3, 4].map(matrix)
        recurrentWeights = [5, 6, 7, 8].map(matrix)
        peephole = [9, 10, 11].map { i in
            guard let t = node.optionalInput(i) else { return nil }
            if t.type == .float32 { return Array(t.floats) }
            // LiteRT's hybrid kernel recovers peephole weights as int8 × scale.
            let s = t.scale
            return t.buffer(Int8.self).map { Float($0) * s }
        }
        biases = [12, 13, 14, 15].map(vector)
        layerNorm = [20, 21, 22, 23].map(vector)
        projection = matrix(16)
        projectionBias = vector(17)
    }

    /// Quantizes `count` floats per row into `q`, returning each row's scale and zero point
    /// (LiteRT's `BatchQuantizeFloats`).
    private func quantizeRows(
        _ x: UnsafePointer<Float>, batch: Int, count: Int, into q: inout [Int8]
    ) -> (scales: [Float], offsets: [Int32]) {
        var scales = [Float](repeating: 1, count: batch)
        var offsets = [Int32](repeating: 0, count: batch)
        q = [Int8](repeating: 0, count: batch * count)
        for b in 0..<batch {
            let row = UnsafeBufferPointer(start: x + b * count, count: count)
            var lo = row.first ?? 0, hi = row.first ?? 0
            for v in row {
                if v < lo { lo = v }
                if v > hi { hi = v }
            }
            if options.asymmetricQuantizeInputs {
                let rmin = Double(min(0, lo)), rmax = Double(max(0, hi))
                if rmin == rmax { continue }
                let scale = (rmax - rmin) / 255
                guard scale.isFinite, scale > 0 else { continue }
                let zpFromMin = -128 - rmin / scale
                let zpFromMax = 127 - rmax / scale
                let errMin = 128 + abs(rmin / scale)
                let errMax = 127 + abs(rmax / scale)
                let zpDouble = errMin < errMax ? zpFromMin : zpFromMax
                let zp: Int32 = zpDouble <= -128 ? -128 : zpDouble >= 127 ? 127 : Int32(zpDouble.rounded(.toNearestOrAwayFromZero))
                scales[b] = Float(scale)
                offsets[b] = zp
                let inv = Float(1.0 / Double(Float(scale)))
                for i in 0..<count {
                    q[b * count + i] = Self.saturate((Float(zp) + row[i] * inv).rounded(.toNearestOrAwayFromZero), -128)
                }
            } else {
                let range = max(abs(lo), abs(hi))
                if range == 0 || !range.isFinite { continue }
                scales[b] = range / 127
                let inv = 127 / range
                for i in 0..<count {
                    q[b * count + i] = Self.saturate((row[i] * inv).rounded(.toNearestOrAwayFromZero), -127)
                }
            }
        }
        return (scales, offsets)
    }

    /// A rounded float clamped to [lower, 127] (NaN reads as 0) — never traps on odd inputs.
    private static func saturate(_ f: Float, _ lower: Float) -> Int8 {
        guard !f.isNaN else { return 0 }
        return Int8(min(127, max(lower, f)))
    }

    /// gate += W · x for each batch row (float), or the hybrid int8 product scaled back to float.
    private func accumulate(
        _ m: Matrix, x: UnsafePointer<Float>, quantized: [Int8], scales: [Float], offsets: [Int32], batch: Int,
        into gate: inout [Float]
    ) {
        if let w = m.floats {
            for b in 0..<batch {
                for r in 0..<m.rows {
                    var dot: Float = 0
                    for c in 0..<m.cols { dot += w[r * m.cols + c] * x[b * m.cols + c] }
                    gate[b * m.rows + r] += dot
                }
            }
        } else if let w = m.int8 {
            for b in 0..<batch {
                let scale = scales[b] * m.scale
                for r in 0..<m.rows {
                    var dot: Int32 = 0
                    for c in 0..<m.cols { dot &+= Int32(w[r * m.cols + c]) * Int32(quantized[b * m.cols + c]) }
                    if options.asymmetricQuantizeInputs { dot &-= m.rowSums[r] &* offsets[b] }
                    gate[b * m.rows + r] += Float(dot) * scale
                }
            }
        }
    }

    private func isZero(_ x: UnsafePointer<Float>, _ n: Int) -> Bool {
        for i in 0..<n where x[i] != 0 { return false }
        return true
    }

    func step(
        input: UnsafePointer<Float>, batch: Int, outputState: UnsafeMutablePointer<Float>,
        cellState: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>,
        aux: UnsafePointer<Float>? = nil, auxWidth: Int = 0
    ) {
        let nCell = shape.cell, nOut = shape.output, nIn = shape.input
        let useCIFG = inputWeights[0] == nil
        let inputZero = isZero(input, batch * nIn)
        let stateZero = isZero(outputState, batch * nOut)
        var qIn = [Int8](), qState = [Int8]()
        var inQ: (scales: [Float], offsets: [Int32]) = ([], [])
        var stQ: (scales: [Float], offsets: [Int32]) = ([], [])
        if hybrid {
            if !inputZero { inQ = quantizeRows(input, batch: batch, count: nIn, into: &qIn) }
            if !stateZero { stQ = quantizeRows(outputState, batch: batch, count: nOut, into: &qState) }
        }
        let auxZero = aux.map { isZero($0, batch * auxWidth) } ?? true
        var qAux = [Int8]()
        var auxQ: (scales: [Float], offsets: [Int32]) = ([], [])
        if hybrid, let aux, !auxZero { auxQ = quantizeRows(aux, batch: batch, count: auxWidth, into: &qAux) }

        func gate(_ g: Int, activation: (Float) -> Float, peepholeIndex: Int?) -> [Float] {
            var out = [Float](repeating: 0, count: batch * nCell)
            let useLayerNorm = layerNorm[g] != nil
            if !useLayerNorm, let bias = biases[g] {
                for b in 0..<batch { for c in 0..<nCell { out[b * nCell + c] = bias[c] } }
            }
            if let w = inputWeights[g], !(hybrid && inputZero), !inputZero {
                accumulate(w, x: input, quantized: qIn, scales: inQ.scales, offsets: inQ.offsets, batch: batch, into: &out)
            }
            if let a = auxWeights[g], let aux, !auxZero {
                accumulate(a, x: aux, quantized: qAux, scales: auxQ.scales, offsets: auxQ.offsets, batch: batch, into: &out)
            }
            if options.diagonalRecurrent, let r = recurrentWeights[g] {
                // Element-wise (float cells only: `prepare` refuses int8 diagonal weights).
                if let w = r.floats {
                    for b in 0..<batch { for c in 0..<nCell { out[b * nCell + c] += w[c] * outputState[b * nOut + c] } }
                }
            } else if let r = recurrentWeights[g], !(hybrid && stateZero) {
                accumulate(r, x: outputState, quantized: qState, scales: stQ.scales, offsets: stQ.offsets, batch: batch, into: &out)
            }
            if let p = peepholeIndex.flatMap({ peephole[$0] }) {
                for b in 0..<batch { for c in 0..<nCell { out[b * nCell + c] += p[c] * cellState[b * nCell + c] } }
            }
            if let ln = layerNorm[g] {
                for b in 0..<batch {
                    var sum: Float = 0
                    for c in 0..<nCell { sum += out[b * nCell + c] }
                    let mean = sum / Float(nCell)
                    var sumDiffSq: Float = 0
                    for c in 0..<nCell {
                        let d = out[b * nCell + c] - mean
                        sumDiffSq += d * d
                    }
                    let variance = sumDiffSq / Float(nCell)
                    let inv = 1 / (variance + 1e-8).squareRoot()
                    for c in 0..<nCell {
                        out[b * nCell + c] = (out[b * nCell + c] - mean) * inv * ln[c] + (biases[g]?[c] ?? 0)
                    }
                }
            }
            for i in out.indices { out[i] = activation(out[i]) }
            return out
        }
        let sigmoid: (Float) -> Float = { 1 / (1 + expf(-$0)) }
        let act: (Float) -> Float = { [options] in options.activate($0) }

        let inputGate = useCIFG ? [] : gate(0, activation: sigmoid, peepholeIndex: 0)
        let forgetGate = gate(1, activation: sigmoid, peepholeIndex: 1)
        let cellGate = gate(2, activation: act, peepholeIndex: nil)
        for i in 0..<(batch * nCell) {
            var c = forgetGate[i] * cellState[i]
            c += cellGate[i] * (useCIFG ? 1 - forgetGate[i] : inputGate[i])
            if options.cellClip > 0 { c = min(max(c, -options.cellClip), options.cellClip) }
            cellState[i] = c
        }
        let outputGate = gate(3, activation: sigmoid, peepholeIndex: 2)
        var hidden = [Float](repeating: 0, count: batch * nCell)
        if options.isNone {
            // LiteRT's ApplyActivationToVector leaves its output untouched for "none", so the hidden
            // state is formed from the buffer's previous content: the cell gate, not the cell state.
            for i in hidden.indices { hidden[i] = outputGate[i] * cellGate[i] }
        } else {
            for i in hidden.indices { hidden[i] = outputGate[i] * options.activate(cellState[i]) }
        }

        if let p = projection {
            var proj = [Float](repeating: 0, count: batch * nOut)
            if let bias = projectionBias {
                for b in 0..<batch { for o in 0..<nOut { proj[b * nOut + o] = bias[o] } }
            }
            hidden.withUnsafeBufferPointer { h in
                if hybrid {
                    if !isZero(h.baseAddress!, batch * nCell) {
                        var qh = [Int8]()
                        let hq = quantizeRows(h.baseAddress!, batch: batch, count: nCell, into: &qh)
                        accumulate(p, x: h.baseAddress!, quantized: qh, scales: hq.scales, offsets: hq.offsets, batch: batch, into: &proj)
                    }
                } else {
                    accumulate(p, x: h.baseAddress!, quantized: [], scales: [], offsets: [], batch: batch, into: &proj)
                }
            }
            if options.projClip > 0 {
                for i in proj.indices { proj[i] = min(max(proj[i], -options.projClip), options.projClip) }
            }
            for i in proj.indices { outputState[i] = proj[i] }
        } else {
            for i in 0..<(batch * nOut) { outputState[i] = hidden[i] }
        }
        for i in 0..<(batch * nOut) { output[i] = outputState[i] }
    }
}

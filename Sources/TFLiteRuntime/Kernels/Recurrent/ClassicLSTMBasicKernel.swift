import Foundation

/// LSTM with `kernel_type` BASIC (the 5-input cell of early TensorFlow Lite models), float32 or
/// quantized (uint8 input, activations and weights, int32 biases, int16 state with 4 integer bits:
/// LiteRT's `LstmCell<4>`, gate arithmetic in gemmlowp 16-bit fixed point).
///
/// Inputs: input `[batch, in]`, previous activation `[batch, out]`, weights `[4·out, in + out]`,
/// biases `[4·out]`, previous state `[batch, out]`. Outputs: activation `[batch, out]`, state
/// `[batch, out]`, the concatenated `[input, previous activation]` and the four gates'
/// pre-activations `[batch, 4·out]` (LiteRT exposes both temporaries as outputs). Gate order in
/// the weights: input, new input, forget, output. Options: `LSTMOptions` (activation tanh, no clips).
final class ClassicLSTMBasicKernel: OpKernel {
    private var batch = 0, inputWidth = 0, depth = 0
    /// Quantized form: the accumulator rescale (4096 × bias scale) and the weights' zero point.
    private var quantized: (multiplier: FixedPoint.Multiplier, weightsZero: Int32)?

    init(_ node: Node) throws {
        try node.expect(inputs: 5, outputs: 4)
        let p = try LSTMParameters(node)
        guard p.activation == .tanh, p.cellClip == 0, p.projectionClip == 0 else {
            throw node.error("the basic LSTM kernel needs a tanh activation and no clipping")
        }
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let previous = try node.input(1)
        let w = try node.input(2)
        let bias = try node.input(3)
        let state = try node.input(4)
        if x.type == .uint8 {
            for (t, role) in [(previous, "previous activation"), (w, "weights")] {
                try node.expect(t, type: .uint8, role: role)
            }
            try node.expect(bias, type: .int32, role: "biases")
            try node.expect(state, type: .int16, role: "state")
            let outputs = try (0..<4).map { try node.output($0) }
            for (t, type) in zip(outputs, [TensorType.uint8, .int16, .uint8, .int16]) {
                try node.expect(t, type: type, role: "output")
            }
            // LiteRT supports only a state scale of 2^-11 (4 integer bits).
            guard outputs[1].scale == Float(1.0 / 2048.0) else {
                throw node.error("the quantized basic LSTM needs a state scale of 2^-11")
            }
            quantized = (FixedPoint.quantizeMultiplier(4096 * Double(bias.scale)), Int32(w.zeroPoint))
        } else {
            for (t, role) in [
                (x, "input"), (previous, "previous activation"), (w, "weights"), (bias, "biases"), (state, "state"),
            ] {
                try node.expect(t, type: .float32, role: role)
            }
            quantized = nil
        }
        guard x.rank >= 1, previous.rank == x.rank, w.rank == 2, bias.rank == 1, state.shape == previous.shape else {
            throw node.error(
                "operand shapes \(x.shape), \(previous.shape), \(w.shape), \(bias.shape), \(state.shape) do not fit")
        }
        inputWidth = x.shape[x.rank - 1]
        depth = previous.shape[previous.rank - 1]
        batch = inputWidth == 0 ? 0 : x.elementCount / inputWidth
        guard depth > 0, w.shape == [4 * depth, inputWidth + depth], bias.elementCount == 4 * depth,
            previous.elementCount == batch * depth
        else { throw node.error("weights \(w.shape) and biases \(bias.shape) do not fit \(depth) units") }
        let lead = Array(x.shape.dropLast())
        let q = quantized != nil
        try node.setOutput(0, type: q ? .uint8 : .float32, shape: lead + [depth])
        try node.setOutput(1, type: q ? .int16 : .float32, shape: lead + [depth])
        try node.setOutput(2, type: q ? .uint8 : .float32, shape: lead + [inputWidth + depth])
        try node.setOutput(3, type: q ? .int16 : .float32, shape: lead + [4 * depth])
    }

    private func evalQuantized(_ node: Node, _ q: (multiplier: FixedPoint.Multiplier, weightsZero: Int32)) throws {
        let x = try node.elementwiseBuffer(try node.input(0), UInt8.self, role: "input")
        let previous = try node.elementwiseBuffer(try node.input(1), UInt8.self, role: "previous activation")
        let w = try node.elementwiseBuffer(try node.input(2), UInt8.self, role: "weights")
        let bias = try node.elementwiseBuffer(try node.input(3), Int32.self, role: "biases")
        let state = try node.elementwiseBuffer(try node.input(4), Int16.self, role: "state")
        let activation = try node.elementwiseBuffer(try node.output(0), UInt8.self, role: "activation")
        let newState = try node.elementwiseBuffer(try node.output(1), Int16.self, role: "state output")
        let concat = try node.elementwiseBuffer(try node.output(2), UInt8.self, role: "concatenation")
        let gates = try node.elementwiseBuffer(try node.output(3), Int16.self, role: "gates")
        let width = inputWidth + depth
        typealias G = GemmlowpInt16
        for b in 0..<batch {
            for i in 0..<inputWidth { concat[b * width + i] = x[b * inputWidth + i] }
            for i in 0..<depth { concat[b * width + inputWidth + i] = previous[b * depth + i] }
            for g in 0..<(4 * depth) {
                var acc = bias[g]
                for i in 0..<width {
                    acc &+= (Int32(concat[b * width + i]) - 128) &* (Int32(w[g * width + i]) - q.weightsZero)
                }
                let scaled = Self.rescale(acc, q.multiplier)
                gates[b * 4 * depth + g] = Int16(min(max(scaled, -32768), 32767))
            }
            // Gates are Q3.12, gate outputs Q0.15, the state Q4.11 (gemmlowp fixed point).
            let row = b * 4 * depth
            for c in 0..<depth {
                let inputGate = G.logistic(gates[row + c])
                let modulation = G.tanh(gates[row + depth + c])
                let forgetGate = G.logistic(gates[row + 2 * depth + c])
                let outputGate = G.logistic(gates[row + 3 * depth + c])
                let inputTimesModulation = G.mul(inputGate, modulation)
                let kept = G.mul(forgetGate, state[b * depth + c])
                let added = Int32(G.multiplyByPOT(inputTimesModulation, -4)) + Int32(kept)
                let s = Int16(min(max(added, -32768), 32767))
                let output = G.mul(outputGate, G.tanh(G.multiplyByPOT(s, 1)))
                newState[b * depth + c] = s
                let rescaled = ReferenceQuantizedActivation.rdbpot16(output, 8)
                activation[b * depth + c] = UInt8(128 + Int(min(max(rescaled, -128), 127)))
            }
        }
    }

    /// The GEMM output stage LiteRT's x86 build runs here (ruy): a rounding doubling high multiply,
    /// then a right shift rounding halves up (not away from zero, as `MultiplyByQuantizedMultiplier`).
    private static func rescale(_ x: Int32, _ m: FixedPoint.Multiplier) -> Int32 {
        let high = FixedPoint.saturatingRoundingDoublingHighMul(
            x &* Int32(truncatingIfNeeded: Int64(1) << max(0, m.shift)), m.multiplier)
        let right = max(0, -m.shift)
        guard right > 0 else { return high }
        return Int32(truncatingIfNeeded: (Int64(high) + (Int64(1) << (right - 1))) >> Int64(right))
    }

    func eval(_ node: Node) throws {
        if let q = quantized { return try evalQuantized(node, q) }
        let x = try FloatOperand.read(try node.input(0), node: node, role: "input")
        let previous = try FloatOperand.read(try node.input(1), node: node, role: "previous activation")
        let w = try FloatOperand.read(try node.input(2), node: node, role: "weights")
        let bias = try FloatOperand.read(try node.input(3), node: node, role: "biases")
        let state = try FloatOperand.read(try node.input(4), node: node, role: "state")
        let activation = try FloatOperand.read(try node.output(0), node: node, role: "activation")
        let newState = try FloatOperand.read(try node.output(1), node: node, role: "state output")
        let concat = try FloatOperand.read(try node.output(2), node: node, role: "concatenation")
        let gates = try FloatOperand.read(try node.output(3), node: node, role: "gates")
        let width = inputWidth + depth
        for b in 0..<batch {
            for i in 0..<inputWidth { concat[b * width + i] = x[b * inputWidth + i] }
            for i in 0..<depth { concat[b * width + inputWidth + i] = previous[b * depth + i] }
            for g in 0..<(4 * depth) {
                var sum: Float = 0
                for i in 0..<width { sum += concat[b * width + i] * w[g * width + i] }
                gates[b * 4 * depth + g] = sum + bias[g]
            }
            for c in 0..<depth {
                let row = b * 4 * depth
                let inputGate = 1 / (1 + expf(-gates[row + c]))
                let newInput = tanhf(gates[row + depth + c])
                let forgetGate = 1 / (1 + expf(-gates[row + 2 * depth + c]))
                let outputGate = 1 / (1 + expf(-gates[row + 3 * depth + c]))
                let s = inputGate * newInput + forgetGate * state[b * depth + c]
                newState[b * depth + c] = s
                activation[b * depth + c] = outputGate * tanhf(s)
            }
        }
    }
}

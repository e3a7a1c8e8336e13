import Foundation

/// LSTM with `kernel_type` BASIC (the 5-input cell of early TensorFlow Lite models), float32.
///
/// Inputs: input `[batch, in]`, previous activation `[batch, out]`, weights `[4·out, in + out]`,
/// biases `[4·out]`, previous state `[batch, out]`. Outputs: activation `[batch, out]`, state
/// `[batch, out]`, the concatenated `[input, previous activation]` and the four gates'
/// pre-activations `[batch, 4·out]` (LiteRT exposes both temporaries as outputs). Gate order in
/// the weights: input, new input, forget, output. Options: `LSTMOptions` (activation tanh, no clips).
final class ClassicLSTMBasicKernel: OpKernel {
    private var batch = 0, inputWidth = 0, depth = 0

    init(_ node: Node) throws {
        try node.expect(inputs: 5, outputs: 4)
        let p = try LSTMParameters(node)
        guard p.activation == .tanh, p.cellClip == 0, p.projectionClip == 0 else {
            throw node.error("the basic LSTM kernel needs a tanh activation and no clipping")
        }
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0), previous = try node.input(1), w = try node.input(2), bias = try node.input(3)
        let state = try node.input(4)
        for (t, role) in [(x, "input"), (previous, "previous activation"), (w, "weights"), (bias, "biases"), (state, "state")] {
            try node.expect(t, type: .float32, role: role)
        }
        guard x.rank >= 1, previous.rank == x.rank, w.rank == 2, bias.rank == 1, state.shape == previous.shape else {
            throw node.error("operand shapes \(x.shape), \(previous.shape), \(w.shape), \(bias.shape), \(state.shape) do not fit")
        }
        inputWidth = x.shape[x.rank - 1]
        depth = previous.shape[previous.rank - 1]
        batch = inputWidth == 0 ? 0 : x.elementCount / inputWidth
        guard depth > 0, w.shape == [4 * depth, inputWidth + depth], bias.elementCount == 4 * depth,
            previous.elementCount == batch * depth
        else { throw node.error("weights \(w.shape) and biases \(bias.shape) do not fit \(depth) units") }
        let lead = Array(x.shape.dropLast())
        try node.setOutput(0, type: .float32, shape: lead + [depth])
        try node.setOutput(1, type: .float32, shape: lead + [depth])
        try node.setOutput(2, type: .float32, shape: lead + [inputWidth + depth])
        try node.setOutput(3, type: .float32, shape: lead + [4 * depth])
    }

    func eval(_ node: Node) throws {
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

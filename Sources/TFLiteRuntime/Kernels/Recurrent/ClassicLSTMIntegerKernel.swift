/// LSTM (full kernel), fully integer: int8 input, output and output state, int16 cell state, int8
/// weights, int32 biases, optional int16 peephole and layer-norm coefficients; the five
/// intermediates carry the gate and hidden scales. One step of the integer LSTM shared with
/// UNIDIRECTIONAL_SEQUENCE_LSTM (`LSTMIntegerParameters`, LiteRT's `LstmStepInteger8x8_16`) over
/// the `[batch, in]` input. Options: `LSTMOptions` (activation, cell and projection clip).
final class ClassicLSTMIntegerKernel: OpKernel {
    private let options: LSTMOptions
    private var parameters: LSTMIntegerParameters?
    private var shape = LSTMShape(batch: 0, time: 1, input: 0, cell: 0, output: 0, timeMajor: true)
    private var needsStateReset = true

    init(_ node: Node) throws {
        try node.expect(inputs: 20, 24, outputs: 1)
        let p = try LSTMParameters(node)
        guard p.kernelType == 0 else { throw node.error("only the full LSTM kernel is supported (kernel_type 0)") }
        var o = LSTMOptions(
            activation: Int(p.activation.rawValue), cellClip: p.cellClip, projClip: p.projectionClip,
            timeMajor: true)
        o.asymmetricQuantizeInputs = p.asymmetricQuantizeInputs
        guard [0, 1, 2, 3, 4, 6].contains(o.activation) else {
            throw node.error("unsupported fused activation \(o.activation)")
        }
        guard o.cellClip >= 0, o.projClip >= 0, o.cellClip.isFinite, o.projClip.isFinite else {
            throw node.error("cell_clip and proj_clip must be finite and non-negative")
        }
        options = o
    }

    func prepare(_ node: Node) throws {
        needsStateReset = true
        let x = try node.input(0)
        try node.expect(x, type: .int8, role: "input")
        guard x.rank == 2 else { throw node.error("input must have rank 2, has shape \(x.shape)") }
        guard let toOutput = node.optionalInput(4), let recurrentToOutput = node.optionalInput(8), toOutput.rank == 2,
            recurrentToOutput.rank == 2
        else { throw node.error("input_to_output and recurrent_to_output weights (rank 2) are required") }
        let s = LSTMShape(
            batch: x.dim(0), time: 1, input: x.dim(1), cell: toOutput.dim(0), output: recurrentToOutput.dim(1),
            timeMajor: true)
        guard s.cell > 0, s.output > 0, toOutput.dim(1) == s.input else {
            throw node.error("weights \(toOutput.shape) do not fit input \(x.shape)")
        }
        for (k, dims) in [
            (1, [s.cell, s.input]), (2, [s.cell, s.input]), (3, [s.cell, s.input]), (5, [s.cell, s.output]),
            (6, [s.cell, s.output]), (7, [s.cell, s.output]), (16, [s.output, s.cell]),
        ] {
            if let t = node.optionalInput(k), t.shape != dims {
                throw node.error("operand \(k) has shape \(t.shape), expected \(dims)")
            }
        }
        for k in [9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23] {
            if let t = node.optionalInput(k), t.shape != [s.cell] {
                throw node.error("operand \(k) has shape \(t.shape)")
            }
        }
        if let t = node.optionalInput(17), t.shape != [s.output] {
            throw node.error("projection bias has shape \(t.shape)")
        }
        if node.optionalInput(16) == nil, s.output != s.cell {
            throw node.error("without projection the output width must equal the cell width")
        }
        let outputState = try node.input(LSTMOperand.outputState)
        let cellState = try node.input(LSTMOperand.cellState)
        guard outputState.elementCount == s.batch * s.output, cellState.elementCount == s.batch * s.cell else {
            throw node.error("states \(outputState.shape) and \(cellState.shape) do not fit batch \(s.batch)")
        }
        shape = s
        parameters = try LSTMIntegerParameters(node, shape: s, options: options)
        try node.setOutput(0, type: .int8, shape: [s.batch, s.output])
    }

    func eval(_ node: Node) throws {
        guard let p = parameters else { throw node.error("was not prepared") }
        if needsStateReset {
            // LiteRT resets variables when tensors are allocated: 0, or the zero point for int8.
            for i in [LSTMOperand.outputState, LSTMOperand.cellState] {
                let t = try node.input(i)
                guard let raw = t.raw.baseAddress else { continue }
                let fill: UInt8 = t.type == .int8 ? UInt8(truncatingIfNeeded: t.zeroPoint) : 0
                raw.initializeMemory(as: UInt8.self, repeating: fill, count: t.raw.count)
            }
            needsStateReset = false
        }
        try p.run(node, shape: shape)
    }
}

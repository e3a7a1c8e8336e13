/// RNN, UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN: fully connected recurrent
/// layers, float32 or hybrid (int8 weights, float32 input, state and output).
///
/// RNN inputs: input `[batch, in]`, weights `[units, in]`, recurrent weights `[units, units]`, bias
/// `[units]`, hidden state `[batch, units]` (variable); output `[batch, units]`. The sequence form
/// takes input `[batch, time, in]` (or `[time, batch, in]` when time-major) and outputs every step.
/// BIDIRECTIONAL_SEQUENCE_RNN has a forward (operands 1–4) and a backward (5–8) cell, the backward
/// one walking time in reverse. An auxiliary input (9) with weights (10, 11) adds `W_aux · aux` to
/// both cells; without weights the backward cell reads it instead of the input. Its outputs are the two
/// directions, or one output with both side by side when `merge_outputs`. Options: `RNNOptions`,
/// `SequenceRNNOptions`, `BidirectionalSequenceRNNOptions` (activation, time-major, merge,
/// asymmetric input quantization). LiteRT zeroes the states when tensors are allocated; so does
/// the first run after each `prepare`.
final class ClassicRNNKernel: OpKernel {
    enum Form { case single, sequence, bidirectional }

    private let form: Form
    private let activation: FusedActivation
    private let timeMajor: Bool
    private let merge: Bool
    private let asymmetric: Bool
    private var needsStateReset = true
    private var scratch = [Int8]()
    private var useAuxWeights = false
    private var auxAsBackwardInput = false

    init(_ node: Node, form: Form) throws {
        self.form = form
        switch form {
        case .single:
            try node.expect(inputs: 5, outputs: 1)
            let p = try RNNParameters(node)
            (activation, timeMajor, merge, asymmetric) = (p.activation, true, false, p.asymmetricQuantizeInputs)
        case .sequence:
            try node.expect(inputs: 5, outputs: 1)
            let p = try SequenceRNNParameters(node)
            (activation, timeMajor, merge, asymmetric) = (p.activation, p.timeMajor, false, p.asymmetricQuantizeInputs)
        case .bidirectional:
            try node.expect(inputs: 9, 12, outputs: node.outputs.count)
            let p = try BidirectionalSequenceRNNParameters(node)
            (activation, timeMajor, merge, asymmetric) = (
                p.activation, p.timeMajor, p.mergeOutputs, p.asymmetricQuantizeInputs
            )
            guard node.outputs.count == (merge ? 1 : 2) else {
                throw node.error("expects \(merge ? 1 : 2) outputs, has \(node.outputs.count)")
            }
        }
    }

    private func cell(_ node: Node, _ first: Int) throws -> ClassicRNNCell {
        var c = try ClassicRNNCell(
            input: .init(try node.input(first), node: node, role: "weights"),
            recurrent: .init(try node.input(first + 1), node: node, role: "recurrent weights"),
            bias: try node.input(first + 2), activation: activation, asymmetric: asymmetric, node: node)
        if useAuxWeights {
            let w = try ClassicRNNCell.Weights(
                try node.input(first == 1 ? 10 : 11), node: node, role: "auxiliary weights")
            guard w.rows == c.units, w.isHybrid == c.input.isHybrid else {
                throw node.error("auxiliary weights must have \(c.units) rows and the weights' type")
            }
            c.aux = w
        }
        return c
    }

    /// Batch, time and input width of the input operand.
    private func dimensions(_ node: Node) throws -> (batch: Int, time: Int, width: Int) {
        let x = try node.input(0)
        try node.expect(x, type: .float32, role: "input")
        if form == .single {
            guard x.rank == 2 else { throw node.error("input must have rank 2, has shape \(x.shape)") }
            return (x.dim(0), 1, x.dim(1))
        }
        guard x.rank == 3 else { throw node.error("input must have rank 3, has shape \(x.shape)") }
        return timeMajor ? (x.dim(1), x.dim(0), x.dim(2)) : (x.dim(0), x.dim(1), x.dim(2))
    }

    private var stateIndices: [Int] { form == .bidirectional ? [4, 8] : [4] }

    func prepare(_ node: Node) throws {
        needsStateReset = true
        let auxInput = form == .bidirectional ? node.optionalInput(9) : nil
        useAuxWeights = auxInput != nil && node.optionalInput(10) != nil
        auxAsBackwardInput = auxInput != nil && !useAuxWeights
        let (batch, time, width) = try dimensions(node)
        var auxWidth = 0
        if let a = auxInput {
            try node.expect(a, type: .float32, role: "auxiliary input")
            let lead = timeMajor ? [time, batch] : [batch, time]
            guard a.rank == 3, Array(a.shape.prefix(2)) == lead else {
                throw node.error("auxiliary input has shape \(a.shape), expected \(lead) + [width]")
            }
            auxWidth = a.dim(2)
        }
        var unitCounts = [Int]()
        let firsts = form == .bidirectional ? [1, 5] : [1]
        for (k, first) in firsts.enumerated() {
            // Shapes and types only: weights may be run-time inputs, read in `eval`.
            let w = try node.input(first)
            let r = try node.input(first + 1)
            let b = try node.input(first + 2)
            try node.expect(w, type: .float32, .int8, .uint8, role: "weights")
            let units = w.rank == 2 ? w.dim(0) : -1
            let cellWidth = k == 1 && auxAsBackwardInput ? auxWidth : width
            guard w.rank == 2, w.dim(1) == cellWidth else {
                throw node.error("weights have shape \(w.shape); the input has width \(cellWidth)")
            }
            guard r.shape == [units, units], (r.type == .float32) == (w.type == .float32) else {
                throw node.error(
                    "recurrent weights have shape \(r.shape) and type \(r.type.name); need [\(units), \(units)]")
            }
            try node.expect(b, type: .float32, role: "bias")
            guard b.elementCount == units else {
                throw node.error("bias has \(b.elementCount) values for \(units) units")
            }
            if useAuxWeights {
                let a = try node.input(first == 1 ? 10 : 11)
                guard a.shape == [units, auxWidth], (a.type == .float32) == (w.type == .float32) else {
                    throw node.error("auxiliary weights have shape \(a.shape); need [\(units), \(auxWidth)]")
                }
            }
            let state = try node.input(stateIndices[k])
            try node.expect(state, type: .float32, role: "hidden state")
            guard state.elementCount == batch * units else {
                throw node.error("hidden state has shape \(state.shape), needs \(batch) x \(units)")
            }
            unitCounts.append(units)
        }
        let lead = form == .single ? [batch] : (timeMajor ? [time, batch] : [batch, time])
        if merge {
            try node.setOutput(0, type: .float32, shape: lead + [unitCounts.reduce(0, +)])
        } else {
            for (k, u) in unitCounts.enumerated() { try node.setOutput(k, type: .float32, shape: lead + [u]) }
        }
    }

    func eval(_ node: Node) throws {
        let (batch, time, width) = try dimensions(node)
        if needsStateReset {
            for i in stateIndices {
                let s = try FloatOperand.read(try node.input(i), node: node, role: "hidden state")
                for j in s.indices { s[j] = 0 }
            }
            needsStateReset = false
        }
        let input = UnsafePointer(try FloatOperand.base(try node.input(0), node: node, role: "input"))
        var auxX: UnsafePointer<Float>?
        var auxWidth = 0
        if form == .bidirectional, let a = node.optionalInput(9) {
            auxX = UnsafePointer(try FloatOperand.base(a, node: node, role: "auxiliary input"))
            auxWidth = a.shape.last ?? 0
        }
        let cells = try (form == .bidirectional ? [1, 5] : [1]).map { try cell(node, $0) }
        let totalUnits = cells.reduce(0) { $0 + $1.units }
        for (k, c) in cells.enumerated() {
            let state = try FloatOperand.base(try node.input(stateIndices[k]), node: node, role: "hidden state")
            let out = try FloatOperand.base(try node.output(merge ? 0 : k), node: node, role: "output")
            let (y, stride) = merge ? (out + (k == 0 ? 0 : cells[0].units), totalUnits) : (out, c.units)
            let backward = k == 1
            let readsAux = backward && auxAsBackwardInput
            guard let x = readsAux ? auxX : input else { throw node.error("auxiliary input has no data") }
            let width = readsAux ? auxWidth : width
            let stepAux = useAuxWeights ? auxX : nil
            // LiteRT's hybrid time-major bidirectional kernel wraps both directions' passes in one
            // more loop over time, so each direction runs over the sequence `time` times, its state
            // carried on; the outputs are those of the last pass. Reproduced for identical results.
            let passes = form == .bidirectional && c.input.isHybrid ? time : 1
            if timeMajor {
                for _ in 0..<passes {
                    for s in 0..<time {
                        let t = backward ? time - 1 - s : s
                        c.step(
                            x + t * batch * width, batch: batch, state: state, output: y + t * batch * stride,
                            outputStride: stride, scratch: &scratch, auxX: stepAux.map { $0 + t * batch * auxWidth })
                    }
                }
            } else {
                for b in 0..<batch {
                    for s in 0..<time {
                        let t = backward ? time - 1 - s : s
                        c.step(
                            x + (b * time + t) * width, batch: 1, state: state + b * c.units,
                            output: y + (b * time + t) * stride, outputStride: stride, scratch: &scratch,
                            auxX: stepAux.map { $0 + (b * time + t) * auxWidth })
                    }
                }
            }
        }
    }
}

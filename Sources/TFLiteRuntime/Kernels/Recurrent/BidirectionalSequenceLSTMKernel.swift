import Foundation

/// LSTM (the full, non-sequence kernel) and BIDIRECTIONAL_SEQUENCE_LSTM, float32 or hybrid (int8
/// weights, float32 input, states and output), on the same step as UNIDIRECTIONAL_SEQUENCE_LSTM
/// (`LSTMFloatCell`).
///
/// LSTM: the 24 operands of the sequence kernel (input `[batch, in]`, 17 weights and biases, output
/// and cell states as variables, 4 optional layer-norm coefficients); output `[batch, out]`;
/// options `LSTMOptions` (activation, cell and projection clip, kernel_type must be FULL).
/// BIDIRECTIONAL_SEQUENCE_LSTM: input, forward operands 1–17, backward 18–34 (same order as LSTM's
/// 1–17), states 35–38 (forward output, forward cell, backward output, backward cell), then an
/// optional auxiliary input (39) with per-gate auxiliary weights (forward 40–43, backward 44–47):
/// with weights both cells add `W_aux · aux` to their gates; without them the backward cell reads
/// the auxiliary input instead of the input (LiteRT's non-stacking mode). Outputs forward and
/// backward sequences, or one output with both side by side (`merge_outputs`); options
/// `BidirectionalSequenceLSTMOptions` (time-major by default).
final class BidirectionalSequenceLSTMKernel: OpKernel {
    /// Where one direction's operands are: its input_to_input weights and its two states.
    private struct Direction {
        var first: Int
        var outputState: Int
        var cellState: Int
        var layerNorm: Int?
        var aux: Int?
    }

    private let bidirectional: Bool
    private let options: LSTMOptions
    private let merge: Bool
    private var directions: [Direction]
    private var shapes: [LSTMShape] = []
    private var hybrid = false
    private var needsStateReset = true
    /// Auxiliary input present with weights (added to both cells' gates).
    private var useAuxWeights = false
    /// Auxiliary input present without weights: the backward cell reads it as its input.
    private var auxAsBackwardInput = false

    init(_ node: Node, bidirectional: Bool) throws {
        self.bidirectional = bidirectional
        if bidirectional {
            try node.expect(inputs: 39, 48, outputs: node.outputs.count)
            let p = try BidirectionalSequenceLSTMParameters(node)
            var o = LSTMOptions(
                activation: Int(p.activation.rawValue), cellClip: p.cellClip, projClip: p.projectionClip,
                timeMajor: p.timeMajor)
            o.asymmetricQuantizeInputs = p.asymmetricQuantizeInputs
            options = o
            merge = p.mergeOutputs
            guard node.outputs.count == (merge ? 1 : 2) else {
                throw node.error("expects \(merge ? 1 : 2) outputs, has \(node.outputs.count)")
            }
            directions = [
                Direction(first: 1, outputState: 35, cellState: 36, aux: 40),
                Direction(first: 18, outputState: 37, cellState: 38, aux: 44),
            ]
        } else {
            try node.expect(inputs: 20, 24, outputs: 1)
            let p = try LSTMParameters(node)
            guard p.kernelType == 0 else { throw node.error("only the full LSTM kernel is supported (kernel_type 0)") }
            var o = LSTMOptions(
                activation: Int(p.activation.rawValue), cellClip: p.cellClip, projClip: p.projectionClip,
                timeMajor: true)
            o.asymmetricQuantizeInputs = p.asymmetricQuantizeInputs
            options = o
            merge = false
            directions = [
                Direction(first: 1, outputState: 18, cellState: 19, layerNorm: node.inputCount > 20 ? 20 : nil)
            ]
        }
        guard [0, 1, 2, 3, 4, 6].contains(options.activation) else {
            throw node.error("unsupported fused activation \(options.activation)")
        }
        guard options.cellClip >= 0, options.projClip >= 0, options.cellClip.isFinite, options.projClip.isFinite else {
            throw node.error("cell_clip and proj_clip must be finite and non-negative")
        }
    }

    func prepare(_ node: Node) throws {
        needsStateReset = true
        let x = try node.input(0)
        try node.expect(x, type: .float32, role: "input")
        let auxInput = bidirectional ? node.optionalInput(39) : nil
        useAuxWeights = auxInput != nil && (40..<48).contains { node.optionalInput($0) != nil }
        auxAsBackwardInput = auxInput != nil && !useAuxWeights
        if auxInput == nil, bidirectional, (40..<node.inputCount).contains(where: { node.optionalInput($0) != nil }) {
            throw node.error("auxiliary weights without an auxiliary input")
        }
        let (batch, time, width): (Int, Int, Int)
        if bidirectional {
            guard x.rank == 3 else { throw node.error("input must have rank 3, has shape \(x.shape)") }
            (batch, time, width) = options.timeMajor ? (x.dim(1), x.dim(0), x.dim(2)) : (x.dim(0), x.dim(1), x.dim(2))
        } else {
            guard x.rank == 2 else { throw node.error("input must have rank 2, has shape \(x.shape)") }
            (batch, time, width) = (x.dim(0), 1, x.dim(1))
        }
        var auxWidth = 0
        if let a = auxInput {
            try node.expect(a, type: .float32, role: "auxiliary input")
            let lead = options.timeMajor ? [time, batch] : [batch, time]
            guard a.rank == 3, Array(a.shape.prefix(2)) == lead else {
                throw node.error("auxiliary input has shape \(a.shape), expected \(lead) + [width]")
            }
            auxWidth = a.dim(2)
        }
        shapes = []
        hybrid = false
        for (k, d) in directions.enumerated() {
            let s = try checkDirection(
                node, d, batch: batch, time: time, width: k == 1 && auxAsBackwardInput ? auxWidth : width)
            if useAuxWeights, let first = d.aux {
                for g in 0..<4 {
                    guard let w = node.optionalInput(first + g) else {
                        if g == 0 && node.optionalInput(d.first) == nil { continue }
                        throw node.error("auxiliary weights \(first + g) are missing")
                    }
                    guard w.shape == [s.cell, auxWidth], w.type == node.optionalInput(d.first + 3)?.type else {
                        throw node.error(
                            "auxiliary weights \(first + g) have shape \(w.shape) or a type unlike the weights")
                    }
                }
            }
            shapes.append(s)
        }
        let lead = bidirectional ? (options.timeMajor ? [time, batch] : [batch, time]) : [batch]
        if merge {
            try node.setOutput(0, type: .float32, shape: lead + [shapes[0].output + shapes[1].output])
        } else {
            for (k, s) in shapes.enumerated() { try node.setOutput(k, type: .float32, shape: lead + [s.output]) }
        }
    }

    private func checkDirection(_ node: Node, _ d: Direction, batch: Int, time: Int, width: Int) throws -> LSTMShape {
        func operand(_ k: Int) -> RuntimeTensor? { node.optionalInput(d.first + k) }
        guard let toOutput = operand(3), let recurrentToOutput = operand(7), toOutput.rank == 2,
            recurrentToOutput.rank == 2
        else { throw node.error("input_to_output and recurrent_to_output weights (rank 2) are required") }
        let s = LSTMShape(
            batch: batch, time: time, input: width, cell: toOutput.dim(0), output: recurrentToOutput.dim(1),
            timeMajor: options.timeMajor)
        guard s.cell > 0, s.output > 0 else { throw node.error("cell and output widths must be positive") }
        let weightType = toOutput.type
        guard weightType == .float32 || weightType == .int8 || weightType == .uint8 else {
            throw node.error("weights have type \(weightType.name); supported: float32, int8, uint8")
        }
        // uint8 weights (older converters) are hybrid too: LiteRT reads their bytes as int8.
        if weightType != .float32 { hybrid = true }
        func expect(_ k: Int, _ dims: [Int], required: Bool, weight: Bool) throws {
            guard let t = operand(k) else {
                if required { throw node.error("operand \(d.first + k) is required") }
                return
            }
            guard t.shape == dims else {
                throw node.error("operand \(d.first + k) has shape \(t.shape), expected \(dims)")
            }
            try node.expect(t, type: weight ? weightType : .float32, role: "operand \(d.first + k)")
            guard t.isConstant else { return }  // run-time operands are read in `eval`
            if weight && weightType != .float32 {
                _ = try node.elementwiseBuffer(t, Int8.self, role: "operand \(d.first + k)")
            } else {
                _ = try FloatOperand.read(t, node: node, role: "operand \(d.first + k)")
            }
        }
        let cifg = operand(0) == nil
        for k in 0..<4 { try expect(k, [s.cell, s.input], required: k > 0, weight: true) }
        for k in 4..<8 { try expect(k, [s.cell, s.output], required: k > 4, weight: true) }
        if cifg != (operand(4) == nil) || cifg != (operand(11) == nil) {
            throw node.error("the input gate's weights and bias must be all present or all absent")
        }
        for k in 8..<11 { try expect(k, [s.cell], required: false, weight: true) }
        guard (operand(9) == nil) == (operand(10) == nil), cifg || (operand(8) == nil) == (operand(10) == nil) else {
            throw node.error("peephole weights must be all present or all absent")
        }
        for k in 11..<15 { try expect(k, [s.cell], required: k > 11, weight: false) }
        if operand(15) != nil {
            try expect(15, [s.output, s.cell], required: true, weight: true)
            try expect(16, [s.output], required: false, weight: false)
        } else {
            guard s.output == s.cell, operand(16) == nil else {
                throw node.error("without projection the output width must equal the cell width")
            }
        }
        if let ln = d.layerNorm {
            for k in 0..<4 {
                guard let t = node.optionalInput(ln + k) else {
                    if k == 0 && cifg { continue }
                    throw node.error("layer-norm coefficients \(ln + k) are missing")
                }
                try node.expect(t, type: .float32, role: "layer-norm coefficients")
                guard t.shape == [s.cell] else { throw node.error("layer-norm coefficients have shape \(t.shape)") }
            }
        }
        for (i, n) in [(d.outputState, s.output), (d.cellState, s.cell)] {
            let t = try node.input(i)
            try node.expect(t, type: .float32, role: "state")
            guard t.elementCount == batch * n else {
                throw node.error("state \(i) has shape \(t.shape), needs \(batch) x \(n)")
            }
        }
        return s
    }

    func eval(_ node: Node) throws {
        if needsStateReset {
            for d in directions {
                for i in [d.outputState, d.cellState] {
                    let s = try FloatOperand.read(try node.input(i), node: node, role: "state")
                    for j in s.indices { s[j] = 0 }
                }
            }
            needsStateReset = false
        }
        let input = UnsafePointer(try FloatOperand.base(try node.input(0), node: node, role: "input"))
        var aux: UnsafePointer<Float>?
        if bidirectional, let a = node.optionalInput(39) {
            aux = UnsafePointer(try FloatOperand.base(a, node: node, role: "auxiliary input"))
        }
        let auxWidth = bidirectional ? node.optionalInput(39)?.shape.last ?? 0 : 0
        let totalOutput = shapes.reduce(0) { $0 + $1.output }
        for (k, d) in directions.enumerated() {
            let s = shapes[k]
            let cell = LSTMFloatCell(
                node: node, direction: d.first, layerNormAt: d.layerNorm,
                auxAt: useAuxWeights ? d.aux : nil, shape: s, options: options, hybrid: hybrid)
            let readsAux = k == 1 && auxAsBackwardInput
            guard let x = readsAux ? aux : input else { throw node.error("auxiliary input has no data") }
            let stepAux = useAuxWeights ? aux : nil
            let outputState = try FloatOperand.base(try node.input(d.outputState), node: node, role: "output state")
            let cellState = try FloatOperand.base(try node.input(d.cellState), node: node, role: "cell state")
            let out = try FloatOperand.base(try node.output(merge ? 0 : k), node: node, role: "output")
            let (y, stride) = merge ? (out + (k == 0 ? 0 : shapes[0].output), totalOutput) : (out, s.output)
            let backward = k == 1
            var step = [Float](repeating: 0, count: max(1, s.batch * s.output))
            try step.withUnsafeMutableBufferPointer { sb in
                guard let tmp = sb.baseAddress else { throw node.error("no scratch memory") }
                if s.timeMajor {
                    for i in 0..<s.time {
                        let t = backward ? s.time - 1 - i : i
                        cell.step(
                            input: x + t * s.batch * s.input, batch: s.batch, outputState: outputState,
                            cellState: cellState, output: tmp, aux: stepAux.map { $0 + t * s.batch * auxWidth },
                            auxWidth: auxWidth)
                        for b in 0..<s.batch {
                            for o in 0..<s.output { y[(t * s.batch + b) * stride + o] = tmp[b * s.output + o] }
                        }
                    }
                } else {
                    for b in 0..<s.batch {
                        for i in 0..<s.time {
                            let t = backward ? s.time - 1 - i : i
                            cell.step(
                                input: x + (b * s.time + t) * s.input, batch: 1,
                                outputState: outputState + b * s.output, cellState: cellState + b * s.cell, output: tmp,
                                aux: stepAux.map { $0 + (b * s.time + t) * auxWidth }, auxWidth: auxWidth)
                            for o in 0..<s.output { y[(b * s.time + t) * stride + o] = tmp[o] }
                        }
                    }
                }
            }
        }
    }
}

extension LSTMFloatCell {
    /// A cell bound to one direction's operands: input_to_input weights at `direction`, the other
    /// 16 weights and biases after it in LSTM order, layer-norm coefficients from `layerNorm`.
    init(
        node: Node, direction first: Int, layerNormAt: Int?, auxAt: Int? = nil, shape: LSTMShape, options: LSTMOptions,
        hybrid: Bool
    ) {
        self.init(shape: shape, options: options, hybrid: hybrid)
        func matrix(_ i: Int) -> Matrix? {
            guard let t = node.optionalInput(i) else { return nil }
            var m = Matrix(rows: t.dim(0), cols: t.dim(1), floats: nil, int8: nil, scale: t.scale)
            if t.type == .float32 {
                m.floats = UnsafeBufferPointer(t.floats)
            } else {
                let q = UnsafeBufferPointer(t.buffer(Int8.self))
                m.int8 = q
                if options.asymmetricQuantizeInputs {
                    m.rowSums = (0..<m.rows).map { r in
                        (0..<m.cols).reduce(Int32(0)) { $0 &+ Int32(q[r * m.cols + $1]) }
                    }
                }
            }
            return m
        }
        func vector(_ i: Int) -> UnsafeBufferPointer<Float>? {
            node.optionalInput(i).map { UnsafeBufferPointer($0.floats) }
        }
        inputWeights = (0..<4).map { matrix(first + $0) }
        recurrentWeights = (4..<8).map { matrix(first + $0) }
        peephole = (8..<11).map { k in
            guard let t = node.optionalInput(first + k) else { return nil }
            if t.type == .float32 { return Array(t.floats) }
            let s = t.scale
            return t.buffer(Int8.self).map { Float($0) * s }
        }
        biases = (11..<15).map { vector(first + $0) }
        layerNorm = (0..<4).map { k in layerNormAt.flatMap { vector($0 + k) } }
        projection = matrix(first + 15)
        projectionBias = vector(first + 16)
        if let auxAt { auxWeights = (0..<4).map { matrix(auxAt + $0) } }
    }
}

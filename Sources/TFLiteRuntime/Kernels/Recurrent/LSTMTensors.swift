import Foundation

/// Operand positions of UNIDIRECTIONAL_SEQUENCE_LSTM (the same 24 as LSTM's full kernel).
enum LSTMOperand {
    static let input = 0
    static let inputToInput = 1, inputToForget = 2, inputToCell = 3, inputToOutput = 4
    static let recurrentToInput = 5, recurrentToForget = 6, recurrentToCell = 7, recurrentToOutput = 8
    static let cellToInput = 9, cellToForget = 10, cellToOutput = 11
    static let inputGateBias = 12, forgetGateBias = 13, cellGateBias = 14, outputGateBias = 15
    static let projectionWeights = 16, projectionBias = 17
    static let outputState = 18, cellState = 19
    static let inputLayerNorm = 20, forgetLayerNorm = 21, cellLayerNorm = 22, outputLayerNorm = 23
}

/// The options of UNIDIRECTIONAL_SEQUENCE_LSTM (UnidirectionalSequenceLSTMOptions).
struct LSTMOptions {
    /// Fused activation code (0 none, 1 relu, 2 relu_n1_to_1, 3 relu6, 4 tanh, 5 sign bit); LiteRT reads
    /// any other value of the schema's field as none.
    var activation: Int
    var cellClip: Float
    var projClip: Float
    var timeMajor: Bool
    var asymmetricQuantizeInputs: Bool
    /// Recurrent weights are vectors of the cell width, multiplied element-wise with the output state.
    var diagonalRecurrent = false

    init(_ node: Node) throws {
        let p = try SequenceLSTMParameters(node)
        activation = Int(p.activation)
        cellClip = p.cellClip
        projClip = p.projClip
        timeMajor = p.timeMajor
        asymmetricQuantizeInputs = p.asymmetricQuantizeInputs
        diagonalRecurrent = p.diagonalRecurrentTensors
        guard cellClip >= 0, projClip >= 0, cellClip.isFinite, projClip.isFinite else {
            throw node.error("cell_clip and proj_clip must be finite and non-negative")
        }
    }

    init(activation: Int = 4, cellClip: Float = 0, projClip: Float = 0, timeMajor: Bool = false) {
        self.activation = activation
        self.cellClip = cellClip
        self.projClip = projClip
        self.timeMajor = timeMajor
        asymmetricQuantizeInputs = false
    }

    /// Whether the activation is none. LiteRT's `ApplyActivationToVector` then returns without writing
    /// its result buffer, so the hidden state multiplies the output gate by the cell gate's values (the
    /// scratch that buffer is) instead of by the cell state.
    var isNone: Bool { !(1...5).contains(activation) }

    /// LiteRT's `ApplyActivationToVector` for one value.
    @inline(__always) func activate(_ x: Float) -> Float {
        switch activation {
        case 1: return max(0, x)
        case 2: return min(max(x, -1), 1)
        case 3: return min(max(x, 0), 6)
        case 4: return tanhf(x)
        case 5: return x.sign == .minus ? 1 : 0
        default: return x
        }
    }
}

/// The sizes of one LSTM: batch, time, input, cell and output widths.
struct LSTMShape: Equatable {
    var batch: Int
    var time: Int
    var input: Int
    var cell: Int
    var output: Int
    var timeMajor: Bool
}

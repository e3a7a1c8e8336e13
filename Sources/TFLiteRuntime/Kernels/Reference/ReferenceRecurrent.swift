import Foundation

/// A plain, double-precision LSTM written from the textbook equations, for checking the float
/// UNIDIRECTIONAL_SEQUENCE_LSTM kernel. Batch-major input [batch, time, input]; weights row-major
/// [cell, input] / [cell, output]; gates in the order input, forget, cell, output.
enum ReferenceRecurrent {
    struct LSTMWeights {
        var inputWeights: [[Double]?]  // 4 gates, each cell × input (nil input gate = CIFG)
        var recurrentWeights: [[Double]?]  // 4 gates, each cell × output
        var biases: [[Double]?]  // 4 gates, each cell
        var peephole: [[Double]?] = [nil, nil, nil]  // input, forget, output
        var projection: [Double]? = nil  // output × cell
        var projectionBias: [Double]? = nil
        var cellClip: Double = 0
        var projClip: Double = 0
    }

    static func lstm(
        input: [Double], batch: Int, time: Int, inputSize: Int, cell: Int, output: Int, weights w: LSTMWeights
    ) -> [Double] {
        func sigmoid(_ x: Double) -> Double { 1 / (1 + exp(-x)) }
        var result = [Double](repeating: 0, count: batch * time * output)
        for b in 0..<batch {
            var h = [Double](repeating: 0, count: output)
            var c = [Double](repeating: 0, count: cell)
            for t in 0..<time {
                let x = Array(input[((b * time + t) * inputSize)..<((b * time + t + 1) * inputSize)])
                func preactivation(_ g: Int, _ r: Int) -> Double {
                    var v = w.biases[g]?[r] ?? 0
                    if let wi = w.inputWeights[g] { for j in 0..<inputSize { v += wi[r * inputSize + j] * x[j] } }
                    if let wr = w.recurrentWeights[g] { for j in 0..<output { v += wr[r * output + j] * h[j] } }
                    return v
                }
                var newC = c
                var gates = [[Double]](repeating: [Double](repeating: 0, count: cell), count: 4)
                for r in 0..<cell {
                    let f = sigmoid(preactivation(1, r) + (w.peephole[1]?[r] ?? 0) * c[r])
                    let g = tanh(preactivation(2, r))
                    let i = w.inputWeights[0] == nil ? 1 - f : sigmoid(preactivation(0, r) + (w.peephole[0]?[r] ?? 0) * c[r])
                    var nc = f * c[r] + i * g
                    if w.cellClip > 0 { nc = min(max(nc, -w.cellClip), w.cellClip) }
                    newC[r] = nc
                    gates[1][r] = f
                }
                var hidden = [Double](repeating: 0, count: cell)
                for r in 0..<cell {
                    let o = sigmoid(preactivation(3, r) + (w.peephole[2]?[r] ?? 0) * newC[r])
                    hidden[r] = o * tanh(newC[r])
                }
                c = newC
                if let p = w.projection {
                    for o in 0..<output {
                        var v = w.projectionBias?[o] ?? 0
                        for r in 0..<cell { v += p[o * cell + r] * hidden[r] }
                        if w.projClip > 0 { v = min(max(v, -w.projClip), w.projClip) }
                        h[o] = v
                    }
                } else {
                    h = hidden
                }
                for o in 0..<output { result[(b * time + t) * output + o] = h[o] }
            }
        }
        return result
    }
}

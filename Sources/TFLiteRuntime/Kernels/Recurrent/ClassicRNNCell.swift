import Foundation

/// One fully connected recurrent layer (RNN and its sequence forms): LiteRT's `RnnBatchStep`,
/// float or hybrid.
///
/// `h = activation(bias + W·x [+ W_aux·aux] + R·h_prev)`. Float weights accumulate each row's dot product into the
/// bias. Int8 weights (hybrid) quantize the input rows and the previous state per batch row
/// (symmetric, or asymmetric with `asymmetric_quantize_inputs`), accumulate in int32 and add
/// `dot · (row_scale · weight_scale)`; an all-zero input or state skips its product, as LiteRT.
struct ClassicRNNCell {
    /// A weight matrix `[rows, cols]`: float, or int8 with one scale.
    struct Weights {
        var rows: Int
        var cols: Int
        var floats: UnsafePointer<Float>?
        var int8: UnsafePointer<Int8>?
        var scale: Float
        var rowSums: [Int32]

        init(_ t: RuntimeTensor, node: Node, role: String) throws {
            guard t.rank == 2 else { throw node.error("\(role) must have rank 2, has shape \(t.shape)") }
            rows = t.dim(0)
            cols = t.dim(1)
            scale = 1
            rowSums = []
            switch t.type {
            case .float32:
                floats = UnsafePointer(try FloatOperand.base(t, node: node, role: role))
            case .int8, .uint8:
                // LiteRT's hybrid kernels read uint8 weights (older converters) as int8 bytes.
                let q = try node.elementwiseBuffer(t, Int8.self, role: role)
                int8 = UnsafePointer(q.baseAddress)
                scale = t.scale
                rowSums = (0..<rows).map { r in (0..<cols).reduce(Int32(0)) { $0 &+ Int32(q[r * cols + $1]) } }
            default:
                throw node.error("\(role) has type \(t.type.name); supported: float32, int8, uint8")
            }
        }

        var isHybrid: Bool { int8 != nil }
    }

    let input: Weights
    let recurrent: Weights
    let bias: UnsafePointer<Float>
    let activation: FusedActivation
    let asymmetric: Bool
    /// Auxiliary-input weights `[units, aux]` (BIDIRECTIONAL_SEQUENCE_RNN's stacking mode).
    var aux: Weights?
    var units: Int { input.rows }

    init(
        input: Weights, recurrent: Weights, bias: RuntimeTensor, activation: FusedActivation, asymmetric: Bool,
        node: Node
    ) throws {
        guard recurrent.rows == input.rows, recurrent.cols == input.rows else {
            throw node.error(
                "recurrent weights are \(recurrent.rows)x\(recurrent.cols), need \(input.rows)x\(input.rows)")
        }
        guard input.isHybrid == recurrent.isHybrid else { throw node.error("weights must all be float32 or all int8") }
        try node.expect(bias, type: .float32, role: "bias")
        guard bias.elementCount == input.rows else {
            throw node.error("bias has \(bias.elementCount) values for \(input.rows) units")
        }
        self.input = input
        self.recurrent = recurrent
        self.bias = UnsafePointer(try FloatOperand.base(bias, node: node, role: "bias"))
        self.activation = activation
        self.asymmetric = asymmetric
    }

    /// One step over `batch` rows: `x` rows of `input.cols`, state rows of `units`; the result is
    /// written to the state and to `output` (rows `outputStride` apart).
    func step(
        _ x: UnsafePointer<Float>, batch: Int, state: UnsafeMutablePointer<Float>,
        output: UnsafeMutablePointer<Float>, outputStride: Int, scratch: inout [Int8], auxX: UnsafePointer<Float>? = nil
    ) {
        let n = units
        withUnsafeTemporaryAllocation(of: Float.self, capacity: max(1, batch * n)) { buffer in
            guard let acc = buffer.baseAddress else { return }
            for b in 0..<batch { for u in 0..<n { acc[b * n + u] = bias[u] } }
            accumulate(input, x, batch: batch, into: acc, scratch: &scratch)
            if let aux, let auxX { accumulate(aux, auxX, batch: batch, into: acc, scratch: &scratch) }
            accumulate(recurrent, UnsafePointer(state), batch: batch, into: acc, scratch: &scratch)
            for b in 0..<batch {
                for u in 0..<n {
                    let v = activation.apply(acc[b * n + u])
                    state[b * n + u] = v
                    output[b * outputStride + u] = v
                }
            }
        }
    }

    private func accumulate(
        _ w: Weights, _ x: UnsafePointer<Float>, batch: Int, into acc: UnsafeMutablePointer<Float>,
        scratch: inout [Int8]
    ) {
        let rows = w.rows
        let cols = w.cols
        if let f = w.floats {
            for b in 0..<batch {
                for r in 0..<rows {
                    var dot: Float = 0
                    for c in 0..<cols { dot += f[r * cols + c] * x[b * cols + c] }
                    acc[b * rows + r] += dot
                }
            }
            return
        }
        guard let q = w.int8 else { return }
        var zero = true
        for i in 0..<(batch * cols) where x[i] != 0 {
            zero = false
            break
        }
        if zero { return }
        if scratch.count < cols { scratch = [Int8](repeating: 0, count: cols) }
        scratch.withUnsafeMutableBufferPointer { sb in
            guard let s = sb.baseAddress else { return }
            for b in 0..<batch {
                var rowScale: Float
                var offset: Int32 = 0
                if asymmetric {
                    let r = FixedPoint.asymmetricQuantize(x + b * cols, count: cols, into: s)
                    rowScale = r.scale
                    offset = r.offset
                } else {
                    rowScale = FixedPoint.symmetricQuantize(x + b * cols, count: cols, into: s)
                }
                rowScale *= w.scale
                for r in 0..<rows {
                    var dot: Int32 = 0
                    for c in 0..<cols { dot &+= Int32(q[r * cols + c]) &* Int32(s[c]) }
                    dot &-= w.rowSums[r] &* offset
                    acc[b * rows + r] += Float(dot) * rowScale
                }
            }
        }
    }
}

/// FULLY_CONNECTED with `weights_format = SHUFFLED4x16INT8`: uint8 input (zero point 128), uint8
/// weights stored pre-shuffled and sign-flipped, int32 bias, int16 output, and a second output that
/// receives the shuffled, sign-flipped input (LiteRT's workspace, which the model exposes).
///
/// As LiteRT's `ShuffledFullyConnected`: weights come in blocks of 4 rows × 16 columns, each byte read
/// as int8 (`w − 128`), and the input bytes XOR 0x80 (`x − 128`). For one batch row the workspace is
/// the flipped input; for four, blocks of 16 columns of each row in turn. The output is
/// `clamp(MultiplyByQuantizedMultiplier(acc + bias, m))` with LiteRT's legacy multiplier
/// `s_in · s_w / s_out` (no output zero point), clamped to int16 whatever the fused activation (LiteRT
/// applies none here). Only batches of 1 and 4 exist in LiteRT.
final class ShuffledFullyConnectedKernel: OpKernel {
    private var rows = 0
    private var depth = 0
    private var batches = 0
    private var multiplier = FixedPoint.Multiplier(multiplier: 0, shift: 0)
    // LiteRT ignores the fused activation here: the output is clamped to int16 only (measured).
    private let activationMin: Int32 = -32768
    private let activationMax: Int32 = 32767

    init(_ node: Node) throws {
        try node.expect(inputs: 3, outputs: 2)
    }

    static func isShuffled(_ node: Node) -> Bool {
        (try? FullyConnectedParameters(node).weightsFormat) == 1
    }

    func prepare(_ node: Node) throws {
        let input = try node.input(0), weights = try node.input(1), bias = try node.input(2)
        let output = try node.output(0)
        try node.expect(input, type: .uint8, role: "input")
        try node.expect(weights, type: .uint8, role: "weights")
        try node.expect(bias, type: .int32, role: "bias")
        try node.expect(output, type: .int16, role: "output")
        guard weights.rank == 2 else { throw node.error("weights must have rank 2, has shape \(weights.shape)") }
        rows = weights.dim(0)
        depth = weights.dim(1)
        guard rows % 4 == 0, depth % 16 == 0, depth > 0 else {
            throw node.error("shuffled weights need rows % 4 == 0 and columns % 16 == 0, have \(weights.shape)")
        }
        guard input.elementCount % depth == 0 else {
            throw node.error("input \(input.shape) does not split into rows of \(depth)")
        }
        batches = input.elementCount / depth
        guard batches == 1 || batches == 4 else {
            throw node.error("shuffled weights need 1 or 4 batch rows, have \(batches)")
        }
        guard bias.elementCount == rows else {
            throw node.error("bias has \(bias.elementCount) values for \(rows) rows")
        }
        let inputScales = try QuantizedOperand.scales(input, node: node, role: "input")
        let weightScales = try QuantizedOperand.scales(weights, node: node, role: "weights", allowZero: true)
        let outputScales = try QuantizedOperand.scales(output, node: node, role: "output")
        guard inputScales[0] > 0, outputScales[0] > 0 else { throw node.error("quantization scales must be positive") }
        multiplier = FixedPoint.channelMultipliers(
            inputScale: inputScales[0], filterScales: [weightScales[0]], outputScale: outputScales[0], channels: 1,
            legacy: true)[0]
        try node.setOutput(0, type: .int16, shape: [batches, rows])
        try node.setOutput(1, type: .uint8, shape: [batches, depth])
    }

    func eval(_ node: Node) throws {
        let input = try node.input(0), weights = try node.input(1), bias = try node.input(2)
        let output = try node.output(0), workspace = try node.output(1)
        let operands = [
            (input, "input"), (weights, "weights"), (bias, "bias"), (output, "output"), (workspace, "workspace"),
        ]
        for (t, role) in operands { try QuantizedOperand.checkBytes(t, node: node, role: role) }
        guard let xd = input.data, let wd = weights.data, let bd = bias.data, let yd = output.data,
            let sd = workspace.data
        else { return }
        let x = xd.assumingMemoryBound(to: UInt8.self), w = wd.assumingMemoryBound(to: Int8.self)
        let b = bd.assumingMemoryBound(to: Int32.self), y = yd.assumingMemoryBound(to: Int16.self)
        let s = sd.assumingMemoryBound(to: UInt8.self)
        let depth = self.depth, rows = self.rows, batches = self.batches
        if batches == 1 {
            for i in 0..<depth { s[i] = x[i] ^ 0x80 }
        } else {
            var k = 0
            for c in stride(from: 0, to: depth, by: 16) {
                for r in 0..<4 {
                    for j in 0..<16 {
                        s[k] = x[r * depth + c + j] ^ 0x80
                        k += 1
                    }
                }
            }
        }
        let flipped = UnsafeRawPointer(s).assumingMemoryBound(to: Int8.self)
        // Weight (row c + i, column d + j) sits at (c / 4) · 4·depth + (d / 16) · 64 + 16·i + j; the workspace
        // holds column d + j of batch row r at d · batches + 16·r + j.
        for c in stride(from: 0, to: rows, by: 4) {
            for i in 0..<4 {
                for r in 0..<batches {
                    var acc: Int32 = 0
                    for d in stride(from: 0, to: depth, by: 16) {
                        let wp = w + c * depth + d * 4 + 16 * i
                        let xp = flipped + d * batches + 16 * r
                        for j in 0..<16 { acc &+= Int32(wp[j]) &* Int32(xp[j]) }
                    }
                    let v = FixedPoint.multiply(acc &+ b[c + i], by: multiplier)
                    y[r * rows + c + i] = Int16(min(max(v, activationMin), activationMax))
                }
            }
        }
    }
}

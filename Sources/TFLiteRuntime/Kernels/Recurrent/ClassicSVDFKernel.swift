/// SVDF (singular value decomposition filter), float32, hybrid (int8 weights, float32 input,
/// state and output) or integer (int8 input and output, int8 weights_feature, int16 weights_time,
/// int32 bias, int16 state; relu required, LiteRT's `EvalIntegerSVDF` arithmetic).
///
/// Inputs: input `[batch, in]`, weights_feature `[filters, in]`, weights_time `[filters, memory]`,
/// optional bias `[units]` (`filters = units · rank`), state `[batch, memory · filters]`
/// (variable). Output `[batch, units]`. Options (`SVDFOptions`): rank, activation, asymmetric
/// input quantization. Each step shifts the state left by one, writes `weights_feature · x` into
/// each filter's newest slot, takes each filter's dot product with its weights_time row, sums
/// `rank` filters per unit onto the bias, then the activation (LiteRT's `EvalFloatSVDF` /
/// `EvalHybridSVDF`; hybrid weights_time is dequantized once, as LiteRT does).
final class ClassicSVDFKernel: OpKernel {
    private let p: SVDFParameters
    private var needsStateReset = true
    private var timeWeights: [Float] = []
    private var scratch = [Int8]()
    private var batch = 0, inputSize = 0, filters = 0, memory = 0, units = 0
    /// Integer form: feature product to state scale, and state × time weights to output scale.
    private var integer:
        (feature: FixedPoint.Multiplier, time: FixedPoint.Multiplier, inputZero: Int32, outputZero: Int32)?

    init(_ node: Node) throws {
        try node.expect(inputs: 5, outputs: 1)
        p = try SVDFParameters(node)
        guard p.rank > 0 else { throw node.error("rank must be positive, is \(p.rank)") }
    }

    func prepare(_ node: Node) throws {
        needsStateReset = true
        let x = try node.input(0)
        let feature = try node.input(1)
        let time = try node.input(2)
        let state = try node.input(4)
        try node.expect(x, type: .float32, .int8, role: "input")
        try node.expect(state, type: x.type == .int8 ? .int16 : .float32, role: "state")
        guard x.rank == 2, feature.rank == 2, time.rank == 2 else {
            throw node.error(
                "input \(x.shape), weights_feature \(feature.shape) and weights_time \(time.shape) need rank 2")
        }
        batch = x.dim(0)
        inputSize = x.dim(1)
        filters = feature.dim(0)
        memory = time.dim(1)
        guard feature.dim(1) == inputSize, time.dim(0) == filters, memory > 0 else {
            throw node.error(
                "weights_feature \(feature.shape) and weights_time \(time.shape) do not fit input \(x.shape)")
        }
        guard filters % p.rank == 0 else { throw node.error("\(filters) filters are not a multiple of rank \(p.rank)") }
        units = filters / p.rank
        guard state.elementCount == batch * memory * filters else {
            throw node.error("state has shape \(state.shape), needs \(batch) x \(memory * filters)")
        }
        if x.type == .int8 {
            try prepareInteger(node, x, feature, time, state)
            return
        }
        integer = nil
        if let b = node.optionalInput(3) {
            try node.expect(b, type: .float32, role: "bias")
            guard b.elementCount == units else {
                throw node.error("bias has \(b.elementCount) values for \(units) units")
            }
        }
        try node.expect(feature, type: .float32, .int8, .uint8, role: "weights_feature")
        switch time.type {
        case .float32:
            timeWeights = []  // read in `eval`: float weights may be run-time inputs
        case .int8, .uint8:
            let scale = time.scale
            timeWeights = try node.elementwiseBuffer(time, Int8.self, role: "weights_time").map { Float($0) * scale }
        default:
            throw node.error("weights_time has type \(time.type.name); supported: float32, int8")
        }
        try node.setOutput(0, type: .float32, shape: [batch, units])
    }

    private func prepareInteger(
        _ node: Node, _ x: RuntimeTensor, _ feature: RuntimeTensor, _ time: RuntimeTensor, _ state: RuntimeTensor
    ) throws {
        try node.expect(feature, type: .int8, role: "weights_feature")
        try node.expect(time, type: .int16, role: "weights_time")
        let y = try node.output(0)
        try node.expect(y, type: .int8, role: "output")
        if let b = node.optionalInput(3) {
            try node.expect(b, type: .int32, role: "bias")
            guard b.elementCount == units else {
                throw node.error("bias has \(b.elementCount) values for \(units) units")
            }
            _ = try node.elementwiseBuffer(b, Int32.self, role: "bias")
        }
        _ = try node.elementwiseBuffer(feature, Int8.self, role: "weights_feature")
        _ = try node.elementwiseBuffer(time, Int16.self, role: "weights_time")
        guard p.activation == .relu else { throw node.error("integer SVDF needs a relu activation (as LiteRT)") }
        // LiteRT forms both ratios in float, then widens them for QuantizeMultiplier.
        let featureScale = x.scale * feature.scale / state.scale
        let timeScale = state.scale * time.scale / y.scale
        integer = (
            FixedPoint.quantizeMultiplier(Double(featureScale)), FixedPoint.quantizeMultiplier(Double(timeScale)),
            Int32(x.zeroPoint), Int32(y.zeroPoint)
        )
        try node.setOutput(0, type: .int8, shape: [batch, units])
    }

    private func evalInteger(_ node: Node) throws {
        guard let q = integer else { throw node.error("was not prepared") }
        let state = try node.elementwiseBuffer(try node.input(4), Int16.self, role: "state")
        if needsStateReset {
            for i in state.indices { state[i] = 0 }
            needsStateReset = false
        }
        let x = try node.elementwiseBuffer(try node.input(0), Int8.self, role: "input")
        let feature = try node.elementwiseBuffer(try node.input(1), Int8.self, role: "weights_feature")
        let time = try node.elementwiseBuffer(try node.input(2), Int16.self, role: "weights_time")
        let y = try node.elementwiseBuffer(try node.output(0), Int8.self, role: "output")
        let bias = try node.optionalInput(3).map { try node.elementwiseBuffer($0, Int32.self, role: "bias") }
        let total = batch * memory * filters
        if total > 1 { for i in 0..<(total - 1) { state[i] = state[i + 1] } }
        for b in 0..<batch {
            for f in 0..<filters {
                var dot: Int32 = 0
                for c in 0..<inputSize {
                    dot &+= Int32(feature[f * inputSize + c]) &* (Int32(x[b * inputSize + c]) &- q.inputZero)
                }
                let scaled = min(max(FixedPoint.multiply(dot, by: q.feature), Int32(Int16.min)), Int32(Int16.max))
                state[(b * filters + f) * memory + memory - 1] = Int16(scaled)
            }
        }
        for b in 0..<batch {
            for u in 0..<units {
                var sum: Int32 = bias?[u] ?? 0
                for r in 0..<p.rank {
                    let f = u * p.rank + r
                    let s = (b * filters + f) * memory
                    var dot: Int32 = 0
                    for m in 0..<memory { dot &+= Int32(time[f * memory + m]) &* Int32(state[s + m]) }
                    sum &+= dot
                }
                let out = FixedPoint.multiply(sum, by: q.time) &+ q.outputZero
                y[b * units + u] = Int8(min(max(out, -128), 127))
            }
        }
    }

    func eval(_ node: Node) throws {
        if integer != nil { return try evalInteger(node) }
        let stateBuffer = try FloatOperand.read(try node.input(4), node: node, role: "state")
        if needsStateReset {
            for i in stateBuffer.indices { stateBuffer[i] = 0 }
            needsStateReset = false
        }
        guard let state = stateBuffer.baseAddress, batch > 0 else { return }
        let x = UnsafePointer(try FloatOperand.base(try node.input(0), node: node, role: "input"))
        let y = try FloatOperand.base(try node.output(0), node: node, role: "output")
        let feature = try ClassicRNNCell.Weights(try node.input(1), node: node, role: "weights_feature")
        let total = batch * memory * filters
        if total > 1 { for i in 0..<(total - 1) { state[i] = state[i + 1] } }
        // The newest slot of every filter: feature weights times the input.
        for b in 0..<batch { for f in 0..<filters { state[(b * filters + f) * memory + memory - 1] = 0 } }
        if let w = feature.floats {
            for b in 0..<batch {
                for f in 0..<filters {
                    var dot: Float = 0
                    for c in 0..<inputSize { dot += w[f * inputSize + c] * x[b * inputSize + c] }
                    state[(b * filters + f) * memory + memory - 1] = dot
                }
            }
        } else if let q = feature.int8 {
            try hybridFeatures(q, feature, x, state)
        }
        var bias = [Float](repeating: 0, count: units)
        if let b = node.optionalInput(3) {
            bias = Array(try FloatOperand.read(b, node: node, role: "bias").prefix(units))
        }
        let floatTime = try node.input(2).type == .float32
        if floatTime { timeWeights = Array(try FloatOperand.read(try node.input(2), node: node, role: "weights_time")) }
        timeWeights.withUnsafeBufferPointer { wt in
            for b in 0..<batch {
                for u in 0..<units {
                    var sum: Float = 0
                    for r in 0..<p.rank {
                        let f = u * p.rank + r
                        let s = state + (b * filters + f) * memory
                        var dot: Float = 0
                        for m in 0..<memory { dot += wt[f * memory + m] * s[m] }
                        sum += dot
                    }
                    y[b * units + u] = p.activation.apply(bias[u] + sum)
                }
            }
        }
    }

    private func hybridFeatures(
        _ q: UnsafePointer<Int8>, _ w: ClassicRNNCell.Weights, _ x: UnsafePointer<Float>,
        _ state: UnsafeMutablePointer<Float>
    ) throws {
        var zero = true
        for i in 0..<(batch * inputSize) where x[i] != 0 {
            zero = false
            break
        }
        if zero { return }
        if scratch.count < inputSize { scratch = [Int8](repeating: 0, count: max(1, inputSize)) }
        scratch.withUnsafeMutableBufferPointer { sb in
            guard let s = sb.baseAddress else { return }
            for b in 0..<batch {
                var scale: Float
                var offset: Int32 = 0
                if p.asymmetricQuantizeInputs {
                    let r = FixedPoint.asymmetricQuantize(x + b * inputSize, count: inputSize, into: s)
                    scale = r.scale
                    offset = r.offset
                } else {
                    scale = FixedPoint.symmetricQuantize(x + b * inputSize, count: inputSize, into: s)
                }
                scale *= w.scale
                for f in 0..<filters {
                    var dot: Int32 = 0
                    for c in 0..<inputSize { dot &+= Int32(q[f * inputSize + c]) &* Int32(s[c]) }
                    dot &-= w.rowSums[f] &* offset
                    state[(b * filters + f) * memory + memory - 1] += Float(dot) * scale
                }
            }
        }
    }
}

/// TRANSPOSE_CONV on quantized tensors (uint8 per-tensor, int8 per-channel, int16 activations with
/// int8 weights), bit-exact with LiteRT's optimized kernel (`TransposeConvV2`).
///
/// Each input pixel scatters `Σ_ic (x − zx) · w[oc, ky, kx, ic]` into an int32 (int64 for 16x8 with
/// int64 bias) accumulator image; taps that land outside the output are dropped. Then the bias and
/// LiteRT's output stage, which for int8/int16 runs NEON code on blocks of 8 channels (rounding shift
/// with ties upward, `FixedPoint.GemmRounding.gemm`) and `MultiplyByQuantizedMultiplier` (ties away
/// from zero) on the leftover channels; uint8 runs NEON blocks of 16 over the flat output
/// (`MultiplyByQuantizedMultiplier4Rows`) and `MultiplyByQuantizedMultiplier` on the tail.
/// For int16 activations LiteRT runs its reference kernel (64-bit accumulators, reference rounding)
/// unless the options set `quantized_bias_type` to int32.
final class QuantizedTransposeConvKernel: OpKernel {
    private let strideHeight: Int
    private let strideWidth: Int
    private let padding: PaddingScheme
    private let activation: FusedActivation
    private var geometry: TransposeConvGeometry?
    private let weights = ScratchBuffer<Int16>(0)
    private let input16 = ScratchBuffer<Int16>(0)
    private let accumulators = ScratchBuffer<Int64>(0)
    private var biases: [Int64] = []
    private var multipliers: [FixedPoint.Multiplier] = []
    private var inputZeroPoint: Int32 = 0
    private var filterZeroPoint: Int32 = 0
    private var outputZeroPoint: Int32 = 0
    private var activationMin: Int32 = 0
    private var activationMax: Int32 = 0
    /// int16 activations: LiteRT runs the reference kernel with int64 accumulators unless the options
    /// ask for int32 bias (`quantized_bias_type`).
    private var wideBias = false
    /// int16 with int32 bias but non-zero zero points: LiteRT's reference kernel (reference rounding).
    private var referenceRounding = false
    private var quantizedBiasType: Int8 = 0

    init(_ node: Node) throws {
        try node.expect(inputs: 3, 4, outputs: 1)
        let p = try TransposeConvParameters(node)
        (padding, strideWidth, strideHeight) = (p.padding, p.strideWidth, p.strideHeight)
        (activation, quantizedBiasType) = (p.activation, p.quantizedBiasType)
    }

    func prepare(_ node: Node) throws {
        let input = try node.input(2), filter = try node.input(1), output = try node.output(0)
        try node.expect(input, type: .uint8, .int8, .int16, role: "input")
        try node.expect(filter, type: input.type == .uint8 ? .uint8 : .int8, role: "filter")
        guard input.rank == 4, filter.rank == 4 else {
            throw node.error("input \(input.shape) and filter \(filter.shape) must have rank 4")
        }
        try FloatOperand.checkExtent(input.shape, node: node, role: "input")
        try FloatOperand.checkExtent(filter.shape, node: node, role: "filter")
        guard input.dim(3) == filter.dim(3) else {
            throw node.error("input has \(input.dim(3)) channels, filter expects \(filter.dim(3))")
        }
        guard filter.dim(1) > 0, filter.dim(2) > 0, strideHeight > 0, strideWidth > 0 else {
            throw node.error("filter window \(filter.shape) and strides must be positive")
        }
        let shapeTensor = try node.input(0)
        try node.expect(shapeTensor, type: .int32, role: "output shape")
        guard shapeTensor.rank == 1, shapeTensor.elementCount == 4 else {
            throw node.error("output shape must be 4 values, has shape \(shapeTensor.shape)")
        }
        guard node.knowsValues(of: shapeTensor) else {
            node.markOutputsDynamic()
            return
        }
        let dims = try shapeTensor.intValues()
        guard dims.count == 4, dims[0] == input.dim(0), dims[3] == filter.dim(0), dims[1] >= 0, dims[2] >= 0 else {
            throw node.error("output shape \(dims) does not fit input \(input.shape) and filter \(filter.shape)")
        }
        let g = TransposeConvGeometry.builtin(
            input: input.shape, filter: filter.shape, outputHeight: dims[1], outputWidth: dims[2],
            strideHeight: strideHeight, strideWidth: strideWidth, padding: padding)
        let outputShape = [g.batch, g.outputHeight, g.outputWidth, g.outputChannels]
        try FloatOperand.checkExtent(outputShape, node: node, role: "output")
        try node.setOutput(0, type: input.type, shape: outputShape)
        geometry = g

        let channels = g.outputChannels
        let inputScales = try QuantizedOperand.scales(input, node: node, role: "input")
        let filterScales = try QuantizedOperand.scales(filter, node: node, role: "filter", allowZero: true)
        let outputScales = try QuantizedOperand.scales(output, node: node, role: "output")
        guard filterScales.count == 1 || filterScales.count == channels else {
            throw node.error("filter has \(filterScales.count) scales for \(channels) output channels")
        }
        guard inputScales[0] > 0, outputScales[0] > 0 else { throw node.error("quantization scales must be positive") }
        inputZeroPoint = Int32(clamping: input.zeroPoint)
        filterZeroPoint = Int32(clamping: filter.zeroPoint)
        outputZeroPoint = Int32(clamping: output.zeroPoint)
        multipliers = FixedPoint.channelMultipliers(
            inputScale: inputScales[0], filterScales: filterScales, outputScale: outputScales[0], channels: channels,
            legacy: input.type == .uint8)
        guard let range = input.type.quantizedRange else { throw node.error("unsupported type") }
        let act = FixedPoint.activationRange(
            activation, scale: outputScales[0], zeroPoint: Int(outputZeroPoint), qmin: range.min, qmax: range.max)
        activationMin = act.min
        activationMax = act.max
        // A bias fed at run time is read in `eval`.
        if let bias = node.optionalInput(3), !QuantizedOperand.isReadableConstant(bias) {
            try node.expect(bias, type: .int32, .int64, role: "bias")
            guard bias.elementCount == channels else {
                throw node.error("bias has \(bias.elementCount) values for \(channels) output channels")
            }
            biases = [Int64](repeating: 0, count: channels)
        } else {
            biases = try QuantizedOperand.bias(node.optionalInput(3), count: channels, node: node)
        }
        wideBias = input.type == .int16 && quantizedBiasType != TensorType.int32.rawValue
        referenceRounding = input.type == .int16 && (inputZeroPoint != 0 || filterZeroPoint != 0 || outputZeroPoint != 0)
        weights.reserve(max(1, filter.elementCount), filling: 0)
        if filter.isConstant {
            try QuantizedOperand.checkBytes(filter, node: node, role: "filter")
            QuantizedOperand.widen(filter, zeroPoint: filterZeroPoint, into: weights.pointer)
        }
        input16.reserve(max(1, input.elementCount), filling: 0)
        accumulators.reserve(max(1, outputShape.reduce(1, *)), filling: 0)
    }

    func eval(_ node: Node) throws {
        guard let g = geometry else { throw node.error("was not prepared") }
        let input = try node.input(2), filter = try node.input(1), output = try node.output(0)
        try QuantizedOperand.checkBytes(input, node: node, role: "input")
        try QuantizedOperand.checkBytes(output, node: node, role: "output")
        if !filter.isConstant {
            try QuantizedOperand.checkBytes(filter, node: node, role: "filter")
            QuantizedOperand.widen(filter, zeroPoint: filterZeroPoint, into: weights.pointer)
        }
        if let bias = node.optionalInput(3), !bias.isConstant {
            biases = try QuantizedOperand.bias(bias, count: g.outputChannels, node: node)
        }
        guard output.elementCount > 0, let out = output.data else { return }
        QuantizedOperand.widen(input, zeroPoint: inputZeroPoint, into: input16.pointer)
        let x = input16.pointer, w = weights.pointer, acc = accumulators.pointer
        let channels = g.outputChannels, inC = g.inputChannels
        let outPixels = g.batch * g.outputHeight * g.outputWidth
        acc.update(repeating: 0, count: outPixels * channels)
        for b in 0..<g.batch {
            for iy in 0..<g.inputHeight {
                for ix in 0..<g.inputWidth {
                    let px = x + ((b * g.inputHeight + iy) * g.inputWidth + ix) * inC
                    for ky in 0..<g.filterHeight {
                        let oy = iy * g.strideHeight - g.padTop + ky
                        guard oy >= 0, oy < g.outputHeight else { continue }
                        for kx in 0..<g.filterWidth {
                            let ox = ix * g.strideWidth - g.padLeft + kx
                            guard ox >= 0, ox < g.outputWidth else { continue }
                            let dst = acc + ((b * g.outputHeight + oy) * g.outputWidth + ox) * channels
                            for oc in 0..<channels {
                                let wr = w + ((oc * g.filterHeight + ky) * g.filterWidth + kx) * inC
                                dst[oc] &+= Int64(QuantizedDot.dot(px, wr, inC))
                            }
                        }
                    }
                }
            }
        }
        let type = output.type
        let neonChannels = type == .uint8 || wideBias || referenceRounding ? 0 : channels - channels % 8
        // uint8's output stage (`optimized_ops::Quantize`) runs over the flat output: NEON blocks of 16
        // values with `MultiplyByQuantizedMultiplier4Rows`, the tail with the scalar multiply.
        let neonFlat = type == .uint8 ? outPixels * channels / 16 * 16 : 0
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(1, channels)) { rowBuffer in
            guard let row = rowBuffer.baseAddress else { return }
            for p in 0..<outPixels {
                let a = acc + p * channels
                for c in 0..<channels {
                    let v: Int32
                    if wideBias {
                        v = FixedPoint.multiply(a[c] &+ biases[c], by: multipliers[c]) &+ outputZeroPoint
                    } else {
                        let sum = Int32(truncatingIfNeeded: a[c]) &+ Int32(truncatingIfNeeded: biases[c])
                        if p * channels + c < neonFlat {
                            v = FixedPoint.neonMultiply(sum, by: multipliers[c]) &+ outputZeroPoint
                        } else {
                            let rounding: FixedPoint.GemmRounding = c < neonChannels ? .gemm : .reference
                            v = FixedPoint.multiply(sum, by: multipliers[c], rounding: rounding) &+ outputZeroPoint
                        }
                    }
                    row[c] = min(max(v, activationMin), activationMax)
                }
                QuantizedOperand.store(row, count: channels, to: out, type: type, offset: p * channels)
            }
        }
    }
}

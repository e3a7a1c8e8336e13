import CKernels

/// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED on quantized tensors, bit-exact with LiteRT.
///
/// Types: uint8 activations with uint8 weights (per-tensor, TF1 quantization-aware models), int8
/// activations with int8 weights (per-channel, TF2 post-training quantization), and int16
/// activations with int8 weights (LiteRT's 16x8 mode, 64-bit accumulators). int8 weights may also be
/// stored as int4 (two per byte), which LiteRT unpacks to int8 before running the same kernels.
///
/// Arithmetic, as LiteRT: `acc = Σ (x − zx)(w − zw) + bias` in int32 (int64 for 16x8), then
/// `clamp(MultiplyByQuantizedMultiplier(acc, m[c]) + zy, act_min, act_max)` with `m[c]` from
/// `double(sx) · double(sw[c]) / double(sy)`. Padding taps contribute nothing (LiteRT's im2col fills
/// them with the input zero point, which is the same).
///
/// Where LiteRT's optimized and reference kernels differ we follow the optimized ones (what LiteRT
/// outputs): CONV_2D and FULLY_CONNECTED round the final shift's ties upward (`cpu_backend_gemm`,
/// `FixedPoint.GemmRounding.gemm`), not away from zero as the reference kernels do; DEPTHWISE_CONV_2D
/// rounds like the reference for uint8, and for int8 like the GEMM on whole blocks of 8 channels and
/// like the reference on the leftover channels (`optimized_ops::Quantize`; the 3x3 kernels exist only
/// on aarch64).
/// FULLY_CONNECTED 16x8 with int64 bias requantizes in double, as LiteRT's reference kernel it runs.
///
/// Weights are widened (zero point removed) and packed once in `prepare` when constant.
final class QuantizedConvolutionKernel: OpKernel {
    enum Kind {
        case conv
        case depthwise
        case fullyConnected

        /// How this kind's options table is laid out.
        var layout: ConvolutionOptions.Layout {
            switch self {
            case .conv: return .conv
            case .depthwise: return .depthwise
            case .fullyConnected: return .fullyConnected
            }
        }
    }

    let kind: Kind
    private var window = ConvolutionOptions()
    private let activation: FusedActivation
    private var keepNumDims = false

    private(set) var geometry: WindowGeometry?
    private(set) var outputChannels = 0
    private(set) var groups = 1
    private(set) var depthMultiplier = 1
    /// FULLY_CONNECTED: rows and row length.
    private(set) var rows = 0
    private(set) var depth = 0
    private(set) var wide = false

    /// Widened weights: conv `[O][KH·KW][Cg]`, depthwise `[KH·KW][O]`, fully connected `[O][I]`.
    let weights = ScratchBuffer<Int16>(0)
    private var weightsReady = false
    private(set) var biases: [Int64] = []
    private var biasIsInput = false
    private(set) var multipliers: [FixedPoint.Multiplier] = []
    /// FULLY_CONNECTED 16x8 with int64 bias: LiteRT requantizes with `round(double(acc) * scale[c])`.
    private(set) var realScales: [Double] = []
    private var doubleRequantize = false
    private var quantizedBiasType: Int8 = 0
    private var rounding: FixedPoint.GemmRounding = .reference
    /// Each output channel's rounding (int8 DEPTHWISE_CONV_2D rounds channel blocks of 8 differently).
    private(set) var roundings: [FixedPoint.GemmRounding] = []
    private(set) var outputZeroPoint: Int32 = 0
    private(set) var inputZeroPoint: Int32 = 0
    private(set) var filterZeroPoint: Int32 = 0
    private(set) var activationMin: Int32 = 0
    /// Sparse int8 FULLY_CONNECTED weights (1x16 blocks), expanded once.
    private let sparseWeights = SparseWeights()
    private(set) var activationMax: Int32 = 0
    let input16 = ScratchBuffer<Int16>(0)
    /// The weights packed for the AVX2 GEMM (CONV_2D and FULLY_CONNECTED, int32 accumulators).
    let packedGemm = QuantizedPackedWeights()
    /// Int16 zeros a padding tap points at (the input zero point, widened).
    let zeroRow = ScratchBuffer<Int16>(0)
    /// The 32-bit output stage's per-channel arrays, for the C requantization loop.
    let stage = RequantizationStage()
    /// Depthwise with few channels: `stage`'s parameters repeated for `tiledPixels` pixels, so the
    /// output stage runs once per group of pixels instead of once per pixel (1 until set).
    let tiledStage = RequantizationStage()
    private(set) var tiledPixels = 1
    /// The 8-bit weights packed for the fused 8-bit GEMM, when it runs (see `usesGemm8`).
    let packedGemm8 = QuantizedPackedWeights8()
    /// The fused 8-bit GEMM's per-thread scratch (im2col rows, flipped int8 rows), kept between runs.
    let gemmScratch = ScratchBuffer<UInt8>(0)
    private var activations8Bit = false
    /// DEPTHWISE_CONV_2D's row kernels (8-bit activations, depth multiplier 1), when they take the node.
    private let depthwise8 = QuantizedDepthwise8()
    private var usesDepthwise8 = false
    /// DEPTHWISE_CONV_2D's whole-row kernel (8-bit activations, few channels or a depth multiplier above 1).
    private let depthwiseRows = QuantizedDepthwiseRows()
    private var usesDepthwiseRows = false

    init(_ node: Node, kind: Kind) throws {
        self.kind = kind
        try node.expect(inputs: 2, 3, outputs: 1)
        window = try ConvolutionOptions(node: node, layout: kind.layout)
        activation = window.activation
        keepNumDims = window.keepNumDims
        quantizedBiasType = window.quantizedBiasType
        weights.place(in: node.weightArena)
        packedGemm.place(in: node.weightArena)
        packedGemm8.place(in: node.weightArena)
        depthwise8.place(in: node.weightArena)
        depthwiseRows.place(in: node.weightArena)
    }

    func prepare(_ node: Node) throws {
        let input = try node.input(0), filter = try node.input(1), output = try node.output(0)
        try node.expect(input, type: .uint8, .int8, .int16, role: "input")
        switch input.type {
        case .uint8: try node.expect(filter, type: .uint8, role: "filter")
        default: try node.expect(filter, type: .int8, .int4, role: "filter")
        }
        if kind == .fullyConnected {
            // LiteRT reads sparse weights only for int8 in and out; elsewhere it would misread them.
            let int8 = input.type == .int8 && output.type == .int8 && filter.type == .int8
            try sparseWeights.densify(filter, blockWidths: int8 ? [16] : [], node: node)
        }
        wide = input.type == .int16
        try FloatOperand.checkExtent(input.shape, node: node, role: "input")
        try FloatOperand.checkExtent(filter.shape, node: node, role: "filter")
        // LiteRT's uint8 FULLY_CONNECTED may also write int16 (the same GEMM, a wider output). (int8 → int16
        // and int16 → int8 run in LiteRT 2.3 but give saturated or unrelated values, so they are not offered.)
        let outputType: TensorType =
            kind == .fullyConnected && input.type == .uint8 && output.type == .int16 ? .int16 : input.type

        let channels: Int
        switch kind {
        case .conv:
            guard filter.rank == 4, input.rank == 4 else {
                throw node.error("input \(input.shape) and filter \(filter.shape) must have rank 4")
            }
            channels = filter.dim(0)
            let groupChannels = filter.dim(3), inputChannels = input.dim(3)
            guard groupChannels > 0, inputChannels % groupChannels == 0 else {
                throw node.error("input has \(inputChannels) channels, not a multiple of the filter's \(groupChannels)")
            }
            groups = inputChannels / groupChannels
            guard groups > 0, channels % groups == 0 else {
                throw node.error("\(channels) output channels cannot be split into \(groups) groups")
            }
            let g = try window.geometry(node: node, inputShape: input.shape, filterHeight: filter.dim(1), filterWidth: filter.dim(2))
            geometry = g
            try node.setOutput(0, type: outputType, shape: [g.batch, g.outputHeight, g.outputWidth, channels])
        case .depthwise:
            guard filter.rank == 4, filter.dim(0) == 1, input.rank == 4 else {
                throw node.error("input \(input.shape) must have rank 4 and filter \(filter.shape) be [1, KH, KW, C*M]")
            }
            channels = filter.dim(3)
            let inputChannels = input.dim(3)
            guard inputChannels > 0, channels % inputChannels == 0 else {
                throw node.error("filter has \(channels) channels, not a multiple of the input's \(inputChannels)")
            }
            depthMultiplier = channels / inputChannels
            let g = try window.geometry(node: node, inputShape: input.shape, filterHeight: filter.dim(1), filterWidth: filter.dim(2))
            geometry = g
            try node.setOutput(0, type: outputType, shape: [g.batch, g.outputHeight, g.outputWidth, channels])
        case .fullyConnected:
            guard filter.rank == 2 else { throw node.error("weights must have rank 2, has shape \(filter.shape)") }
            channels = filter.dim(0)
            depth = filter.dim(1)
            guard depth > 0, input.elementCount % depth == 0 else {
                throw node.error("input \(input.shape) does not split into rows of \(depth)")
            }
            rows = input.elementCount / depth
            if keepNumDims {
                guard input.shape.last == depth else {
                    throw node.error("keep_num_dims needs the input's last dimension to be \(depth), input is \(input.shape)")
                }
                try node.setOutput(0, type: outputType, shape: input.shape.dropLast() + [channels])
            } else {
                try node.setOutput(0, type: outputType, shape: [rows, channels])
            }
        }
        outputChannels = channels

        // Quantization parameters.
        let inputScales = try QuantizedOperand.scales(input, node: node, role: "input")
        let filterScales = try QuantizedOperand.scales(filter, node: node, role: "filter", allowZero: true)
        let outputScales = try QuantizedOperand.scales(output, node: node, role: "output")
        guard filterScales.count == 1 || filterScales.count == channels else {
            throw node.error("filter has \(filterScales.count) scales for \(channels) output channels")
        }
        if filterScales.count > 1 {
            let axis = filter.quantization?.quantizedDimension ?? 0
            let expected = kind == .depthwise ? 3 : 0
            guard axis == expected else {
                throw node.error("per-channel filter quantized along dimension \(axis), expected \(expected)")
            }
        }
        guard outputScales[0] > 0, inputScales[0] > 0 else { throw node.error("quantization scales must be positive") }
        inputZeroPoint = Int32(clamping: input.zeroPoint)
        filterZeroPoint = Int32(clamping: filter.zeroPoint)
        outputZeroPoint = Int32(clamping: output.zeroPoint)
        if input.type == .int16 {
            guard inputZeroPoint == 0, outputZeroPoint == 0 else { throw node.error("int16 activations must have zero point 0") }
        }
        if filter.type == .int8 || filter.type == .int4, let zps = filter.quantization?.zeroPoints,
            zps.contains(where: { $0 != 0 })
        {
            throw node.error("int8 filter must be symmetric (zero point 0)")
        }
        // uint8 kernels and per-tensor FULLY_CONNECTED use LiteRT's legacy per-tensor multiplier.
        let legacy = input.type == .uint8 || (kind == .fullyConnected && filterScales.count == 1)
        multipliers = FixedPoint.channelMultipliers(
            inputScale: inputScales[0], filterScales: filterScales, outputScale: outputScales[0], channels: channels,
            legacy: legacy)
        guard let range = outputType.quantizedRange else { throw node.error("unsupported output type") }
        let act = FixedPoint.activationRange(
            activation, scale: outputScales[0], zeroPoint: Int(outputZeroPoint), qmin: range.min, qmax: range.max)
        activationMin = act.min
        activationMax = act.max
        // A bias fed at run time is read in `eval` (and the weights repacked, since the fused GEMM and depthwise
        // paths fold it in).
        biasIsInput = node.optionalInput(2).map { !QuantizedOperand.isReadableConstant($0) } ?? false
        if biasIsInput {
            try node.expect(try node.input(2), type: .int32, .int64, role: "bias")
            guard try node.input(2).elementCount == channels else {
                throw node.error("bias has \(try node.input(2).elementCount) values for \(channels) output channels")
            }
            biases = [Int64](repeating: 0, count: channels)
        } else {
            biases = try QuantizedOperand.bias(node.optionalInput(2), count: channels, node: node)
        }
        realScales = (0..<channels).map { c in
            Double(inputScales[0]) * Double(filterScales.count == 1 ? filterScales[0] : filterScales[c])
                / Double(outputScales[0])
        }
        // LiteRT's FULLY_CONNECTED with int16 activations runs the reference kernel that requantizes in
        // double (`round(acc * scale)`) when the bias is int64 (or the options ask for int64 bias), and
        // the optimized int32-accumulator GEMM with `MultiplyByQuantizedMultiplier` otherwise.
        doubleRequantize = false
        if kind == .fullyConnected, wide {
            let biasType = node.optionalInput(2)?.type
            if biasType == .int64 || (biasType == nil && quantizedBiasType == TensorType.int64.rawValue) {
                doubleRequantize = true
            } else {
                wide = false
            }
        }
        // CONV_2D 16x8 with an int32 bias (which LiteRT reads correctly only with `quantized_bias_type` INT32)
        // runs LiteRT's optimized GEMM: int32 accumulators and the 32-bit multiplier.
        if kind == .conv, wide, groups == 1, node.optionalInput(2)?.type == .int32 { wide = false }

        // LiteRT's optimized CONV_2D and FULLY_CONNECTED finish in cpu_backend_gemm, which rounds the final
        // shift's ties upward (see `FixedPoint.GemmRounding`); DEPTHWISE_CONV_2D, grouped convolution and the
        // 16x8 kernels are LiteRT's reference-style loops with `MultiplyByQuantizedMultiplier`.
        rounding = .reference
        if kind != .depthwise, !wide, !(kind == .conv && groups != 1) { rounding = .gemm }
        roundings = [FixedPoint.GemmRounding](repeating: rounding, count: channels)
        if kind == .depthwise, input.type == .int8 {
            // int8 DEPTHWISE_CONV_2D (`DepthwiseConvGeneral`) ends in `optimized_ops::Quantize`, whose NEON
            // loop (compiled on x86 through NEON_2_SSE) handles whole blocks of 8 channels with a rounding
            // shift whose ties go up, and the leftover channels with `MultiplyByQuantizedMultiplier`.
            // uint8 depthwise rounds with gemmlowp's `RoundingDivideByPOT` throughout.
            for c in 0..<(channels - channels % 8) { roundings[c] = .gemm }
        }
        setOutputStages()
        // The fused 8-bit GEMM reads the filter's bytes; int4 filters take the widened path.
        activations8Bit = input.type != .int16 && outputType == input.type && filter.type != .int4
        usesDepthwise8 = false
        usesDepthwiseRows = false
        if kind == .depthwise, activations8Bit, let g = geometry,
            QuantizedDepthwiseRows.suits(channels: channels, multiplier: depthMultiplier)
        {
            usesDepthwiseRows = depthwiseRows.configure(
                geometry: g, depthMultiplier: depthMultiplier, inputZeroPoint: inputZeroPoint,
                signed: input.type == .int8)
        }
        if !usesDepthwiseRows, kind == .depthwise, activations8Bit, depthMultiplier == 1, let g = geometry {
            usesDepthwise8 = depthwise8.configure(
                geometry: g, inputZeroPoint: inputZeroPoint, outputZeroPoint: outputZeroPoint,
                activationMin: activationMin, activationMax: activationMax, signed: input.type == .int8)
        }
        if !usesGemm8 {
            // The depthwise row kernels read the input bytes; `eval` widens them only on the general path.
            if !usesDepthwise8, !usesDepthwiseRows { input16.reserve(max(1, input.elementCount), filling: 0) }
            zeroRow.reserve(max(2, (geometry?.inputChannels ?? depth) + 2), filling: 0)
            weights.reserve(max(1, filter.elementCount), filling: 0)
        }
        weightsReady = false
        if QuantizedOperand.isReadableConstant(filter), !biasIsInput { pack(filter) ; weightsReady = true }
        let outputBytes = QuantizedOperand.storageBytes(output)
        prepared = (QuantizedOperand.storageBytes(input), outputBytes)
        // The checks `eval`'s fast path skips hold from here on: packed weights, constant biases,
        // and a path that reads the input's bytes as they are.
        fastPath = weightsReady && !biasIsInput && outputBytes > 0
            && (usesGemm8 || (usesDepthwiseRows && depthwiseRows.isReady) || (usesDepthwise8 && depthwise8.isReady))
    }

    /// The input's and output's bytes and the output type, when both hold the bytes of the last
    /// prepare's shapes. Its bindings end here, so `eval` holds no tensor across the kernel call
    /// (a retain/release pair per tensor per invoke otherwise).
    @inline(never)
    private func preparedAddresses(_ node: Node) -> (UnsafeMutableRawPointer, UnsafeMutableRawPointer, TensorType)? {
        guard let input = node.inputs[0], let output = node.outputs.first, input.byteCount >= prepared.input,
            output.byteCount >= prepared.output, let x = input.data, let out = output.data
        else { return nil }
        return (x, out, output.type)
    }

    /// The bytes the input and the output hold for the shapes of the last prepare.
    private var prepared = (input: 0, output: 0)
    /// Whether `eval` may run without re-deriving what `prepare` settled (see `prepare`).
    private var fastPath = false

    /// Widens the filter and lays it out for the inner loops (or packs its bytes for the fused 8-bit GEMM).
    private func pack(_ filter: RuntimeTensor) {
        if usesGemm8 {
            packBytes(filter)
            return
        }
        let w = weights.pointer
        switch kind {
        case .conv, .fullyConnected, .depthwise:
            // [O][KH][KW][Cg] (conv), [O][I] (fully connected) and [1][KH][KW][O] (depthwise) are
            // already the layouts the loops read.
            QuantizedOperand.widen(filter, zeroPoint: filterZeroPoint, into: w)
        }
        if usesDepthwiseRows {
            depthwiseRows.pack(weights: w, biases: biases, multipliers: multipliers, roundings: roundings)
        }
        if usesDepthwise8 {
            _ = depthwise8.pack(weights: w, biases: biases, multipliers: multipliers, roundings: roundings)
        }
        guard usesGemm else { return }
        switch kind {
        case .conv:
            if let g = geometry { packedGemm.pack(taps: g.taps, depth: g.inputChannels, columns: outputChannels, from: w) }
        case .fullyConnected:
            packedGemm.pack(taps: 1, depth: depth, columns: outputChannels, from: w)
        case .depthwise:
            break
        }
    }

    /// Loads `biases`, `multipliers` and `roundings` into `stage`, and for a depthwise convolution
    /// with few channels into `tiledStage` as well.
    private func setOutputStages() {
        stage.set(biases: biases, multipliers: multipliers, roundings: roundings)
        let channels = multipliers.count
        tiledPixels = 1
        if kind == .depthwise, channels > 0, channels < 32 {
            tiledPixels = 64 / channels
            let perChannel = (0..<channels).map { $0 < biases.count ? biases[$0] : 0 }
            tiledStage.set(
                biases: Array([[Int64]](repeating: perChannel, count: tiledPixels).joined()),
                multipliers: Array([[FixedPoint.Multiplier]](repeating: multipliers, count: tiledPixels).joined()),
                roundings: Array([[FixedPoint.GemmRounding]](repeating: roundings, count: tiledPixels).joined()))
        }
    }

    /// Whether CONV_2D / FULLY_CONNECTED run on the C int16 GEMM (AVX2 or NEON; same integers as the
    /// portable loops: wrapping int32 sums of exact products, in any order).
    private var usesGemm: Bool { CPUFeatures.int16Gemm && !wide && groups == 1 && kind != .depthwise }

    /// Whether they run on the fused 8-bit GEMM instead (VNNI `vpdpbusd` or AVX2 `vpmaddwd` on x86,
    /// NEON / SDOT / USDOT on aarch64; 8-bit activations; the same int32 accumulators, see `QuantizedPackedWeights8`).
    var usesGemm8: Bool { usesGemm && activations8Bit && CPUFeatures.gemm8 }

    func eval(_ node: Node) throws {
        // Every invoke of a prepared node with constant weights: only the buffers are checked.
        if fastPath, let (x, out, type) = preparedAddresses(node) {
            let bytes = UnsafePointer(x.assumingMemoryBound(to: UInt8.self))
            if usesGemm8 {
                if kind == .conv { runConvGemm8(node, input: bytes, out: out) } else { runFullyConnectedGemm8(node, input: bytes, out: out) }
            } else if usesDepthwiseRows {
                depthwiseRows.run(
                    input: bytes, output: out, type: type, zeroPoint: outputZeroPoint, lo: activationMin,
                    hi: activationMax, threads: node.threadCount)
            } else {
                depthwise8.run(input: bytes, output: out.assumingMemoryBound(to: UInt8.self), threads: node.threadCount)
            }
            return
        }
        let input = try node.input(0), filter = try node.input(1), output = try node.output(0)
        try QuantizedOperand.checkBytes(input, node: node, role: "input")
        try QuantizedOperand.checkBytes(output, node: node, role: "output")
        if biasIsInput {
            biases = try QuantizedOperand.bias(node.optionalInput(2), count: outputChannels, node: node)
            setOutputStages()
        }
        if !weightsReady {
            try QuantizedOperand.checkBytes(filter, node: node, role: "filter")
            pack(filter)
        }
        guard output.elementCount > 0, let out = output.data else { return }
        if usesGemm8 {
            guard let x = input.data else { return }
            let bytes = UnsafePointer(x.assumingMemoryBound(to: UInt8.self))
            if kind == .conv {
                runConvGemm8(node, input: bytes, out: out)
            } else {
                runFullyConnectedGemm8(node, input: bytes, out: out)
            }
            return
        }
        if usesDepthwiseRows {
            if depthwiseRows.isReady {
                guard let x = input.data else { return }
                depthwiseRows.run(
                    input: x.assumingMemoryBound(to: UInt8.self), output: out, type: output.type,
                    zeroPoint: outputZeroPoint, lo: activationMin, hi: activationMax, threads: node.threadCount)
                return
            }
            input16.reserve(max(1, input.elementCount), filling: 0)
        }
        if usesDepthwise8 {
            if depthwise8.isReady {
                guard let x = input.data else { return }
                depthwise8.run(
                    input: x.assumingMemoryBound(to: UInt8.self), output: out.assumingMemoryBound(to: UInt8.self),
                    threads: node.threadCount)
                return
            }
            // The row kernels turned down this filter's output stage: the general path widens the input.
            input16.reserve(max(1, input.elementCount), filling: 0)
        }
        QuantizedOperand.widen(input, zeroPoint: inputZeroPoint, into: input16.pointer)
        switch kind {
        case .conv where usesGemm: runConvGemm(node, out: out, type: output.type)
        case .fullyConnected where usesGemm && !doubleRequantize: runFullyConnectedGemm(node, out: out, type: output.type)
        case .conv: runConv(node, out: out, type: output.type)
        case .depthwise: runDepthwise(node, out: out, type: output.type)
        case .fullyConnected: runFullyConnected(node, out: out, type: output.type)
        }
    }
}

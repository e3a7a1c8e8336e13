import CKernels

/// Dynamic-range ("hybrid") CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: float input and output,
/// int8 weights (constant, or run-time inputs; int4 too, unpacked; FULLY_CONNECTED also takes uint8 weights,
/// whose bytes LiteRT reads as int8) with symmetric per-tensor or per-channel scales. Follows LiteRT:
///
/// - FULLY_CONNECTED quantizes each input row to int8, symmetrically (`SymmetricQuantizeFloats`:
///   scale = max|x| / 127) or, with `asymmetric_quantize_inputs`, asymmetrically; accumulates
///   `Σ w · (q − zp)` in int32 and adds `acc · (row_scale · weight_scale[c])` to the float bias.
/// - CONV_2D quantizes each image (batch item) as a whole: symmetrically when all weight scales are
///   equal (`EvalHybrid`, scale = image_scale · weight_scale), asymmetrically when they differ
///   (`EvalHybridPerChannel`, scale = weight_scale[c] · image_scale); output `acc · scale + bias`.
/// - DEPTHWISE_CONV_2D always quantizes each image asymmetrically (`EvalHybridPerChannel`); it does
///   not dequantize the weights. Output `(acc · weight_scale[c]) · image_scale + bias`, in that
///   order (measured against LiteRT: the product of the two scales first is off by an ulp in a
///   quarter of the outputs).
///
/// Padding taps contribute nothing (LiteRT's im2col pads with the image's zero point and subtracts
/// the weight row sums times the zero point, which amounts to the same). Then the fused activation.
///
/// With AVX2, CONV_2D (one group) and FULLY_CONNECTED over at least 8 rows run on the int16 GEMM
/// microkernel with weights packed once in `prepare` (`runConvGemm`, `runFullyConnectedGemm`): the
/// int32 sums are the same wrapping sums of exact products, and the float step after them is the
/// same expression, so the results do not change. Where the CPU has the 8-bit VNNI dot product
/// (the kernel table's `hybrid_conv` / `hybrid_gemm`), CONV_2D (one group) and FULLY_CONNECTED with
/// a clamping activation run on it instead (`runConvVNNI`, `runFullyConnectedVNNI`): the same int32
/// sums again, four byte products per lane instead of two int16 ones.
final class HybridConvolutionKernel: OpKernel {
    let kind: QuantizedConvolutionKernel.Kind
    private var window = ConvolutionOptions()
    let activation: FusedActivation
    private var keepNumDims = false
    private var asymmetricInputs = false
    /// Sparse int8 FULLY_CONNECTED weights (1x16 blocks), expanded once.
    private let sparseWeights = SparseWeights()

    private(set) var geometry: WindowGeometry?
    private(set) var channels = 0
    private var groups = 1
    private var depthMultiplier = 1
    private(set) var batches = 0
    /// Elements quantized together (one FC row, or one image).
    private(set) var batchSize = 0
    private(set) var depth = 0
    private var perChannel = false

    private let weights = ScratchBuffer<Int16>(0)
    private var weightScales: [Float] = []
    private(set) var bias: [Float] = []
    let quantized = ScratchBuffer<Int8>(0)
    let input16 = ScratchBuffer<Int16>(0)
    private let batchScales = ScratchBuffer<Float>(0)
    /// Each batch's (row's or image's) quantization scale, written by `eval`.
    var batchScalePointer: UnsafeMutablePointer<Float> { batchScales.pointer }
    /// The weights packed for the int16 GEMM, when it runs (see `usesGemm`).
    let packed = QuantizedPackedWeights()
    private var packedReady = false
    private(set) var usesGemm = false
    /// The weights packed for the 8-bit VNNI GEMM, when it runs (see `usesVNNI`).
    let packed8 = QuantizedPackedWeights8()
    /// Whether CONV_2D / FULLY_CONNECTED run on the VNNI GEMM (chosen in `prepare`).
    private(set) var usesVNNI = false
    /// The quantized input as the bytes `q + 128` and each batch's offset, for the VNNI GEMM.
    let inputBytes = ScratchBuffer<UInt8>(0)
    let batchZeros = ScratchBuffer<Int32>(0)
    /// im2col rows of the VNNI CONV_2D, one block per thread.
    let vnniScratch = ScratchBuffer<UInt8>(0)
    /// Int16 zeros a padding tap points at.
    let zeroRow = ScratchBuffer<Int16>(0)
    /// Each output channel's weight scale (the one scale repeated for per-tensor weights).
    private(set) var channelScales: [Float] = []

    init(_ node: Node, kind: QuantizedConvolutionKernel.Kind) throws {
        self.kind = kind
        try node.expect(inputs: 2, 3, outputs: 1)
        window = try ConvolutionOptions(node: node, layout: kind.layout)
        activation = window.activation
        keepNumDims = window.keepNumDims
        asymmetricInputs = window.asymmetricInputs
        packed.place(in: node.weightArena)
        packed8.place(in: node.weightArena)
    }

    func prepare(_ node: Node) throws {
        let input = try node.input(0), filter = try node.input(1)
        try node.expect(input, type: .float32, role: "input")
        try node.expect(filter, type: .int8, .int4, .uint8, role: "filter")
        if filter.type == .uint8, kind != .fullyConnected {
            throw node.error("uint8 weights with a float input are supported for FULLY_CONNECTED only")
        }
        if kind == .fullyConnected {
            try sparseWeights.densify(filter, blockWidths: filter.type == .int8 ? [16] : [], node: node)
        }
        try FloatOperand.checkExtent(input.shape, node: node, role: "input")
        try FloatOperand.checkExtent(filter.shape, node: node, role: "filter")
        switch kind {
        case .conv, .depthwise:
            guard filter.rank == 4, input.rank == 4 else {
                throw node.error("input \(input.shape) and filter \(filter.shape) must have rank 4")
            }
            let inputChannels = input.dim(3)
            if kind == .conv {
                channels = filter.dim(0)
                let groupChannels = filter.dim(3)
                guard groupChannels > 0, inputChannels % groupChannels == 0 else {
                    throw node.error("input has \(inputChannels) channels, not a multiple of the filter's \(groupChannels)")
                }
                groups = inputChannels / groupChannels
                guard groups > 0, channels % groups == 0 else {
                    throw node.error("\(channels) output channels cannot be split into \(groups) groups")
                }
            } else {
                guard filter.dim(0) == 1 else { throw node.error("filter must have shape [1, KH, KW, C*M], has \(filter.shape)") }
                channels = filter.dim(3)
                guard inputChannels > 0, channels % inputChannels == 0 else {
                    throw node.error("filter has \(channels) channels, not a multiple of the input's \(inputChannels)")
                }
                depthMultiplier = channels / inputChannels
            }
            let g = try window.geometry(node: node, inputShape: input.shape, filterHeight: filter.dim(1), filterWidth: filter.dim(2))
            geometry = g
            batches = g.batch
            batchSize = g.inputHeight * g.inputWidth * g.inputChannels
            try node.setOutput(0, type: .float32, shape: [g.batch, g.outputHeight, g.outputWidth, channels])
        case .fullyConnected:
            guard filter.rank == 2 else { throw node.error("weights must have rank 2, has shape \(filter.shape)") }
            channels = filter.dim(0)
            depth = filter.dim(1)
            guard depth > 0, input.elementCount % depth == 0 else {
                throw node.error("input \(input.shape) does not split into rows of \(depth)")
            }
            batches = input.elementCount / depth
            batchSize = depth
            if keepNumDims {
                guard input.shape.last == depth else {
                    throw node.error("keep_num_dims needs the input's last dimension to be \(depth), input is \(input.shape)")
                }
                try node.setOutput(0, type: .float32, shape: input.shape.dropLast() + [channels])
            } else {
                try node.setOutput(0, type: .float32, shape: [batches, channels])
            }
        }
        let scales = try QuantizedOperand.scales(filter, node: node, role: "filter", allowZero: true)
        guard scales.count == 1 || scales.count == channels else {
            throw node.error("filter has \(scales.count) scales for \(channels) output channels")
        }
        weightScales = scales
        switch kind {
        // LiteRT also takes the per-channel (asymmetric) path for grouped convolution.
        case .conv: perChannel = scales.contains { $0 != scales[0] } || groups != 1
        case .depthwise: perChannel = true
        case .fullyConnected: perChannel = scales.count > 1
        }
        if let b = node.optionalInput(2) {
            try node.expect(b, type: .float32, role: "bias")
            guard b.elementCount == channels else {
                throw node.error("bias has \(b.elementCount) values for \(channels) output channels")
            }
            if FloatOperand.isReadableConstant(b) { bias = Array(try FloatOperand.read(b, node: node, role: "bias").prefix(channels)) }
        } else {
            bias = [Float](repeating: 0, count: channels)
        }
        channelScales = (0..<channels).map { weightScales[weightScales.count == 1 ? 0 : $0] }
        // FULLY_CONNECTED over fewer rows than a GEMM tile stays on the dot products (a tile of 8
        // rows would compute the missing rows too).
        usesVNNI = groups == 1 && activation.isClamp
            && (kind == .conv ? CPUFeatures.kernels.hybrid_conv != nil
                : kind == .fullyConnected && CPUFeatures.kernels.hybrid_gemm != nil)
        usesGemm = !usesVNNI && CPUFeatures.int16Gemm && groups == 1
            && (kind == .conv || (kind == .fullyConnected && batches >= QuantizedIndirectGemm.mr))
        packedReady = false
        if usesVNNI {
            if filter.isConstant {
                try QuantizedOperand.checkBytes(filter, node: node, role: "filter")
                packBytes(filter)
                packedReady = true
            }
            inputBytes.reserve(max(1, input.elementCount), filling: 0)
            batchZeros.reserve(max(1, batches), filling: 0)
        } else if usesGemm {
            zeroRow.reserve(max(2, (geometry?.inputChannels ?? depth) + 2), filling: 0)
            if filter.isConstant {
                try QuantizedOperand.checkBytes(filter, node: node, role: "filter")
                pack(filter)
                packedReady = true
            }
        } else {
            weights.reserve(max(1, filter.elementCount), filling: 0)
            // Weights fed at run time are widened in `eval`.
            if filter.isConstant {
                try QuantizedOperand.checkBytes(filter, node: node, role: "filter")
                HybridConvolutionKernel.widenWeights(filter, into: weights.pointer)
            }
        }
        quantized.reserve(max(1, input.elementCount), filling: 0)
        if !usesVNNI { input16.reserve(max(1, input.elementCount), filling: 0) }
        batchScales.reserve(max(1, batches), filling: 0)
    }

    /// Calls `body` with each channel's weight scale and bias as pointers (no bounds checks in the
    /// GEMM's per-row loop).
    func withChannelArrays(_ body: (UnsafePointer<Float>, UnsafePointer<Float>) -> Void) {
        channelScales.withUnsafeBufferPointer { s in
            bias.withUnsafeBufferPointer { b in
                guard let sp = s.baseAddress, let bp = b.baseAddress else { return }
                body(sp, bp)
            }
        }
    }

    /// The weights as int16; uint8 bytes are read as int8, as LiteRT's hybrid FULLY_CONNECTED reads them
    /// (the zero point is not applied).
    static func widenWeights(_ filter: RuntimeTensor, into out: UnsafeMutablePointer<Int16>) {
        guard filter.type == .uint8 else { return QuantizedOperand.widen(filter, zeroPoint: 0, into: out) }
        guard let d = filter.data else { return }
        let p = d.assumingMemoryBound(to: Int8.self)
        for i in 0..<filter.elementCount { out[i] = Int16(p[i]) }
    }

    @inline(__always)
    private func scale(_ c: Int, _ batchScale: Float) -> Float {
        // LiteRT's per-channel scale is weight_scale[c] · input_scale; per-tensor FC / conv fold the weight
        // scale into the input scale first. Both are one float product.
        weightScales[weightScales.count == 1 ? 0 : c] * batchScale
    }

    func eval(_ node: Node) throws {
        let input = try node.input(0), output = try node.output(0)
        let x = UnsafePointer(try FloatOperand.base(input, node: node, role: "input"))
        let y = try FloatOperand.base(output, node: node, role: "output")
        if let b = node.optionalInput(2), !b.isConstant {
            bias = Array(try FloatOperand.read(b, node: node, role: "bias").prefix(channels))
        }
        let filter = try node.input(1)
        let symmetric = kind == .fullyConnected ? !asymmetricInputs : (kind == .conv && !perChannel)
        if usesVNNI {
            if !packedReady {
                try QuantizedOperand.checkBytes(filter, node: node, role: "filter")
                packBytes(filter)
            }
            guard output.elementCount > 0 else { return }
            quantizeBytes(x, symmetric: symmetric)
            kind == .conv ? runConvVNNI(node, y) : runFullyConnectedVNNI(node, y)
            return
        }
        if usesGemm {
            if !packedReady {
                try QuantizedOperand.checkBytes(filter, node: node, role: "filter")
                pack(filter)
            }
        } else if !filter.isConstant {
            try QuantizedOperand.checkBytes(filter, node: node, role: "filter")
            HybridConvolutionKernel.widenWeights(filter, into: weights.pointer)
        }
        guard output.elementCount > 0 else { return }
        let q = quantized.pointer, x16 = input16.pointer, scales = batchScales.pointer
        for b in 0..<batches {
            let base = b * batchSize
            if CPUFeatures.level >= 1, quantizeAVX2(x + base, symmetric: symmetric, into: x16 + base, scale: scales + b) {
                continue
            }
            let zero: Int32
            (scales[b], zero) = Self.quantize(x + base, count: batchSize, symmetric: symmetric, into: q + base)
            for i in base..<(base + batchSize) { x16[i] = Int16(Int32(q[i]) - zero) }
        }
        switch kind {
        case .fullyConnected: usesGemm ? runFullyConnectedGemm(node, y) : runFullyConnected(node, y)
        case .conv: usesGemm ? runConvGemm(node, y) : runConv(node, y)
        case .depthwise: runDepthwise(node, y)
        }
    }

    /// Quantizes one batch (row or image) straight to the GEMM's int16 operand `q − zero point`, as
    /// the portable loop below does; false (nothing written) for an empty batch or one with a NaN,
    /// whose min/max scan order matters: the portable loop takes those.
    /// One batch's portable quantization into `q`: its scale and zero point (0 when symmetric),
    /// as LiteRT's hybrid kernels quantize their float input.
    static func quantize(
        _ x: UnsafePointer<Float>, count: Int, symmetric: Bool, into q: UnsafeMutablePointer<Int8>
    ) -> (scale: Float, zero: Int32) {
        if symmetric { return (FixedPoint.symmetricQuantize(x, count: count, into: q), 0) }
        let r = FixedPoint.asymmetricQuantize(x, count: count, into: q)
        return (r.scale, r.offset)
    }

    private func quantizeAVX2(
        _ x: UnsafePointer<Float>, symmetric: Bool, into out: UnsafeMutablePointer<Int16>,
        scale: UnsafeMutablePointer<Float>
    ) -> Bool {
        var lo: Float = 0, hi: Float = 0
        guard batchSize > 0, omk_f32_minmax_avx2(x, batchSize, &lo, &hi) == 0 else { return false }
        let p = symmetric ? FixedPoint.symmetricParameters(lo: lo, hi: hi) : FixedPoint.asymmetricParameters(lo: lo, hi: hi)
        scale.pointee = p.scale
        if p.allZero {
            out.update(repeating: 0, count: batchSize)
        } else {
            // The level's widest form of omk_f32_quantize_i16_avx2 (the same integers).
            let quantize = CPUFeatures.kernels.hybrid_quantize_i16 ?? omk_f32_quantize_i16_avx2
            quantize(x, batchSize, p.scaleInv, p.offset, symmetric ? -127 : -128, 127, out)
        }
        return true
    }

    /// Widens the filter into a temporary buffer and packs it for the GEMM (only the packed copy is kept).
    private func pack(_ filter: RuntimeTensor) {
        let count = max(1, filter.elementCount)
        let wide = UnsafeMutablePointer<Int16>.allocate(capacity: count)
        defer { wide.deallocate() }
        wide.initialize(repeating: 0, count: count)
        HybridConvolutionKernel.widenWeights(filter, into: wide)
        // [O][KH][KW][C] (conv) and [O][I] (fully connected) are the `[column][tap][k]` the packing reads.
        if kind == .conv, let g = geometry {
            packed.pack(taps: g.taps, depth: g.inputChannels, columns: channels, from: wide)
        } else {
            packed.pack(taps: 1, depth: depth, columns: channels, from: wide)
        }
    }

    private func runFullyConnected(_ node: Node, _ y: UnsafeMutablePointer<Float>) {
        let x = UnsafePointer(input16.pointer), w = UnsafePointer(weights.pointer)
        let scales = UnsafePointer(batchScales.pointer)
        let channels = self.channels, depth = self.depth, activation = self.activation
        parallelFor(batches, threads: node.threadCount, minimumPerThread: max(1, 65_536 / max(1, channels * depth))) { range in
            for r in range {
                let xr = x + r * depth, out = y + r * channels
                let rowScale = scales[r]
                for c in 0..<channels {
                    let acc = QuantizedDot.dot(xr, w + c * depth, depth)
                    out[c] = activation.apply(bias[c] + Float(acc) * scale(c, rowScale))
                }
            }
        }
    }

    private func runConv(_ node: Node, _ y: UnsafeMutablePointer<Float>) {
        guard let g = geometry else { return }
        let x = UnsafePointer(input16.pointer), w = UnsafePointer(weights.pointer)
        let scales = UnsafePointer(batchScales.pointer)
        let channels = self.channels, groupChannels = g.inputChannels / groups
        let perGroup = channels / groups, taps = g.taps
        let (lower, upper) = activation.floatRange
        let pixelsPerImage = g.outputHeight * g.outputWidth
        parallelFor(g.outputPixels, threads: node.threadCount, minimumPerThread: max(1, 65_536 / max(1, channels * taps * groupChannels))) { range in
            for p in range {
                let b = p / pixelsPerImage, rest = p % pixelsPerImage
                let oy = rest / g.outputWidth, ox = rest % g.outputWidth
                let ys = g.validFilterRows(outputRow: oy), xs = g.validFilterColumns(outputColumn: ox)
                let iy0 = oy * g.strideHeight - g.padTop, ix0 = ox * g.strideWidth - g.padLeft
                let image = x + b * g.inputHeight * g.inputWidth * g.inputChannels
                let out = y + p * channels
                for c in 0..<channels {
                    let group = c / perGroup
                    let wc = w + c * taps * groupChannels
                    var acc: Int32 = 0
                    for ky in ys {
                        let line = image + (iy0 + ky * g.dilationHeight) * g.inputWidth * g.inputChannels
                        for kx in xs {
                            let px = line + (ix0 + kx * g.dilationWidth) * g.inputChannels + group * groupChannels
                            acc &+= QuantizedDot.dot(px, wc + (ky * g.filterWidth + kx) * groupChannels, groupChannels)
                        }
                    }
                    out[c] = min(max(Float(acc) * scale(c, scales[b]) + bias[c], lower), upper)
                }
            }
        }
    }

    private func runDepthwise(_ node: Node, _ y: UnsafeMutablePointer<Float>) {
        guard let g = geometry else { return }
        let x = UnsafePointer(input16.pointer), w = UnsafePointer(weights.pointer)
        let scales = UnsafePointer(batchScales.pointer)
        let channels = self.channels, m = depthMultiplier, inC = g.inputChannels
        let (lower, upper) = activation.floatRange
        let pixelsPerImage = g.outputHeight * g.outputWidth
        parallelFor(g.outputPixels, threads: node.threadCount, minimumPerThread: max(1, 65_536 / max(1, channels * g.taps))) { range in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(1, channels)) { accBuffer in
                guard let acc = accBuffer.baseAddress else { return }
                for p in range {
                    let b = p / pixelsPerImage, rest = p % pixelsPerImage
                    let oy = rest / g.outputWidth, ox = rest % g.outputWidth
                    let ys = g.validFilterRows(outputRow: oy), xs = g.validFilterColumns(outputColumn: ox)
                    let iy0 = oy * g.strideHeight - g.padTop, ix0 = ox * g.strideWidth - g.padLeft
                    let image = x + b * g.inputHeight * g.inputWidth * inC
                    acc.update(repeating: 0, count: channels)
                    for ky in ys {
                        let line = image + (iy0 + ky * g.dilationHeight) * g.inputWidth * inC
                        for kx in xs {
                            let px = line + (ix0 + kx * g.dilationWidth) * inC
                            let wt = w + (ky * g.filterWidth + kx) * channels
                            for ic in 0..<inC {
                                let xv = Int32(px[ic])
                                for j in 0..<m { acc[ic * m + j] &+= xv &* Int32(wt[ic * m + j]) }
                            }
                        }
                    }
                    let out = y + p * channels
                    // LiteRT's hybrid depthwise scales by the weight's scale first, then by the image's
                    // (two roundings; one product of the two scales differs in the last bit).
                    let imageScale = scales[b]
                    for c in 0..<channels {
                        let weightScale = weightScales[weightScales.count == 1 ? 0 : c]
                        out[c] = min(max((Float(acc[c]) * weightScale) * imageScale + bias[c], lower), upper)
                    }
                }
            }
        }
    }
}

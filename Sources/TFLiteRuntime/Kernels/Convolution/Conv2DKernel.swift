import CKernels
/// CONV_2D on float32 NHWC tensors, including grouped convolution.
///
/// Inputs: input `[N, H, W, C]`, filter `[O, KH, KW, C / groups]`, optional bias `[O]`. Options
/// (`Conv2DOptions`): padding, strides, fused activation, dilations.
///
/// The filter is packed once into GEMM panels (per group). A 1x1, stride-1 convolution is a plain
/// GEMM of the `[pixels, C]` input by the `[C, O]` weights; any other convolution is an indirect GEMM
/// whose row pointers address the input image tap by tap, so no im2col copy is made. As in TFLite,
/// only the clamping activations take effect (`CalculateActivationRange` ignores TANH and SIGN_BIT).
final class Conv2DKernel: OpKernel {
    private let window: ConvolutionOptions
    private var activation: FusedActivation { window.activation }

    private var geometry: WindowGeometry?
    private var groups = 1
    private var outputChannels = 0
    /// One packing per group.
    private var packed: [PackedWeights] = []
    /// The filter shape `packed` was made from; nil when the filter must be packed on every run.
    private var packedShape: [Int]?
    /// Zeros that padding taps point at; as long as one group's input channels.
    private var zeroRow: UnsafeMutablePointer<Float>
    private var zeroRowCapacity = 1

    init(_ node: Node) throws {
        try node.expect(inputs: 2, 3, outputs: 1)
        window = try ConvolutionOptions(node: node, layout: .conv)
        zeroRow = .allocate(capacity: 1)
        zeroRow.initialize(to: 0)
    }

    deinit { zeroRow.deallocate() }

    func prepare(_ node: Node) throws {
        let input = try node.input(0), filter = try node.input(1)
        try node.expect(input, type: .float32, role: "input")
        try node.expect(filter, type: .float32, role: "filter")
        guard filter.rank == 4 else { throw node.error("filter must have rank 4, has shape \(filter.shape)") }
        guard input.rank == 4 else { throw node.error("input must have rank 4 (NHWC), has shape \(input.shape)") }
        try FloatOperand.checkExtent(input.shape, node: node, role: "input")
        try FloatOperand.checkExtent(filter.shape, node: node, role: "filter")
        let outputChannels = filter.dim(0), groupChannels = filter.dim(3)
        let inputChannels = input.dim(3)
        guard groupChannels > 0, inputChannels > 0, inputChannels % groupChannels == 0 else {
            throw node.error("input has \(inputChannels) channels, not a positive multiple of the filter's \(groupChannels)")
        }
        let groups = inputChannels / groupChannels
        guard outputChannels % groups == 0 else {
            throw node.error("\(outputChannels) output channels cannot be split into \(groups) groups")
        }
        if let bias = node.optionalInput(2) {
            try node.expect(bias, type: .float32, role: "bias")
            guard bias.elementCount == outputChannels else {
                throw node.error("bias has \(bias.elementCount) values for \(outputChannels) output channels")
            }
        }
        let g = try window.geometry(node: node, inputShape: input.shape, filterHeight: filter.dim(1), filterWidth: filter.dim(2))
        try node.setOutput(0, type: .float32, shape: [g.batch, g.outputHeight, g.outputWidth, outputChannels])
        geometry = g
        self.groups = groups
        self.outputChannels = outputChannels
        // Zeros for a tap in the padding (one pixel's channels), or for a whole filter row.
        let zeros = max(groupChannels, g.filterWidth * inputChannels)
        if zeros > zeroRowCapacity {
            zeroRow.deallocate()
            zeroRow = .allocate(capacity: zeros)
            zeroRow.initialize(repeating: 0, count: zeros)
            zeroRowCapacity = zeros
        }
        if FloatOperand.isReadableConstant(filter) {
            if packedShape != filter.shape || packed.count != groups {
                try pack(filter, node: node)
                packedShape = filter.shape
            }
        } else {
            packedShape = nil
        }
    }

    /// A constant filter is read once, when packed; the packed panels serve every run.
    func holdsOwnCopy(ofInput index: Int) -> Bool { index == 1 && packedShape != nil }

    /// Packs each group's `[O/groups, KH*KW*C/groups]` slice of the filter as a `[K, N]` matrix.
    private func pack(_ filter: RuntimeTensor, node: Node) throws {
        let w = try FloatOperand.base(filter, node: node, role: "filter")
        let depth = filter.dim(1) * filter.dim(2) * filter.dim(3)
        let groupOutput = outputChannels / groups
        while packed.count < groups { packed.append(PackedWeights()) }
        packed.removeLast(packed.count - groups)
        let constant = FloatOperand.isReadableConstant(filter)
        for (group, weights) in packed.enumerated() {
            if constant { weights.place(in: node.weightArena) }
            weights.pack(depth: depth, columns: groupOutput, source: w, depthStride: 1) { n in
                (group * groupOutput + n) * depth
            }
        }
    }

    func eval(_ node: Node) throws {
        guard let g = geometry else { throw node.error("was not prepared") }
        let input = try node.input(0), filter = try node.input(1)
        let x = UnsafePointer(try FloatOperand.base(input, node: node, role: "input"))
        let y = try FloatOperand.base(try node.output(0), node: node, role: "output")
        if packedShape == nil { try pack(filter, node: node) }
        let bias = try node.optionalInput(2).map { UnsafePointer(try FloatOperand.base($0, node: node, role: "bias")) }
        let groupInput = g.inputChannels / groups, groupOutput = outputChannels / groups
        let (lower, upper) = activation.floatRange
        let pointwise = g.taps == 1 && g.outputHeight == g.inputHeight && g.outputWidth == g.inputWidth
            && g.padTop == 0 && g.padLeft == 0
        // With few channels per tap, the per-tap loop overhead dominates; copying each tile's window
        // into one contiguous row (im2col of just `mr` pixels) lets the microkernel run one long loop.
        let gather = !pointwise && groupInput < Conv2DKernel.gatherBelowChannels
        for group in 0..<groups {
            let weights = packed[group]
            weights.setBias(bias.map { $0 + group * groupOutput })
            var gemm = IndirectGemm(
                rows: g.outputPixels, taps: pointwise ? 1 : g.taps, depth: groupInput, weights: weights,
                output: y + group * groupOutput, outputStride: outputChannels, lower: lower, upper: upper)
            // LiteRT runs grouped convolution through its reference loops: one running sum per output.
            gemm.followsEigenOrder = groups == 1
            let groupInputBase = x + group * groupInput
            if pointwise {
                gemm.run(threads: node.threadCount, rowPointers: IndirectGemm.denseRows(groupInputBase, stride: g.inputChannels))
            } else if gather, groups == 1, g.dilationWidth == 1 {
                // Each filter row is one run of the input: a tap of filterWidth * C floats read in place.
                gemm.taps = g.filterHeight
                gemm.depth = g.filterWidth * groupInput
                gemm.scratchPerRow = g.taps * groupInput
                gemm.run(
                    threads: node.threadCount,
                    rowPointers: Conv2DKernel.windowRows(g, input: groupInputBase, zero: UnsafePointer(zeroRow)))
            } else if gather {
                gemm.taps = 1
                gemm.depth = g.taps * groupInput
                gemm.scratchPerRow = gemm.depth
                gemm.run(threads: node.threadCount, rowPointers: Conv2DKernel.gatheredRows(g, input: groupInputBase, depth: groupInput))
            } else {
                gemm.run(
                    threads: node.threadCount,
                    rowPointers: Conv2DKernel.imageRows(g, input: groupInputBase, zero: UnsafePointer(zeroRow)))
            }
        }
    }

    /// Channels per group below which tiles are gathered into contiguous rows (see `eval`).
    static let gatherBelowChannels = 32

    /// The window geometry as the C gatherers read it; `input` is offset to the group's first channel.
    private static func window(_ g: WindowGeometry, input: UnsafePointer<Float>, depth: Int) -> omk_f32_window {
        omk_f32_window(
            input: input, input_height: g.inputHeight, input_width: g.inputWidth, channels: g.inputChannels,
            depth: depth, output_height: g.outputHeight, output_width: g.outputWidth, filter_height: g.filterHeight,
            filter_width: g.filterWidth, stride_height: g.strideHeight, stride_width: g.strideWidth,
            dilation_height: g.dilationHeight, dilation_width: g.dilationWidth, pad_top: g.padTop, pad_left: g.padLeft)
    }

    /// Row pointers into per-thread scratch rows holding each output pixel's whole window
    /// (`[ky][kx][depth]`, zeros for padding): a tile-sized im2col, copied in C (`omk_f32_gather_rows`).
    static func gatheredRows(_ g: WindowGeometry, input: UnsafePointer<Float>, depth: Int) -> IndirectGemm.RowPointers {
        let window = Conv2DKernel.window(g, input: input, depth: depth)
        let mr = GemmMicrokernel.mr
        return { first, count, pointers, scratch in
            withUnsafePointer(to: window) { w in
                UnsafeMutableRawPointer(pointers).withMemoryRebound(to: UnsafePointer<Float>?.self, capacity: mr) { p in
                    omk_f32_gather_rows(w, first, count, mr, scratch, p)
                }
            }
        }
    }

    /// Row pointers with one tap per filter row (`omk_f32_window_rows`): into the input where the row lies
    /// inside it, else at zeros or a padded copy in the per-thread scratch.
    static func windowRows(
        _ g: WindowGeometry, input: UnsafePointer<Float>, zero: UnsafePointer<Float>
    ) -> IndirectGemm.RowPointers {
        let window = Conv2DKernel.window(g, input: input, depth: g.inputChannels)
        let mr = GemmMicrokernel.mr, pointerCount = g.filterHeight * mr
        return { first, count, pointers, scratch in
            withUnsafePointer(to: window) { w in
                UnsafeMutableRawPointer(pointers).withMemoryRebound(to: UnsafePointer<Float>?.self, capacity: pointerCount) {
                    omk_f32_window_rows(w, first, count, mr, scratch, zero, $0)
                }
            }
        }
    }

    /// Row pointers of the indirect GEMM: for output pixel `p` and tap `(ky, kx)`, the input pixel the
    /// tap reads (offset to the group's first channel), or the zero row when it falls in the padding.
    static func imageRows(
        _ g: WindowGeometry, input: UnsafePointer<Float>, zero: UnsafePointer<Float>
    ) -> IndirectGemm.RowPointers {
        let mr = GemmMicrokernel.mr
        return { first, count, pointers, _ in
            for r in 0..<mr {
                g.forEachTapOffset(pixel: first + min(r, count - 1)) { t, offset in
                    pointers[t * mr + r] = offset.map { input + $0 } ?? zero
                }
            }
        }
    }
}

/// TRANSPOSE_CONV, and MediaPipe's custom Convolution2DTransposeBias, on float32 NHWC tensors.
///
/// TRANSPOSE_CONV inputs: output shape (int32 `[4]`), filter `[O, KH, KW, C]`, input `[N, H, W, C]`,
/// optional bias `[O]`; options (`TransposeConvOptions`): padding, strides, fused activation.
/// Convolution2DTransposeBias inputs: input, filter, bias; its custom options are not a FlexBuffer but
/// MediaPipe's raw C struct `TfLiteTransposeConvParams` `{int32 padding; int32 stride_width; int32
/// stride_height}` with TFLite's C padding enum (1 = SAME, 2 = VALID), and the output size is derived.
///
/// Fast path: a GEMM of the input pixels `[H*W, C]` by the filter viewed as `[C, KH*KW*O]` fills a
/// column buffer (every pixel's contribution to each tap), then each output pixel gathers the taps
/// that land on it; output rows are split across threads in the gather, so no two threads write the
/// same pixel. The order of every sum is LiteRT's (its optimized TRANSPOSE_CONV: one GEMM over the
/// whole image, col2im from zero in input-pixel order, the bias added last), so float results are
/// bit-identical: the GEMM therefore covers the whole image at once, as LiteRT's col2im buffer does.
final class TransposeConvKernel: OpKernel {
    /// Which operator this kernel implements; they differ only in operands and options.
    enum Variant {
        case builtin
        case mediaPipeBias
    }

    private let variant: Variant
    private let strideHeight: Int
    private let strideWidth: Int
    /// Builtin padding scheme; for MediaPipe, SAME or VALID mapped onto it.
    private let padding: PaddingScheme
    private let activation: FusedActivation
    private let inputIndex: Int
    private let biasIndex: Int

    private var geometry: TransposeConvGeometry?
    private let packed = PackedWeights()
    private var packedShape: [Int]?
    /// Input rows per band of the column buffer; 0 selects the reference loop (absurdly wide layers).
    private var bandRows = 0
    private var column: UnsafeMutablePointer<Float>
    private var columnCapacity = 1

    init(_ node: Node, variant: Variant) throws {
        self.variant = variant
        switch variant {
        case .builtin:
            try node.expect(inputs: 3, 4, outputs: 1)
            let parameters = try TransposeConvParameters(node)
            padding = parameters.padding
            strideWidth = parameters.strideWidth
            strideHeight = parameters.strideHeight
            activation = parameters.activation
            inputIndex = 2
            biasIndex = 3
        case .mediaPipeBias:
            try node.expect(inputs: 3, outputs: 1)
            let options = node.customOptions
            guard options.count >= 12 else {
                throw node.error("custom options hold \(options.count) bytes; expected 12 (padding, stride_w, stride_h)")
            }
            let code = Int32(littleEndian: options.loadUnaligned(fromByteOffset: 0, as: Int32.self))
            strideWidth = Int(Int32(littleEndian: options.loadUnaligned(fromByteOffset: 4, as: Int32.self)))
            strideHeight = Int(Int32(littleEndian: options.loadUnaligned(fromByteOffset: 8, as: Int32.self)))
            // TfLitePadding: 0 unknown (MediaPipe then pads nothing), 1 SAME, 2 VALID.
            switch code {
            case 1: padding = .same
            case 0, 2: padding = .valid
            default: throw node.error("unknown padding \(code) in custom options")
            }
            activation = .none
            inputIndex = 0
            biasIndex = 2
        }
        column = .allocate(capacity: 1)
    }

    deinit { column.deallocate() }

    func prepare(_ node: Node) throws {
        let input = try node.input(inputIndex), filter = try node.input(1)
        try node.expect(input, type: .float32, role: "input")
        try node.expect(filter, type: .float32, role: "filter")
        guard input.rank == 4 else { throw node.error("input must have rank 4 (NHWC), has shape \(input.shape)") }
        guard filter.rank == 4 else { throw node.error("filter must have rank 4, has shape \(filter.shape)") }
        try FloatOperand.checkExtent(input.shape, node: node, role: "input")
        try FloatOperand.checkExtent(filter.shape, node: node, role: "filter")
        guard input.dim(3) == filter.dim(3) else {
            throw node.error("input has \(input.dim(3)) channels, filter expects \(filter.dim(3))")
        }
        guard filter.dim(1) > 0, filter.dim(2) > 0 else { throw node.error("filter window \(filter.shape) is empty") }
        guard strideHeight > 0, strideWidth > 0 else {
            throw node.error("strides must be positive, are \(strideHeight)x\(strideWidth)")
        }
        let bias = node.optionalInput(biasIndex)
        if let bias {
            try node.expect(bias, type: .float32, role: "bias")
            guard bias.elementCount == filter.dim(0) else {
                throw node.error("bias has \(bias.elementCount) values for \(filter.dim(0)) output channels")
            }
        } else if variant == .mediaPipeBias {
            throw node.error("bias is missing")
        }
        let g: TransposeConvGeometry
        switch variant {
        case .mediaPipeBias:
            guard input.dim(1) > 0, input.dim(2) > 0 else { throw node.error("input \(input.shape) is empty") }
            g = .mediaPipe(
                input: input.shape, filter: filter.shape, strideHeight: strideHeight, strideWidth: strideWidth,
                same: padding == .same)
        case .builtin:
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
                throw node.error(
                    "output shape \(dims) does not fit input \(input.shape) and filter \(filter.shape)")
            }
            g = .builtin(
                input: input.shape, filter: filter.shape, outputHeight: dims[1], outputWidth: dims[2],
                strideHeight: strideHeight, strideWidth: strideWidth, padding: padding)
        }
        let outputShape = [g.batch, g.outputHeight, g.outputWidth, g.outputChannels]
        try FloatOperand.checkExtent(outputShape, node: node, role: "output")
        try node.setOutput(0, type: .float32, shape: outputShape)
        geometry = g
        try planColumnBuffer(g)
        if FloatOperand.isReadableConstant(filter) {
            if packedShape != filter.shape {
                try pack(filter, node: node)
                packedShape = filter.shape
            }
        } else {
            packedShape = nil
        }
    }

    /// Sizes the column buffer for the whole image (as LiteRT's col2im buffer); layers whose buffer
    /// would pass 256 MB take the reference loop instead.
    private func planColumnBuffer(_ g: TransposeConvGeometry) throws {
        let (perPixel, o1) = g.taps.multipliedReportingOverflow(by: g.outputChannels)
        let (perRow, o2) = perPixel.multipliedReportingOverflow(by: max(g.inputWidth, 1))
        let (perImage, o3) = perRow.multipliedReportingOverflow(by: max(g.inputHeight, 1))
        guard !o1, !o2, !o3, perImage <= 1 << 26, g.inputHeight > 0 else {
            bandRows = 0
            return
        }
        bandRows = g.inputHeight
        let needed = max(1, bandRows * perRow)
        if needed > columnCapacity {
            column.deallocate()
            column = .allocate(capacity: needed)
            columnCapacity = needed
        }
    }

    /// Packs the filter `[O, KH, KW, C]` as `B[c, tap * O + o]`, so one GEMM row holds a pixel's
    /// contribution to every tap, taps outermost.
    private func pack(_ filter: RuntimeTensor, node: Node) throws {
        let w = try FloatOperand.base(filter, node: node, role: "filter")
        let outputs = filter.dim(0), taps = filter.dim(1) * filter.dim(2), channels = filter.dim(3)
        if FloatOperand.isReadableConstant(filter) { packed.place(in: node.weightArena) }
        packed.pack(depth: channels, columns: taps * outputs, source: w, depthStride: 1) { n in
            ((n % outputs) * taps + n / outputs) * channels
        }
        packed.setBias(nil)
    }

    func eval(_ node: Node) throws {
        guard let g = geometry else { throw node.error("was not prepared") }
        let filter = try node.input(1)
        let x = UnsafePointer(try FloatOperand.base(try node.input(inputIndex), node: node, role: "input"))
        let w = UnsafePointer(try FloatOperand.base(filter, node: node, role: "filter"))
        let y = try FloatOperand.base(try node.output(0), node: node, role: "output")
        let bias = try node.optionalInput(biasIndex).map {
            UnsafePointer(try FloatOperand.base($0, node: node, role: "bias"))
        }
        guard bandRows > 0 else {
            ReferenceTransposeConvolution.transposeConv(
                geometry: g, input: x, filter: w, bias: bias, activation: activation, output: y)
            return
        }
        if packedShape == nil { try pack(filter, node: node) }
        let threads = node.threadCount
        let outputImage = g.outputHeight * g.outputWidth * g.outputChannels
        let inputImage = g.inputHeight * g.inputWidth * g.inputChannels
        for b in 0..<g.batch {
            let out = y + b * outputImage
            TransposeConvGather.fill(g, output: out, bias: nil, threads: threads)
            var r0 = 0
            while r0 < g.inputHeight {
                let r1 = min(g.inputHeight, r0 + bandRows)
                let gemm = IndirectGemm(
                    rows: (r1 - r0) * g.inputWidth, taps: 1, depth: g.inputChannels, weights: packed,
                    output: column, outputStride: g.taps * g.outputChannels)
                gemm.run(
                    threads: threads,
                    rowPointers: IndirectGemm.denseRows(
                        x + b * inputImage + r0 * g.inputWidth * g.inputChannels, stride: g.inputChannels))
                TransposeConvGather.accumulate(
                    g, band: r0..<r1, column: UnsafePointer(column), output: out, threads: threads)
                r0 = r1
            }
        }
        let (lower, upper) = activation.floatRange
        TransposeConvGather.finish(
            y, pixels: g.batch * g.outputHeight * g.outputWidth, channels: g.outputChannels, bias: bias,
            lower: lower, upper: upper, threads: threads)
    }
}

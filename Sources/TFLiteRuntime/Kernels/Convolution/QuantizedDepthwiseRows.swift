import CKernels

/// DEPTHWISE_CONV_2D on 8-bit activations with few channels or a depth multiplier above 1, one
/// whole output row at a time (`omk_q8_dwconv_small_row`: AVX-512, AVX2 or NEON), then the output
/// stage over the row.
///
/// The packed row kernels (`QuantizedDepthwise8`) work on blocks of 16 channels and take only depth
/// multiplier 1: a one-channel 3x3 layer left them 15/16 empty, and a layer that spreads one input
/// channel over 8 outputs (stop_sign_int8's first layers) ran the per-pixel Swift loop. Here an
/// output row is one flat vector of `width · C` accumulators whatever C is. The integers are the
/// general path's: wrapping int32 sums of `(x − zx)·(w − zw)` over the taps inside the image, then
/// each channel's bias, multiplier, shift and rounding (`RequantizationStage`, whose arrays repeat
/// the channels' parameters along the row).
final class QuantizedDepthwiseRows {
    private var params = omk_q8_dwconv_small_params()
    /// The filter tiled along the output row, `[KH][KW][OW][C]` (see `omk_q8_dwconv_small_tile_weights`).
    private let tiled = ScratchBuffer<Int16>(0)
    /// The output stage with each channel's parameters repeated for every pixel of a row.
    private let rowStage = RequantizationStage()
    private var rowLength = 0
    /// Output rows over the whole batch.
    private var rows = 0
    private var scratchLength = 0
    /// Whether `pack` ran for the current configuration.
    private(set) var isReady = false

    /// Rows longer than this many accumulators, or filters whose tiled copy would exceed
    /// `largestTiledFilter` elements, stay on the other paths (the row's buffers live on the stack).
    static let longestRow = 16_384
    static let largestTiledFilter = 1 << 20

    /// Takes the tiled filter from `arena` (see `ScratchBuffer.place(in:)`).
    func place(in arena: WeightArena) { tiled.place(in: arena) }

    /// Whether this path should run a depthwise layer with `channels` output channels and `multiplier`:
    /// a CPU with the row kernel, and a shape the packed kernels serve badly (fewer than 16 channels)
    /// or not at all (a depth multiplier above 1).
    static func suits(channels: Int, multiplier: Int) -> Bool {
        CPUFeatures.kernels.q8_dwconv_small_row != nil && (multiplier > 1 || channels < 16)
    }

    /// Takes the geometry; false when the rows or the tiled filter are too large for this path.
    func configure(geometry g: WindowGeometry, depthMultiplier m: Int, inputZeroPoint: Int32, signed: Bool) -> Bool {
        isReady = false
        let channels = g.inputChannels * m
        let row = g.outputWidth * channels
        guard m > 0, g.inputChannels > 0, row > 0, row <= Self.longestRow,
            g.filterHeight * g.filterWidth * row <= Self.largestTiledFilter
        else { return false }
        params = omk_q8_dwconv_small_params(
            input_height: g.inputHeight, input_width: g.inputWidth, input_channels: g.inputChannels,
            depth_multiplier: m, output_height: g.outputHeight, output_width: g.outputWidth,
            filter_height: g.filterHeight, filter_width: g.filterWidth, stride_height: g.strideHeight,
            stride_width: g.strideWidth, dilation_height: g.dilationHeight, dilation_width: g.dilationWidth,
            pad_top: g.padTop, pad_left: g.padLeft, input_zero_point: inputZeroPoint,
            activations_signed: signed ? 1 : 0, weights: nil)
        rowLength = row
        rows = g.batch * g.outputHeight
        scratchLength = withUnsafePointer(to: params) { omk_q8_dwconv_small_scratch($0) }
        return scratchLength <= 4 * Self.longestRow
    }

    /// Tiles the widened filter (`[KH][KW][C]`, zero point removed) along the row and repeats the
    /// per-channel output stage for every pixel of a row.
    func pack(
        weights: UnsafePointer<Int16>, biases: [Int64], multipliers: [FixedPoint.Multiplier],
        roundings: [FixedPoint.GemmRounding]
    ) {
        let width = params.output_width
        tiled.reserve(max(1, params.filter_height * params.filter_width * rowLength), filling: 0)
        withUnsafePointer(to: params) { omk_q8_dwconv_small_tile_weights($0, weights, tiled.pointer) }
        let channels = multipliers.count
        let bias = (0..<channels).map { $0 < biases.count ? biases[$0] : 0 }
        rowStage.set(
            biases: Array([[Int64]](repeating: bias, count: width).joined()),
            multipliers: Array([[FixedPoint.Multiplier]](repeating: multipliers, count: width).joined()),
            roundings: Array([[FixedPoint.GemmRounding]](repeating: roundings, count: width).joined()))
        isReady = channels * width == rowLength
    }

    /// Every output row of the convolution: `input` holds the whole NHWC input, `output` (an int8 or
    /// uint8 tensor) receives the rows.
    func run(
        input: UnsafePointer<UInt8>, output: UnsafeMutableRawPointer, type: TensorType, zeroPoint: Int32, lo: Int32,
        hi: Int32, threads: Int
    ) {
        guard isReady else { return }
        params.weights = UnsafePointer(tiled.pointer)
        let rows = self.rows, n = rowLength, scratchLength = max(1, self.scratchLength), stage = rowStage
        let work = max(1, n * params.filter_height * params.filter_width)
        withUnsafePointer(to: params) { p in
            parallelFor(rows, threads: threads, minimumPerThread: max(1, 65_536 / work)) { range in
                withUnsafeTemporaryAllocation(of: Int16.self, capacity: scratchLength) { scratch in
                    withUnsafeTemporaryAllocation(of: Int32.self, capacity: n) { accBuffer in
                        guard let s = scratch.baseAddress, let acc = accBuffer.baseAddress else { return }
                        for r in range {
                            omk_q8_dwconv_small_row(p, input, r, s, acc)
                            stage.store(acc, count: n, zeroPoint: zeroPoint, lo: lo, hi: hi, to: output, type: type, offset: r * n)
                        }
                    }
                }
            }
        }
    }
}

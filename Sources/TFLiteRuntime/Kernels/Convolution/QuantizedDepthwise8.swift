import CKernels

/// DEPTHWISE_CONV_2D with depth multiplier 1 on 8-bit activations, run by the C row kernels
/// (`omk_q8_dwconv_rows`: AVX-512 VNNI, or AVX2), output stage included.
///
/// The same integers as `QuantizedConvolutionKernel`'s portable loops and `RequantizationStage`:
/// wrapping int32 sums of `(x − zx)·(w − zw)` over the taps inside the image, then each channel's
/// bias, multiplier, shift and rounding. `configure` says whether a kernel takes the geometry, `pack`
/// whether it can reproduce the output stage exactly; otherwise the caller keeps its general path.
final class QuantizedDepthwise8 {
    private var shape = omk_q8_dwconv_shape()
    /// The C kernels that take the shape, in the order `pack` tries them: 3 (AVX-512 VNNI), 1 (AVX2).
    private var kernels: [Int32] = []
    private let packed = ScratchBuffer<UInt8>(0)
    /// Whether `pack` succeeded for the current configuration.
    private(set) var isReady = false

    /// Takes the packed filter and output stage from `arena` (see `ScratchBuffer.place(in:)`).
    func place(in arena: WeightArena) { packed.place(in: arena) }

    /// Takes the geometry and output range of an 8-bit depthwise convolution with depth multiplier 1;
    /// false when no fast kernel runs on this CPU or for this shape.
    func configure(
        geometry g: WindowGeometry, inputZeroPoint: Int32, outputZeroPoint: Int32, activationMin: Int32,
        activationMax: Int32, signed: Bool
    ) -> Bool {
        isReady = false
        shape = omk_q8_dwconv_shape(
            batch: g.batch, input_height: g.inputHeight, input_width: g.inputWidth, channels: g.inputChannels,
            output_height: g.outputHeight, output_width: g.outputWidth, filter_height: g.filterHeight,
            filter_width: g.filterWidth, stride_height: g.strideHeight, stride_width: g.strideWidth,
            dilation_height: g.dilationHeight, dilation_width: g.dilationWidth, pad_top: g.padTop, pad_left: g.padLeft,
            input_zero_point: inputZeroPoint, output_zero_point: outputZeroPoint, output_min: activationMin,
            output_max: activationMax, activations_signed: signed ? 1 : 0)
        // VNNI first; AVX2 takes the few output stages VNNI's single shift cannot (see the C file).
        let candidates = CPUFeatures.depthwise8Kernels
        kernels = candidates.filter { kernel in
            withUnsafePointer(to: shape) { omk_q8_dwconv_packed_size($0, kernel) } > 0
        }
        return !kernels.isEmpty
    }

    /// Packs the widened filter (`[KH][KW][C]`, zero point removed) and the per-channel output stage;
    /// returns whether the kernel will run.
    func pack(
        weights: UnsafePointer<Int16>, biases: [Int64], multipliers: [FixedPoint.Multiplier],
        roundings: [FixedPoint.GemmRounding]
    ) -> Bool {
        isReady = false
        let channels = shape.channels
        guard multipliers.count == channels, roundings.count == channels else { return false }
        let bias = (0..<channels).map { c in c < biases.count ? Int32(truncatingIfNeeded: biases[c]) : 0 }
        let multiplier = multipliers.map(\.multiplier)
        let shift = multipliers.map { Int32(clamping: $0.shift) }
        let gemm = roundings.map { $0 == .gemm ? UInt8(1) : 0 }
        for kernel in kernels {
            let size = withUnsafePointer(to: shape) { omk_q8_dwconv_packed_size($0, kernel) }
            guard size > 0 else { continue }
            packed.reserve(size, filling: 0)
            let ok = withUnsafePointer(to: shape) { s in
                omk_q8_dwconv_pack(s, kernel, weights, bias, multiplier, shift, gemm, packed.pointer)
            }
            if ok != 0 {
                isReady = true
                return true
            }
        }
        return false
    }

    /// Runs the packed convolution: `input` holds the whole NHWC input, `output` receives every row.
    func run(input: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>, threads: Int) {
        guard isReady else { return }
        let rows = shape.batch * shape.output_height
        let work = max(1, shape.output_width * shape.channels * shape.filter_height * shape.filter_width)
        let packed = UnsafeRawPointer(self.packed.pointer)
        withUnsafePointer(to: shape) { s in
            parallelFor(rows, threads: threads, minimumPerThread: max(1, 65_536 / work)) { range in
                omk_q8_dwconv_rows(s, packed, input, output, range.lowerBound, range.upperBound)
            }
        }
    }
}

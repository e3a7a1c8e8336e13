/// The geometry of a transposed convolution on NHWC tensors: each input pixel `(iy, ix)` spreads its
/// filter window over output pixels `(iy * strideHeight - padTop + ky, ix * strideWidth - padLeft + kx)`.
///
/// Unlike a convolution, the output size is given (TRANSPOSE_CONV's `output_shape` operand) or derived
/// by MediaPipe's formula (Convolution2DTransposeBias), and the padding is derived from it.
struct TransposeConvGeometry: Equatable {
    var batch: Int
    var inputHeight: Int
    var inputWidth: Int
    var inputChannels: Int
    var outputHeight: Int
    var outputWidth: Int
    var outputChannels: Int
    var filterHeight: Int
    var filterWidth: Int
    var strideHeight: Int
    var strideWidth: Int
    var padTop: Int
    var padLeft: Int

    var taps: Int { filterHeight * filterWidth }

    /// TRANSPOSE_CONV: the padding TFLite computes by treating the output as the input of the forward
    /// convolution (`ComputePaddingHeightWidth` with the output size, dilation 1).
    static func builtin(
        input: [Int], filter: [Int], outputHeight: Int, outputWidth: Int, strideHeight: Int, strideWidth: Int,
        padding: PaddingScheme
    ) -> TransposeConvGeometry {
        func pad(_ size: Int, _ filter: Int, _ stride: Int) -> Int {
            let convOutput = padding.outputSize(input: size, filter: filter, stride: stride, dilation: 1)
            return padding.paddingBefore(input: size, filter: filter, stride: stride, dilation: 1, output: convOutput)
        }
        return TransposeConvGeometry(
            batch: input[0], inputHeight: input[1], inputWidth: input[2], inputChannels: input[3],
            outputHeight: outputHeight, outputWidth: outputWidth, outputChannels: filter[0],
            filterHeight: filter[1], filterWidth: filter[2], strideHeight: strideHeight, strideWidth: strideWidth,
            padTop: pad(outputHeight, filter[1], strideHeight), padLeft: pad(outputWidth, filter[2], strideWidth))
    }

    /// Convolution2DTransposeBias: MediaPipe sizes the output as `stride * (in - 1) + filter - pad`,
    /// where SAME padding is `max(0, filter - (in - 1) % stride - 1)` in total, half of it before.
    static func mediaPipe(
        input: [Int], filter: [Int], strideHeight: Int, strideWidth: Int, same: Bool
    ) -> TransposeConvGeometry {
        func total(_ size: Int, _ filter: Int, _ stride: Int) -> Int {
            same ? max(0, filter - (size - 1) % stride - 1) : 0
        }
        let padH = total(input[1], filter[1], strideHeight), padW = total(input[2], filter[2], strideWidth)
        return TransposeConvGeometry(
            batch: input[0], inputHeight: input[1], inputWidth: input[2], inputChannels: input[3],
            outputHeight: strideHeight * (input[1] - 1) + filter[1] - padH,
            outputWidth: strideWidth * (input[2] - 1) + filter[2] - padW, outputChannels: filter[0],
            filterHeight: filter[1], filterWidth: filter[2], strideHeight: strideHeight, strideWidth: strideWidth,
            padTop: padH / 2, padLeft: padW / 2)
    }
}

/// The spatial geometry of a sliding-window operator (convolution, depthwise convolution, pooling)
/// on NHWC tensors: input and output sizes, filter window, strides, dilations and leading padding.
///
/// Built and validated once in `prepare`, so kernels and the reference versions can index without
/// further checks: every size is non-negative, strides, dilations and the window are positive.
struct WindowGeometry: Equatable {
    var batch: Int
    var inputHeight: Int
    var inputWidth: Int
    var inputChannels: Int
    var outputHeight: Int
    var outputWidth: Int
    var filterHeight: Int
    var filterWidth: Int
    var strideHeight: Int
    var strideWidth: Int
    var dilationHeight: Int
    var dilationWidth: Int
    /// Padding before the first row / column (TFLite pads the odd remainder after the last one).
    var padTop: Int
    var padLeft: Int

    /// Checks the window parameters of `node` against its NHWC `inputShape` and derives the output size
    /// the way TFLite's `ComputePaddingHeightWidth` does.
    init(
        node: Node, inputShape: [Int], filterHeight: Int, filterWidth: Int, strideHeight: Int, strideWidth: Int,
        dilationHeight: Int = 1, dilationWidth: Int = 1, padding: PaddingScheme
    ) throws {
        guard inputShape.count == 4 else {
            throw node.error("input must have rank 4 (NHWC), has shape \(inputShape)")
        }
        guard strideHeight > 0, strideWidth > 0 else {
            throw node.error("strides must be positive, are \(strideHeight)x\(strideWidth)")
        }
        guard dilationHeight > 0, dilationWidth > 0 else {
            throw node.error("dilations must be positive, are \(dilationHeight)x\(dilationWidth)")
        }
        guard filterHeight > 0, filterWidth > 0 else {
            throw node.error("filter window must be positive, is \(filterHeight)x\(filterWidth)")
        }
        // Model values are at most Int32, so these products cannot overflow a 64-bit Int.
        batch = inputShape[0]
        inputHeight = inputShape[1]
        inputWidth = inputShape[2]
        inputChannels = inputShape[3]
        self.filterHeight = filterHeight
        self.filterWidth = filterWidth
        self.strideHeight = strideHeight
        self.strideWidth = strideWidth
        self.dilationHeight = dilationHeight
        self.dilationWidth = dilationWidth
        outputHeight = max(
            0, padding.outputSize(input: inputHeight, filter: filterHeight, stride: strideHeight, dilation: dilationHeight))
        outputWidth = max(
            0, padding.outputSize(input: inputWidth, filter: filterWidth, stride: strideWidth, dilation: dilationWidth))
        padTop = padding.paddingBefore(
            input: inputHeight, filter: filterHeight, stride: strideHeight, dilation: dilationHeight, output: outputHeight)
        padLeft = padding.paddingBefore(
            input: inputWidth, filter: filterWidth, stride: strideWidth, dilation: dilationWidth, output: outputWidth)
    }

    /// Number of filter taps (window positions).
    var taps: Int { filterHeight * filterWidth }

    /// Output pixels over all batches.
    var outputPixels: Int { batch * outputHeight * outputWidth }

    /// The filter rows `ky` whose input row `oy * stride - pad + ky * dilation` is inside the image,
    /// as a half-open range (empty when none is).
    @inline(__always)
    func validFilterRows(outputRow oy: Int) -> Range<Int> {
        let origin = oy * strideHeight - padTop
        return WindowGeometry.validTaps(
            origin: origin, size: inputHeight, filter: filterHeight, dilation: dilationHeight)
    }

    /// The filter columns `kx` whose input column is inside the image, as a half-open range.
    @inline(__always)
    func validFilterColumns(outputColumn ox: Int) -> Range<Int> {
        let origin = ox * strideWidth - padLeft
        return WindowGeometry.validTaps(origin: origin, size: inputWidth, filter: filterWidth, dilation: dilationWidth)
    }

    /// The output columns whose every filter column lies inside the image (no padding on either
    /// side), as a half-open range: `validFilterColumns` is the whole filter for these and only these.
    var interiorOutputColumns: Range<Int> {
        guard strideWidth > 0, outputWidth > 0 else { return 0..<0 }
        // origin = ox * stride - padLeft must be >= 0 and origin + (filterWidth - 1) * dilation < inputWidth.
        let lo = min(outputWidth, padLeft <= 0 ? 0 : (padLeft + strideWidth - 1) / strideWidth)
        let limit = inputWidth - 1 - (filterWidth - 1) * dilationWidth + padLeft
        guard limit >= 0 else { return lo..<lo }
        let hi = min(outputWidth, limit / strideWidth + 1)
        return lo..<max(lo, hi)
    }

    /// Taps `k` in `0..<filter` with `0 <= origin + k * dilation < size`.
    @inline(__always)
    static func validTaps(origin: Int, size: Int, filter: Int, dilation: Int) -> Range<Int> {
        if dilation == 1 {
            // The same bounds without the divisions (this runs once per output pixel in many loops).
            let lo = min(max(0, -origin), filter)
            return lo..<max(lo, min(filter, size - origin))
        }
        // First k with origin + k*d >= 0, i.e. ceil(-origin / d) when origin is negative.
        let first = origin >= 0 ? 0 : (-origin + dilation - 1) / dilation
        // Last k with origin + k*d <= size - 1.
        let limit = size - 1 - origin
        let last = limit < 0 ? -1 : limit / dilation
        let lo = min(first, filter)
        let hi = max(lo, min(filter, last + 1))
        return lo..<hi
    }

    /// Where output pixel `p` (batch-major) reads: its batch, the filter rows and columns inside the
    /// image, and the input row and column of filter tap (0, 0) (negative in the padding).
    @inline(__always)
    func window(ofPixel p: Int) -> (batch: Int, rows: Range<Int>, columns: Range<Int>, row0: Int, column0: Int) {
        let pixelsPerImage = outputHeight * outputWidth
        let rest = p % pixelsPerImage
        let oy = rest / outputWidth, ox = rest % outputWidth
        return (
            p / pixelsPerImage, validFilterRows(outputRow: oy), validFilterColumns(outputColumn: ox),
            oy * strideHeight - padTop, ox * strideWidth - padLeft
        )
    }

    /// For output pixel `p` (batch-major), calls `body(tap, offset)` for every filter tap in
    /// row-major order with the element offset of the input pixel the tap reads (from the start of
    /// the input), or nil when the tap falls in the padding: the rows of an indirect convolution.
    @inline(__always)
    func forEachTapOffset(pixel p: Int, _ body: (_ tap: Int, _ offset: Int?) -> Void) {
        let (b, _, _, iy0, ix0) = window(ofPixel: p)
        let imageOffset = b * inputHeight * inputWidth * inputChannels
        var t = 0
        for ky in 0..<filterHeight {
            let iy = iy0 + ky * dilationHeight
            let rowInside = iy >= 0 && iy < inputHeight
            for kx in 0..<filterWidth {
                let ix = ix0 + kx * dilationWidth
                body(t, rowInside && ix >= 0 && ix < inputWidth ? imageOffset + (iy * inputWidth + ix) * inputChannels : nil)
                t += 1
            }
        }
    }
}

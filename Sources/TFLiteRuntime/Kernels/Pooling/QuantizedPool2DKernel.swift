import CKernels

/// MAX_POOL_2D and AVERAGE_POOL_2D on uint8, int8 and int16 NHWC tensors, bit-exact with LiteRT.
///
/// LiteRT requires the output's scale and zero point to equal the input's, so pooling works on the
/// stored integers directly. MAX takes the largest value inside the image and clamps it to the
/// fused activation's range. AVERAGE sums the window positions inside the image in int32 and
/// divides with LiteRT's rounding `(sum ± count/2) / count` (C truncation, so halves round away
/// from zero), then clamps; the optimized 8-bit kernels and the reference kernels agree on this.
final class QuantizedPool2DKernel: OpKernel {
    private let kind: Pool2DKernel.Kind
    private let options: PoolOptions
    private var activation: FusedActivation { options.activation }
    private var geometry: WindowGeometry?
    private var activationMin: Int32 = 0
    private var activationMax: Int32 = 0
    /// 8-bit MAX_POOL_2D on the C row kernel (`omk_q8_maxpool_rows`), when this CPU has one.
    private var maxRows: omk_q8_maxpool_params?

    init(_ node: Node, kind: Pool2DKernel.Kind) throws {
        try node.expect(inputs: 1, outputs: 1)
        self.kind = kind
        options = try PoolOptions(node: node)
    }

    func prepare(_ node: Node) throws {
        let input = try node.input(0), output = try node.output(0)
        try node.expect(input, type: .uint8, .int8, .int16, role: "input")
        try FloatOperand.checkExtent(input.shape, node: node, role: "input")
        let g = try options.geometry(node: node, inputShape: input.shape)
        try node.setOutput(0, type: input.type, shape: [g.batch, g.outputHeight, g.outputWidth, g.inputChannels])
        geometry = g
        guard let range = input.type.quantizedRange else { throw node.error("unsupported type") }
        // The activation range is computed with the output's quantization, as in LiteRT.
        let quantized = output.quantization == nil ? input : output
        let scale = try QuantizedOperand.scales(quantized, node: node, role: "output")[0]
        let act = FixedPoint.activationRange(
            activation, scale: scale, zeroPoint: quantized.zeroPoint, qmin: range.min, qmax: range.max)
        activationMin = act.min
        activationMax = act.max
        maxRows = nil
        if kind == .max, input.type == .int8 || input.type == .uint8, CPUFeatures.kernels.q8_maxpool_rows != nil,
            g.dilationHeight == 1, g.dilationWidth == 1, g.outputWidth > 0
        {
            maxRows = omk_q8_maxpool_params(
                input_height: g.inputHeight, input_width: g.inputWidth, channels: g.inputChannels,
                output_height: g.outputHeight, output_width: g.outputWidth, filter_height: g.filterHeight,
                filter_width: g.filterWidth, stride_height: g.strideHeight, stride_width: g.strideWidth,
                pad_top: g.padTop, pad_left: g.padLeft, lo: activationMin, hi: activationMax,
                is_signed: input.type == .int8 ? 1 : 0)
        }
    }

    func eval(_ node: Node) throws {
        guard let g = geometry else { throw node.error("was not prepared") }
        let input = try node.input(0), output = try node.output(0)
        try QuantizedOperand.checkBytes(input, node: node, role: "input")
        try QuantizedOperand.checkBytes(output, node: node, role: "output")
        guard output.elementCount > 0, let y = output.data, let x = input.data else { return }
        if let params = maxRows {
            runMaxRows(params, g, x.assumingMemoryBound(to: UInt8.self), y.assumingMemoryBound(to: UInt8.self),
                       threads: node.threadCount)
            return
        }
        switch input.type {
        case .uint8: run(UInt8.self, g, UnsafeRawPointer(x), y, threads: node.threadCount)
        case .int8: run(Int8.self, g, UnsafeRawPointer(x), y, threads: node.threadCount)
        case .int16: run(Int16.self, g, UnsafeRawPointer(x), y, threads: node.threadCount)
        default: throw node.error("unsupported type \(input.type.name)")
        }
    }

    /// 8-bit MAX_POOL_2D by whole output rows in C (the same bytes as `run`'s loop).
    private func runMaxRows(
        _ params: omk_q8_maxpool_params, _ g: WindowGeometry, _ x: UnsafePointer<UInt8>, _ y: UnsafeMutablePointer<UInt8>,
        threads: Int
    ) {
        let rows = g.batch * g.outputHeight
        let work = max(1, g.outputWidth * g.inputChannels * g.taps)
        withUnsafePointer(to: params) { p in
            let scratchBytes = max(1, omk_q8_maxpool_padded_width(p) * g.inputChannels)
            parallelFor(rows, threads: threads, minimumPerThread: max(1, 65_536 / work)) { range in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scratchBytes) { scratch in
                    guard let s = scratch.baseAddress else { return }
                    omk_q8_maxpool_rows(p, x, y, range.lowerBound, range.upperBound, s)
                }
            }
        }
    }

    private func run<T: FixedWidthInteger>(
        _: T.Type, _ g: WindowGeometry, _ xRaw: UnsafeRawPointer, _ yRaw: UnsafeMutableRawPointer, threads: Int
    ) {
        let x = xRaw.assumingMemoryBound(to: T.self), y = yRaw.assumingMemoryBound(to: T.self)
        let depth = g.inputChannels, lo = activationMin, hi = activationMax
        let isMax = kind == .max
        let pixels = g.outputPixels
        parallelFor(pixels, threads: threads, minimumPerThread: max(1, 65_536 / max(1, depth * g.taps))) { range in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(1, depth)) { accBuffer in
                guard let acc = accBuffer.baseAddress else { return }
                for p in range {
                    let (b, ys, xs, iy0, ix0) = g.window(ofPixel: p)
                    let image = x + b * g.inputHeight * g.inputWidth * depth
                    acc.update(repeating: isMax ? Int32.min : 0, count: depth)
                    for ky in ys {
                        let line = image + (iy0 + ky) * g.inputWidth * depth
                        for kx in xs {
                            let px = line + (ix0 + kx) * depth
                            if isMax {
                                for c in 0..<depth { acc[c] = max(acc[c], Int32(px[c])) }
                            } else {
                                for c in 0..<depth { acc[c] &+= Int32(px[c]) }
                            }
                        }
                    }
                    let out = y + p * depth
                    if isMax {
                        for c in 0..<depth { out[c] = T(truncatingIfNeeded: min(max(acc[c], lo), hi)) }
                    } else {
                        let count = Int32(ys.count * xs.count)
                        for c in 0..<depth {
                            out[c] = T(truncatingIfNeeded: min(max(FixedPoint.roundingAverage(acc[c], count: count), lo), hi))
                        }
                    }
                }
            }
        }
    }
}

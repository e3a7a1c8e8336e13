/// The checks shared by the two resize kernels: a 4-D NHWC input and a two-value size operand.
enum ResizeSupport {
    /// The output `(height, width)` from input 1, or nil while its values are unknown.
    static func size(_ node: Node, input x: RuntimeTensor) throws -> (Int, Int)? {
        let size = try node.input(1)
        guard x.rank == 4 else { throw node.error("input must be 4-D (NHWC), has shape \(x.shape)") }
        guard size.rank == 1, size.elementCount == 2 else {
            throw node.error("size must hold two values, has shape \(size.shape)")
        }
        guard node.knowsValues(of: size) else { return nil }
        let values = try MoveSupport.integers(size, node, role: "size")
        return (values[0], values[1])
    }

    /// Throws when a non-empty output would have to read from an empty input.
    static func checkReadable(_ x: RuntimeTensor, outputCount: Int, _ node: Node) throws {
        if outputCount > 0 && (x.shape[1] == 0 || x.shape[2] == 0) {
            throw node.error("cannot resize an input of shape \(x.shape) to a non-empty output")
        }
    }
}

/// RESIZE_BILINEAR for float32 (`ResizeBilinearOptions` align_corners field 2, half_pixel_centers
/// field 3), computed in the order of LiteRT's optimized kernel (including its exact 2x upsampler),
/// so results match it to the last bit or nearly.
final class ResizeBilinearKernel: OpKernel {
    let alignCorners: Bool
    let halfPixelCenters: Bool
    private let folded = FoldedOutputs()

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        let parameters = try ResizeParameters(node, bilinear: true)
        alignCorners = parameters.alignCorners
        halfPixelCenters = parameters.halfPixelCenters
        guard !(alignCorners && halfPixelCenters) else {
            throw node.error("align_corners and half_pixel_centers cannot both be set")
        }
    }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let x = try node.input(0)
        try node.expect(x, type: .float32, .uint8, .int8, .int16, role: "input")
        guard let (height, width) = try ResizeSupport.size(node, input: x) else {
            node.markOutputsDynamic()
            return
        }
        guard height > 0, width > 0 else { throw node.error("size \(height)x\(width) must be positive") }
        if x.type != .float32 {
            // Quantized: computed on the raw integers, so the output keeps the input's quantization.
            try QuantizedResizeBilinear.check(
                node, type: x.type, inputShape: x.shape, height: height, width: width, alignCorners: alignCorners,
                halfPixel: halfPixelCenters)
        }
        try node.setOutput(0, type: x.type, shape: [x.shape[0], height, width, x.shape[3]])
        try ResizeSupport.checkReadable(x, outputCount: try node.output(0).elementCount, node)
        if MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        guard y.elementCount > 0 else { return }
        if x.type != .float32 {
            let src = try MoveSupport.source(x, node, role: "input")
            let dst = try MoveSupport.destination(y, node, role: "output")
            let (h, w, a, hp) = (y.shape[1], y.shape[2], alignCorners, halfPixelCenters)
            switch x.type {
            case .uint8:
                QuantizedResizeBilinear.resizeUInt8(
                    src.assumingMemoryBound(to: UInt8.self), inputShape: x.shape, dst.assumingMemoryBound(to: UInt8.self),
                    height: h, width: w, alignCorners: a, halfPixel: hp, threads: node.threadCount)
            case .int8:
                QuantizedResizeBilinear.resizeInteger(
                    src.assumingMemoryBound(to: Int8.self), inputShape: x.shape, dst.assumingMemoryBound(to: Int8.self),
                    height: h, width: w, alignCorners: a, halfPixel: hp)
            default:
                QuantizedResizeBilinear.resizeInteger(
                    src.assumingMemoryBound(to: Int16.self), inputShape: x.shape, dst.assumingMemoryBound(to: Int16.self),
                    height: h, width: w, alignCorners: a, halfPixel: hp)
            }
            return
        }
        let input = try MoveSupport.source(x, node, role: "input").assumingMemoryBound(to: Float.self)
        let output = try MoveSupport.destination(y, node, role: "output").assumingMemoryBound(to: Float.self)
        resize(input, inputShape: x.shape, output, height: y.shape[1], width: y.shape[2], threads: node.threadCount)
    }

    /// Resizes an NHWC float image (also called by tests, against the reference).
    func resize(
        _ input: UnsafePointer<Float>, inputShape: [Int], _ output: UnsafeMutablePointer<Float>, height: Int, width: Int,
        threads: Int
    ) {
        let (batches, inH, inW, depth) = (inputShape[0], inputShape[1], inputShape[2], inputShape[3])
        if !alignCorners && !halfPixelCenters && height == 2 * inH && width == 2 * inW {
            upsample2x(input, batches: batches, inH: inH, inW: inW, depth: depth, output)
            return
        }
        let hScale = ResizeBilinearKernel.scale(inH, height, alignCorners)
        let wScale = ResizeBilinearKernel.scale(inW, width, alignCorners)
        let columns = (0..<width).map { ResizeBilinearKernel.sample($0, wScale, halfPixelCenters, inW) }
        let rowElements = width * depth
        columns.withUnsafeBufferPointer { cols in
            parallelFor(batches * height, threads: threads, minimumPerThread: max(1, 4096 / max(rowElements, 1))) { range in
                for row in range {
                    let b = row / height, oy = row % height
                    let (y0, y1, fy) = ResizeBilinearKernel.sample(oy, hScale, halfPixelCenters, inH)
                    let top = input + (b * inH + y0) * inW * depth
                    let bottom = input + (b * inH + y1) * inW * depth
                    var out = output + row * rowElements
                    for (x0, x1, fx) in cols {
                        // LiteRT's kernel: four weights, then a running sum starting from zero.
                        let w00 = (1 - fy) * (1 - fx), w01 = (1 - fy) * fx
                        let w10 = fy * (1 - fx), w11 = fy * fx
                        let a = top + x0 * depth, b = top + x1 * depth
                        let c = bottom + x0 * depth, d = bottom + x1 * depth
                        for ch in 0..<depth {
                            var acc: Float = 0
                            acc += a[ch] * w00
                            acc += b[ch] * w01
                            acc += c[ch] * w10
                            acc += d[ch] * w11
                            out[ch] = acc
                        }
                        out += depth
                    }
                }
            }
        }
    }

    /// LiteRT's exact 2x upsampling path: copies, midpoints and the mean of two midpoints.
    private func upsample2x(
        _ input: UnsafePointer<Float>, batches: Int, inH: Int, inW: Int, depth: Int, _ output: UnsafeMutablePointer<Float>
    ) {
        let outW = 2 * inW
        for b in 0..<batches {
            for y0 in 0..<inH {
                let y1 = min(y0 + 1, inH - 1)
                for x0 in 0..<inW {
                    let x1 = min(x0 + 1, inW - 1)
                    let p00 = input + ((b * inH + y0) * inW + x0) * depth
                    let p10 = input + ((b * inH + y0) * inW + x1) * depth
                    let p01 = input + ((b * inH + y1) * inW + x0) * depth
                    let p11 = input + ((b * inH + y1) * inW + x1) * depth
                    let o = output + ((b * 2 * inH + 2 * y0) * outW + 2 * x0) * depth
                    let below = o + outW * depth
                    // Four channels at a time: the same operations per lane, so results are unchanged.
                    var c = 0
                    while c + 4 <= depth {
                        func load(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
                            UnsafeRawPointer(p + c).loadUnaligned(as: SIMD4<Float>.self)
                        }
                        func store(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
                            UnsafeMutableRawPointer(p + c).storeBytes(of: v, as: SIMD4<Float>.self)
                        }
                        let v00 = load(p00), v10 = load(p10), v01 = load(p01), v11 = load(p11)
                        let left = (v00 + v01) / 2
                        store(v00, o)
                        store((v00 + v10) / 2, o + depth)
                        store(left, below)
                        store((left + (v10 + v11) / 2) / 2, below + depth)
                        c += 4
                    }
                    for c in c..<depth {
                        o[c] = p00[c]
                        o[depth + c] = (p00[c] + p10[c]) / 2
                        let left = (p00[c] + p01[c]) / 2
                        below[c] = left
                        below[depth + c] = (left + (p10[c] + p11[c]) / 2) / 2
                    }
                }
            }
        }
    }

    /// The input-per-output step along one axis (LiteRT's `height_scale` / `width_scale`).
    static func scale(_ inSize: Int, _ outSize: Int, _ alignCorners: Bool) -> Float {
        alignCorners && outSize > 1 ? Float(inSize - 1) / Float(outSize - 1) : Float(inSize) / Float(outSize)
    }

    /// The two input indices around output index `o` and the weight of the second (LiteRT's
    /// `ComputeInterpolationValues`), with the lower index also kept inside the input.
    static func sample(_ o: Int, _ scale: Float, _ halfPixel: Bool, _ inSize: Int) -> (Int, Int, Float) {
        let position = halfPixel ? (Float(o) + 0.5) * scale - 0.5 : Float(o) * scale
        let lower = min(max(Int(position.rounded(.down)), 0), inSize - 1)
        let upper = max(min(Int(position.rounded(.up)), inSize - 1), 0)
        return (lower, upper, position - Float(lower))
    }
}

/// RESIZE_NEAREST_NEIGHBOR (`align_corners` field 0, `half_pixel_centers` field 1) for any
/// fixed-size type, with LiteRT's index rules: its 8-bit kernel uses 16.16 fixed point when neither
/// option is set, every other case the float formula.
final class ResizeNearestNeighborKernel: OpKernel {
    let alignCorners: Bool
    let halfPixelCenters: Bool
    private let folded = FoldedOutputs()

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        let parameters = try ResizeParameters(node, bilinear: false)
        alignCorners = parameters.alignCorners
        halfPixelCenters = parameters.halfPixelCenters
    }

    func prepare(_ node: Node) throws {
        try folded.reset(node)
        let x = try node.input(0)
        try MoveSupport.expectMovable(x, node, role: "input")
        guard let (height, width) = try ResizeSupport.size(node, input: x) else {
            node.markOutputsDynamic()
            return
        }
        try node.setOutput(0, type: x.type, shape: [x.shape[0], height, width, x.shape[3]])
        try ResizeSupport.checkReadable(x, outputCount: try node.output(0).elementCount, node)
        if MoveSupport.allInputsConstant(node) { try folded.fold(node) { try run(node) } }
    }

    func eval(_ node: Node) throws {
        if folded.isActive { return }
        try run(node)
    }

    private func run(_ node: Node) throws {
        let x = try node.input(0), y = try node.output(0)
        guard y.elementCount > 0 else { return }
        let es = x.type.byteSize
        let (batches, inH, inW, depth) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (outH, outW) = (y.shape[1], y.shape[2])
        let rows = (0..<outH).map { sourceIndex($0, inH, outH, elementSize: es) }
        let cols = (0..<outW).map { sourceIndex($0, inW, outW, elementSize: es) }
        let pixel = depth * es
        let input = try MoveSupport.source(x, node, role: "input")
        let output = try MoveSupport.destination(y, node, role: "output")
        parallelFor(batches * outH, threads: node.threadCount, minimumPerThread: max(1, (1 << 15) / max(outW * pixel, 1))) { range in
            for row in range {
                let b = row / outH
                let from = input + (b * inH + rows[row % outH]) * inW * pixel
                var to = output + row * outW * pixel
                for ix in cols {
                    to.copyMemory(from: from + ix * pixel, byteCount: pixel)
                    to += pixel
                }
            }
        }
    }

    /// The input index output index `o` copies along an axis of `inSize` resized to `outSize`.
    func sourceIndex(_ o: Int, _ inSize: Int, _ outSize: Int, elementSize: Int) -> Int {
        if elementSize == 1 && !alignCorners && !halfPixelCenters {
            let scale = (Int64(inSize) << 16) / Int64(outSize) + 1
            return min(Int((Int64(o) * scale) >> 16), inSize - 1)
        }
        let scale = alignCorners && outSize > 1
            ? Float(inSize - 1) / Float(outSize - 1) : Float(inSize) / Float(outSize)
        let position = (Float(o) + (halfPixelCenters ? 0.5 : 0)) * scale
        let rounded = alignCorners ? position.rounded(.toNearestOrAwayFromZero) : position.rounded(.down)
        return min(max(Int(rounded), 0), inSize - 1)
    }
}

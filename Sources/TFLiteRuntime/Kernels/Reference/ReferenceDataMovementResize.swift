import Foundation

/// Element-at-a-time versions of the resize and space/depth/batch kernels (the test oracle).
extension ReferenceDataMovement {
    /// LiteRT's reference bilinear resize (`reference_ops::ResizeBilinear`) of an NHWC float image.
    static func resizeBilinear(
        _ input: [Float], shape: [Int], height: Int, width: Int, alignCorners: Bool, halfPixelCenters: Bool
    ) -> [Float] {
        let (batches, inH, inW, depth) = (shape[0], shape[1], shape[2], shape[3])
        var hScale = Float(inH) / Float(height), wScale = Float(inW) / Float(width)
        if alignCorners && height > 1 { hScale = Float(inH - 1) / Float(height - 1) }
        if alignCorners && width > 1 { wScale = Float(inW - 1) / Float(width - 1) }
        func interpolation(_ v: Int, _ scale: Float, _ size: Int) -> (Float, Int, Int) {
            let scaled = halfPixelCenters ? (Float(v) + 0.5) * scale - 0.5 : Float(v) * scale
            return (scaled, max(Int(floor(scaled)), 0), min(Int(ceil(scaled)), size - 1))
        }
        func at(_ b: Int, _ y: Int, _ x: Int, _ c: Int) -> Float { input[((b * inH + y) * inW + x) * depth + c] }
        var output = [Float](repeating: 0, count: batches * height * width * depth)
        for b in 0..<batches {
            for y in 0..<height {
                let (iy, y0, y1) = interpolation(y, hScale, inH)
                for x in 0..<width {
                    let (ix, x0, x1) = interpolation(x, wScale, inW)
                    for c in 0..<depth {
                        let dy = iy - Float(y0), dx = ix - Float(x0)
                        let v = at(b, y0, x0, c) * (1 - dy) * (1 - dx) + at(b, y1, x0, c) * dy * (1 - dx)
                            + at(b, y0, x1, c) * (1 - dy) * dx + at(b, y1, x1, c) * dy * dx
                        output[((b * height + y) * width + x) * depth + c] = v
                    }
                }
            }
        }
        return output
    }

    /// LiteRT's nearest-neighbour index rule, including its 8-bit fixed-point variant.
    static func nearestIndex(_ o: Int, inSize: Int, outSize: Int, alignCorners: Bool, halfPixelCenters: Bool, elementSize: Int) -> Int {
        if elementSize == 1 && !alignCorners && !halfPixelCenters {
            let scale = (Int64(inSize) << 16) / Int64(outSize) + 1
            return min(Int((Int64(o) * scale) >> 16), inSize - 1)
        }
        let scale = alignCorners && outSize > 1 ? Float(inSize - 1) / Float(outSize - 1) : Float(inSize) / Float(outSize)
        let offset: Float = halfPixelCenters ? 0.5 : 0
        let v = (Float(o) + offset) * scale
        var index = min(alignCorners ? Int(v.rounded(.toNearestOrAwayFromZero)) : Int(floor(v)), inSize - 1)
        if halfPixelCenters { index = max(0, index) }
        return index
    }

    static func resizeNearestNeighbor(
        _ input: [UInt8], shape: [Int], height: Int, width: Int, alignCorners: Bool, halfPixelCenters: Bool,
        elementSize es: Int
    ) -> [UInt8] {
        let outShape = [shape[0], height, width, shape[3]]
        var output = [UInt8](repeating: 0, count: count(outShape) * es)
        for o in 0..<count(outShape) {
            let c = coordinates(o, outShape)
            let y = nearestIndex(c[1], inSize: shape[1], outSize: height, alignCorners: alignCorners, halfPixelCenters: halfPixelCenters, elementSize: es)
            let x = nearestIndex(c[2], inSize: shape[2], outSize: width, alignCorners: alignCorners, halfPixelCenters: halfPixelCenters, elementSize: es)
            move(input, flat([c[0], y, x, c[3]], shape), &output, o, es)
        }
        return output
    }

    static func spaceToDepth(_ input: [UInt8], shape: [Int], block: Int, elementSize es: Int) -> [UInt8] {
        let outShape = [shape[0], shape[1] / block, shape[2] / block, shape[3] * block * block]
        var output = [UInt8](repeating: 0, count: count(outShape) * es)
        for i in 0..<count(shape) {
            let c = coordinates(i, shape)
            let d = c[3] + ((c[1] % block) * block + c[2] % block) * shape[3]
            move(input, i, &output, flat([c[0], c[1] / block, c[2] / block, d], outShape), es)
        }
        return output
    }

    static func depthToSpace(_ input: [UInt8], shape: [Int], block: Int, elementSize es: Int) -> [UInt8] {
        let outShape = [shape[0], shape[1] * block, shape[2] * block, shape[3] / (block * block)]
        var output = [UInt8](repeating: 0, count: count(outShape) * es)
        for o in 0..<count(outShape) {
            let c = coordinates(o, outShape)
            let d = c[3] + ((c[1] % block) * block + c[2] % block) * outShape[3]
            move(input, flat([c[0], c[1] / block, c[2] / block, d], shape), &output, o, es)
        }
        return output
    }

    /// SPACE_TO_BATCH_ND over all dimensions between the first and the last.
    static func spaceToBatch(
        _ input: [UInt8], shape: [Int], block: [Int], before: [Int], after: [Int], value: [UInt8], elementSize es: Int
    ) -> [UInt8] {
        let m = block.count
        var outShape = shape
        outShape[0] = shape[0] * block.reduce(1, *)
        for i in 0..<m { outShape[i + 1] = (shape[i + 1] + before[i] + after[i]) / block[i] }
        var output = [UInt8](repeating: 0, count: count(outShape) * es)
        for o in 0..<count(outShape) {
            let c = coordinates(o, outShape)
            let shift = coordinates(c[0] / shape[0], block)
            var inC = c
            inC[0] = c[0] % shape[0]
            var inside = true
            for i in 0..<m {
                inC[i + 1] = c[i + 1] * block[i] + shift[i] - before[i]
                if inC[i + 1] < 0 || inC[i + 1] >= shape[i + 1] { inside = false }
            }
            if inside {
                move(input, flat(inC, shape), &output, o, es)
            } else {
                for b in 0..<es { output[o * es + b] = value[b] }
            }
        }
        return output
    }

    /// BATCH_TO_SPACE_ND over all dimensions between the first and the last.
    static func batchToSpace(
        _ input: [UInt8], shape: [Int], block: [Int], cropBefore: [Int], cropAfter: [Int], elementSize es: Int
    ) -> [UInt8] {
        let m = block.count
        var outShape = shape
        outShape[0] = shape[0] / block.reduce(1, *)
        for i in 0..<m { outShape[i + 1] = shape[i + 1] * block[i] - cropBefore[i] - cropAfter[i] }
        var output = [UInt8](repeating: 0, count: count(outShape) * es)
        for o in 0..<count(outShape) {
            let c = coordinates(o, outShape)
            var inC = c
            var shift = [Int](repeating: 0, count: m)
            for i in 0..<m {
                let padded = c[i + 1] + cropBefore[i]
                inC[i + 1] = padded / block[i]
                shift[i] = padded % block[i]
            }
            inC[0] = flat(shift, block) * outShape[0] + c[0]
            move(input, flat(inC, shape), &output, o, es)
        }
        return output
    }
}

import Foundation

/// MediaPipe's Landmarks2TransformMatrix: float32 landmarks (x, y, z triples) → float32 `[1, 4, 4]`
/// affine matrix mapping a crop around chosen landmarks back to the input image.
///
/// v1 (face mesh): landmarks `[1, 1, 1, 3N]`; options `LandmarksToMatrixV1Options` (input_hw,
/// output_hw, landmarks_range, bbox_size_multiplier, rotation landmarks, subset). v2 (pose, hands):
/// landmarks `[1, N, 3]`; options `LandmarksToMatrixV2Options` (subset_idxs, rotation landmarks,
/// target_rotation_radians, output size, scale_x, scale_y). Arithmetic is float like MediaPipe's
/// kernel, with its 3×3 / 4×4 products summed left to right; landmark indices beyond the input throw.
final class LandmarksToTransformMatrixKernel: OpKernel {
    private enum Variant {
        case v1(LandmarksToMatrixV1Options)
        case v2(LandmarksToMatrixV2Options)
    }

    private let variant: Variant

    init(_ node: Node) throws {
        try node.expect(inputs: 1, outputs: 1)
        switch node.code.version {
        case 1: variant = .v1(try LandmarksToMatrixV1Options(node))
        case 2: variant = .v2(try LandmarksToMatrixV2Options(node))
        default: throw node.error("version \(node.code.version) is not 1 or 2")
        }
    }

    func prepare(_ node: Node) throws {
        let input = try node.input(0)
        try node.expect(input, type: .float32, role: "landmarks")
        let maxIndex: Int
        switch variant {
        case .v1(let o):
            guard input.rank == 4, input.dim(0) == 1, input.dim(1) == 1, input.dim(2) == 1 else {
                throw node.error("landmarks must have shape [1, 1, 1, 3N], have \(input.shape)")
            }
            maxIndex = o.maxIndex
        case .v2(let o):
            guard input.rank == 3 else { throw node.error("landmarks must have rank 3, have shape \(input.shape)") }
            maxIndex = o.maxIndex
        }
        guard maxIndex < input.elementCount / 3 else {
            throw node.error("landmark index \(maxIndex) is beyond the \(input.elementCount / 3) landmarks")
        }
        try node.setOutput(0, type: .float32, shape: [1, 4, 4])
    }

    func eval(_ node: Node) throws {
        let lm = try node.elementwiseBuffer(try node.input(0), Float.self, role: "landmarks")
        let out = try node.elementwiseBuffer(try node.output(0), Float.self, role: "output")
        let result: [Float]
        switch variant {
        case .v1(let o): result = Self.matrixV1(o, lm)
        case .v2(let o): result = Self.matrixV2(o, lm)
        }
        for i in 0..<16 { out[i] = result[i] }
    }

    /// Row-major square matrix product in float, each entry summed from zero over k in order.
    private static func multiply(_ a: [Float], _ b: [Float], _ n: Int) -> [Float] {
        var r = [Float](repeating: 0, count: n * n)
        for i in 0..<n {
            for j in 0..<n {
                var s: Float = 0
                for k in 0..<n { s += a[i * n + k] * b[k * n + j] }
                r[i * n + j] = s
            }
        }
        return r
    }

    private static func matrixV1(_ o: LandmarksToMatrixV1Options, _ lm: UnsafeMutableBufferPointer<Float>) -> [Float] {
        func xy(_ i: Int) -> (Float, Float) { (lm[i * 3], lm[i * 3 + 1]) }
        let (lx, ly) = xy(o.leftRotationIndex)
        let (rx, ry) = xy(o.rightRotationIndex)
        let alpha = -atanf((ry - ly) / (rx - lx))
        let ca = cosf(alpha)
        let sa = sinf(alpha)
        var maxX: Float = -100000
        var maxY: Float = -100000
        var minX: Float = 100000
        var minY: Float = 100000
        for (a, b) in o.subset {
            for k in [a, b] {
                let (x, y) = xy(k)
                let px = x * ca - y * sa
                let py = x * sa + y * ca
                maxX = max(maxX, px)
                maxY = max(maxY, py)
                minX = min(minX, px)
                minY = min(minY, py)
            }
        }
        let range = Float(o.landmarksRange)
        let boxW = (maxX - minX) * o.bboxSizeMultiplier
        let boxH = (maxY - minY) * o.bboxSizeMultiplier
        let scale: [Float] = [boxW / range, 0, 0, 0, boxH / range, 0, 0, 0, 1]
        let midX = Float(Double(maxX + minX) / 2)
        let midY = Float(Double(maxY + minY) / 2)
        let cn = cosf(-alpha)
        let sn = sinf(-alpha)
        let rmx = midX * cn - midY * sn
        let rmy = midX * sn + midY * cn
        let rotation: [Float] = [
            cn, -sn, Float(Double(rmx / range) * 2 - 1),
            sn, cn, Float(Double(rmy / range) * 2 - 1),
            0, 0, 1,
        ]
        let ow = Double(o.outputWidth)
        let oh = Double(o.outputHeight)
        let iw = Double(o.inputWidth)
        let ih = Double(o.inputHeight)
        let toRelative: [Float] = [Float(2 / (ow - 1)), 0, -1, 0, Float(2 / (oh - 1)), -1, 0, 0, 1]
        let toAbsolute: [Float] = [
            Float((iw - 1) / 2), 0, Float((iw - 1) / 2), 0, Float((ih - 1) / 2),
            Float((ih - 1) / 2), 0, 0, 1,
        ]
        let m = multiply(multiply(multiply(toAbsolute, rotation, 3), scale, 3), toRelative, 3)
        return [m[0], m[1], 0, m[2], m[3], m[4], 0, m[5], m[6], m[7], m[8], 0, 0, 0, 0, 1]
    }

    private static func matrixV2(_ o: LandmarksToMatrixV2Options, _ lm: UnsafeMutableBufferPointer<Float>) -> [Float] {
        func xy(_ i: Int) -> (Float, Float) { (lm[i * 3], lm[i * 3 + 1]) }
        let (lx, ly) = xy(o.leftRotationIndex)
        let (rx, ry) = xy(o.rightRotationIndex)
        let rotation = o.targetRotationRadians - atan2f(ry - ly, rx - lx)
        // Mat3 · (x, y, 1) of a rotation, summed from zero in order like MediaPipe's Mat3.
        func rotate(_ c: Float, _ s: Float, _ x: Float, _ y: Float) -> (Float, Float) {
            var px: Float = 0
            px += c * x
            px += -s * y
            px += 0
            var py: Float = 0
            py += s * x
            py += c * y
            py += 0
            return (px, py)
        }
        let c = cosf(rotation)
        let s = sinf(rotation)
        var first = true
        var maxX: Float = 0
        var maxY: Float = 0
        var minX: Float = 0
        var minY: Float = 0
        for (a, b) in o.subset {
            for k in [a, b] {
                let (x, y) = xy(k)
                let (px, py) = rotate(c, s, x, y)
                if first {
                    (maxX, maxY, minX, minY) = (px, py, px, py)
                    first = false
                    continue
                }
                if maxX < px { maxX = px }
                if maxY < py { maxY = py }
                if minX > px { minX = px }
                if minY > py { minY = py }
            }
        }
        let cropW = maxX - minX
        let cropH = maxY - minY
        let (cropX, cropY) = rotate(cosf(-rotation), sinf(-rotation), (minX + maxX) / 2, (minY + maxY) / 2)
        let r = -rotation
        let cr = cosf(r)
        let sr = sinf(r)
        let scaleX = o.scaleX * cropW / Float(o.outputWidth)
        let scaleY = o.scaleY * cropH / Float(o.outputHeight)
        let shiftX = Float(-1.0 * (Double(o.outputWidth) / 2))
        let shiftY = Float(-1.0 * (Double(o.outputHeight) / 2))
        var t: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        t = multiply(t, [1, 0, 0, cropX, 0, 1, 0, cropY, 0, 0, 1, 0, 0, 0, 0, 1], 4)
        t = multiply(t, [cr, -sr, 0, 0, sr, cr, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 4)
        t = multiply(t, [scaleX, 0, 0, 0, 0, scaleY, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 4)
        t = multiply(t, [1, 0, 0, shiftX, 0, 1, 0, shiftY, 0, 0, 1, 0, 0, 0, 0, 1], 4)
        return t
    }
}

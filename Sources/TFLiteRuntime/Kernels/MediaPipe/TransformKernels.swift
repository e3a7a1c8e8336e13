/// MediaPipe's TransformLandmarks and TransformTensorBilinear, float32, with a `[1, 4, 4]` (or any
/// 16-element) float32 affine matrix as second input whose first two rows are used.
///
/// TransformLandmarks v1: landmarks `[1, H, W, C]`, options `dimensions` (2 or 3; C a multiple of it)
/// and `scale` of the translation column; each landmark's x, y become `row · (x, y, 0, 1)`, z is kept.
/// v2: landmarks `[1, N, D]` with D (2 or 3) as the dimensions and scale 1.
///
/// TransformTensorBilinear: input `[1, H, W, C]`; output `[1, h, w, C]` from the options (v1
/// `output_size` [h, w] with `mode` "bilinear"; v2 `output_height`, `output_width`). Output pixel
/// (x, y) samples the input bilinearly at `(row0 · (x, y, 0, 1), row1 · (x, y, 0, 1))`, zero when that
/// point is outside `[0, W-1] × [0, H-1]`; v2 first shifts the matrix by half a pixel (align
/// corners). Arithmetic follows MediaPipe's kernels: float dot products summed left to right, and
/// the interpolation weights `1 - t` taken in double as MediaPipe's double literals promote them.
final class TransformLandmarksKernel: OpKernel {
    private let version: Int
    private let options: TransformLandmarksOptions?

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        version = node.code.version
        guard version == 1 || version == 2 else { throw node.error("version \(version) is not 1 or 2") }
        options = version == 1 ? try TransformLandmarksOptions(node) : nil
    }

    private var dimensions = 0

    func prepare(_ node: Node) throws {
        let landmarks = try node.input(0)
        let matrix = try node.input(1)
        try node.expect(landmarks, type: .float32, role: "landmarks")
        try node.expect(matrix, type: .float32, role: "matrix")
        guard matrix.elementCount >= 8 else { throw node.error("matrix has \(matrix.elementCount) elements, needs 16") }
        if let options {
            guard landmarks.rank == 4, landmarks.dim(0) == 1 else {
                throw node.error("landmarks must have shape [1, H, W, C], have \(landmarks.shape)")
            }
            dimensions = options.dimensions
            guard options.scale != 0 else { throw node.error("scale must not be 0") }
        } else {
            guard landmarks.rank == 3, landmarks.dim(0) == 1 else {
                throw node.error("landmarks must have shape [1, N, D], have \(landmarks.shape)")
            }
            dimensions = landmarks.dim(2)
        }
        guard dimensions == 2 || dimensions == 3 else {
            throw node.error("dimensions must be 2 or 3, is \(dimensions)")
        }
        guard landmarks.dim(landmarks.rank - 1) % dimensions == 0 else {
            throw node.error("last dimension \(landmarks.dim(landmarks.rank - 1)) is not a multiple of \(dimensions)")
        }
        try node.setOutput(0, type: .float32, shape: landmarks.shape)
    }

    func eval(_ node: Node) throws {
        let lm = try node.elementwiseBuffer(try node.input(0), Float.self, role: "landmarks")
        let m = try node.elementwiseBuffer(try node.input(1), Float.self, role: "matrix")
        let y = try node.elementwiseBuffer(try node.output(0), Float.self, role: "output")
        let scale = options?.scale ?? 1
        let xRow = (m[0], m[1], m[2], m[3] * scale)
        let yRow = (m[4], m[5], m[6], m[7] * scale)
        var o = 0
        while o + dimensions <= lm.count {
            let (px, py) = (lm[o], lm[o + 1])
            y[o] = affineDot(xRow, px, py)
            y[o + 1] = affineDot(yRow, px, py)
            if dimensions == 3 { y[o + 2] = lm[o + 2] }
            o += dimensions
        }
    }
}

/// `row · (x, y, 0, 1)` in float, summed left to right like MediaPipe's float4 dot product (the zero
/// term is kept so an infinite or NaN z entry propagates as it does there).
@inline(__always)
func affineDot(_ r: (Float, Float, Float, Float), _ x: Float, _ y: Float) -> Float {
    var s = x * r.0
    s += y * r.1
    s += 0 * r.2
    return s + r.3
}

final class TransformTensorBilinearKernel: OpKernel {
    private let alignCorners: Bool
    private let options: TransformTensorBilinearOptions

    init(_ node: Node) throws {
        try node.expect(inputs: 2, outputs: 1)
        let version = node.code.version
        guard version == 1 || version == 2 else { throw node.error("version \(version) is not 1 or 2") }
        alignCorners = version == 2
        options = try TransformTensorBilinearOptions(node, version: version)
    }

    func prepare(_ node: Node) throws {
        let input = try node.input(0)
        let matrix = try node.input(1)
        try node.expect(input, type: .float32, role: "input")
        try node.expect(matrix, type: .float32, role: "matrix")
        guard input.rank == 4 else { throw node.error("input must have rank 4 (NHWC), has shape \(input.shape)") }
        guard matrix.elementCount >= 8 else { throw node.error("matrix has \(matrix.elementCount) elements, needs 16") }
        // MediaPipe reads only the first image of the batch and sizes the output from the options.
        try node.setOutput(0, type: .float32, shape: [1, options.outputHeight, options.outputWidth, input.dim(3)])
    }

    func eval(_ node: Node) throws {
        let input = try node.input(0)
        let out = try node.output(0)
        let x = try node.elementwiseBuffer(input, Float.self, role: "input")
        let m = try node.elementwiseBuffer(try node.input(1), Float.self, role: "matrix")
        let y = try node.elementwiseBuffer(out, Float.self, role: "output")
        guard let xp = x.baseAddress, let yp = y.baseAddress else { return }
        var xRow = (m[0], m[1], m[2], m[3])
        var yRow = (m[4], m[5], m[6], m[7])
        if alignCorners {
            xRow.3 = Float(Double(xRow.3) + (Double(xRow.0) * 0.5 + Double(xRow.1) * 0.5 - 0.5))
            yRow.3 = Float(Double(yRow.3) + (Double(yRow.0) * 0.5 + Double(yRow.1) * 0.5 - 0.5))
        }
        let (h, w, c) = (input.dim(1), input.dim(2), input.dim(3))
        let (outH, outW) = (out.dim(1), out.dim(2))
        let maxX = Float(w - 1)
        let maxY = Float(h - 1)
        @inline(__always) func read(_ row: Int, _ col: Int, _ ch: Int) -> Float {
            row < 0 || col < 0 || row >= h || col >= w ? 0 : xp[(row * w + col) * c + ch]
        }
        var dst = 0
        for oy in 0..<outH {
            for ox in 0..<outW {
                let tx = affineDot(xRow, Float(ox), Float(oy))
                let ty = affineDot(yRow, Float(ox), Float(oy))
                // The negated comparison also sends NaN coordinates to the zero branch.
                guard tx >= 0, tx <= maxX, ty >= 0, ty <= maxY else {
                    (yp + dst).update(repeating: 0, count: c)
                    dst += c
                    continue
                }
                let fx = tx.rounded(.down)
                let fy = ty.rounded(.down)
                let col = Int(fx)
                let row = Int(fy)
                let right = tx - fx
                let lower = ty - fy
                let keepRight = 1.0 - Double(right)
                let keepLower = 1.0 - Double(lower)
                for ch in 0..<c {
                    let q11 = read(row, col, ch)
                    let q21 = read(row, col + 1, ch)
                    let q12 = read(row + 1, col, ch)
                    let q22 = read(row + 1, col + 1, ch)
                    let upperValue = Float(keepRight * Double(q11) + Double(right * q21))
                    let lowerValue = Float(keepRight * Double(q12) + Double(right * q22))
                    yp[dst] = Float(Double(lower * lowerValue) + keepLower * Double(upperValue))
                    dst += 1
                }
            }
        }
    }
}

/// Reads one stored pixel as RGB in 0...255; the preprocessing loops are generic over it so that
/// each pixel format gets its own specialised loop (no per-pixel dynamic dispatch).
protocol PixelReader {
    /// The RGB value of stored pixel (`x`, `y`); the caller guarantees both are in range.
    func rgb(_ x: Int, _ y: Int) -> SIMD3<Float>
    /// The luminance of stored pixel (`x`, `y`) in 0...255.
    func luma(_ x: Int, _ y: Int) -> Float
}

extension PixelReader {
    func luma(_ x: Int, _ y: Int) -> Float {
        let c = rgb(x, y)
        return 0.299 * c.x + 0.587 * c.y + 0.114 * c.z
    }
}

/// Packed 8-bit formats: RGB, RGBA, BGRA and gray, chosen by channel offsets.
struct PackedReader: PixelReader {
    let base: UnsafePointer<UInt8>
    let bytesPerRow: Int
    let bytesPerPixel: Int
    let red: Int, green: Int, blue: Int

    @inline(__always)
    func rgb(_ x: Int, _ y: Int) -> SIMD3<Float> {
        let p = base + y * bytesPerRow + x * bytesPerPixel
        return SIMD3(Float(p[red]), Float(p[green]), Float(p[blue]))
    }

    @inline(__always)
    func luma(_ x: Int, _ y: Int) -> Float {
        if bytesPerPixel == 1 { return Float(base[y * bytesPerRow + x]) }
        let c = rgb(x, y)
        return 0.299 * c.x + 0.587 * c.y + 0.114 * c.z
    }
}

/// 4:2:0 YUV with separate or interleaved chroma (NV12, NV21, I420), converted with BT.601.
struct YUVReader: PixelReader {
    let lumaPlane: UnsafePointer<UInt8>
    let lumaBytesPerRow: Int
    let cb: UnsafePointer<UInt8>
    let cr: UnsafePointer<UInt8>
    let chromaBytesPerRow: Int
    /// Distance between consecutive chroma samples of one kind: 2 when interleaved, 1 when planar.
    let chromaStep: Int
    let videoRange: Bool

    @inline(__always)
    func luma(_ x: Int, _ y: Int) -> Float {
        let value = Float(lumaPlane[y * lumaBytesPerRow + x])
        return videoRange ? min(max((value - 16) * (255 / 219), 0), 255) : value
    }

    @inline(__always)
    func rgb(_ x: Int, _ y: Int) -> SIMD3<Float> {
        let c = (y / 2) * chromaBytesPerRow + (x / 2) * chromaStep
        var yy = Float(lumaPlane[y * lumaBytesPerRow + x])
        var u = Float(cb[c]) - 128
        var v = Float(cr[c]) - 128
        if videoRange {
            yy = (yy - 16) * (255 / 219)
            u *= 255 / 224
            v *= 255 / 224
        }
        let rgb = SIMD3<Float>(yy + 1.402 * v, yy - 0.344136 * u - 0.714136 * v, yy + 1.772 * u)
        return rgb.clamped(lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 255))
    }
}

/// Hands a concrete reader to generic code (a "visitor", so that the loop is specialised per format).
protocol PixelReaderVisitor {
    associatedtype Result
    func visit<R: PixelReader>(_ reader: R) throws -> Result
}

extension PixelBuffer {
    /// Runs `visitor` with the reader for this buffer's format over its bytes.
    func visitReader<V: PixelReaderVisitor>(_ visitor: V) throws -> V.Result {
        try bytes.withUnsafeBufferPointer { raw in
            let base = raw.baseAddress!
            let p0 = planes[0]
            switch format {
            case .rgb8:
                return try visitor.visit(
                    PackedReader(
                        base: base + p0.offset, bytesPerRow: p0.bytesPerRow, bytesPerPixel: 3, red: 0, green: 1, blue: 2
                    ))
            case .rgba8:
                return try visitor.visit(
                    PackedReader(
                        base: base + p0.offset, bytesPerRow: p0.bytesPerRow, bytesPerPixel: 4, red: 0, green: 1, blue: 2
                    ))
            case .bgra8:
                return try visitor.visit(
                    PackedReader(
                        base: base + p0.offset, bytesPerRow: p0.bytesPerRow, bytesPerPixel: 4, red: 2, green: 1, blue: 0
                    ))
            case .gray8:
                return try visitor.visit(
                    PackedReader(
                        base: base + p0.offset, bytesPerRow: p0.bytesPerRow, bytesPerPixel: 1, red: 0, green: 0, blue: 0
                    ))
            case .nv12, .nv21:
                let p1 = planes[1]
                let first = base + p1.offset
                let (cb, cr) = format == .nv12 ? (first, first + 1) : (first + 1, first)
                return try visitor.visit(
                    YUVReader(
                        lumaPlane: base + p0.offset, lumaBytesPerRow: p0.bytesPerRow, cb: cb, cr: cr,
                        chromaBytesPerRow: p1.bytesPerRow, chromaStep: 2, videoRange: yuvRange == .video))
            case .i420:
                let p1 = planes[1]
                let p2 = planes[2]
                guard p1.bytesPerRow == p2.bytesPerRow else {
                    throw VisionError.invalidBuffer(
                        detail: "I420 chroma planes have different strides (\(p1.bytesPerRow), \(p2.bytesPerRow))")
                }
                return try visitor.visit(
                    YUVReader(
                        lumaPlane: base + p0.offset, lumaBytesPerRow: p0.bytesPerRow, cb: base + p1.offset,
                        cr: base + p2.offset,
                        chromaBytesPerRow: p1.bytesPerRow, chromaStep: 1, videoRange: yuvRange == .video))
            }
        }
    }
}

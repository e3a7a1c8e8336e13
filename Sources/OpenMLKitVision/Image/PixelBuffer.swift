/// Raw pixels with their layout: one to three planes in one byte array, each with a row stride.
///
/// Creating a buffer checks that every plane fits in the bytes for the given width, height,
/// format and strides, so readers never index out of bounds.
public struct PixelBuffer: Sendable {
    /// Where a plane starts in ``bytes`` and how many bytes one of its rows spans (≥ the pixel data).
    public struct Plane: Equatable, Sendable {
        /// Byte offset of the plane's first row.
        public let offset: Int
        /// Distance in bytes between the starts of consecutive rows.
        public let bytesPerRow: Int

        /// A plane starting at `offset` with rows `bytesPerRow` apart.
        public init(offset: Int, bytesPerRow: Int) {
            self.offset = offset
            self.bytesPerRow = bytesPerRow
        }
    }

    /// The pixel layout.
    public let format: PixelFormat
    /// Width of the stored pixels.
    public let width: Int
    /// Height of the stored pixels.
    public let height: Int
    /// The planes, in the format's order (Y, UV for NV12; Y, U, V for I420).
    public let planes: [Plane]
    /// The bytes holding every plane.
    public let bytes: [UInt8]
    /// How YUV samples convert to RGB (ignored for RGB and gray formats).
    public let yuvRange: YUVRange

    /// A buffer over `bytes` with explicit plane offsets and strides.
    ///
    /// - Throws: ``VisionError/invalidBuffer(detail:)`` when a size is not positive, a stride is
    ///   shorter than a row, the plane count is wrong, or a plane runs past the end of `bytes`.
    public init(
        bytes: [UInt8], width: Int, height: Int, format: PixelFormat, planes: [Plane], yuvRange: YUVRange = .full
    ) throws {
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else {
            throw VisionError.invalidBuffer(detail: "size \(width)x\(height) is outside 1...32768")
        }
        guard planes.count == format.planeCount else {
            throw VisionError.invalidBuffer(
                detail: "\(format.rawValue) needs \(format.planeCount) planes, got \(planes.count)")
        }
        for (index, plane) in planes.enumerated() {
            let (rowBytes, rows) = format.planeExtent(index, width: width, height: height)
            guard plane.bytesPerRow >= rowBytes else {
                throw VisionError.invalidBuffer(
                    detail: "plane \(index): \(plane.bytesPerRow) bytes per row, need at least \(rowBytes)")
            }
            let needed = plane.bytesPerRow * (rows - 1) + rowBytes
            guard plane.offset >= 0, plane.offset <= bytes.count, needed <= bytes.count - plane.offset else {
                throw VisionError.invalidBuffer(
                    detail:
                        "plane \(index): \(needed) bytes at offset \(plane.offset) exceed the \(bytes.count) bytes given"
                )
            }
        }
        self.bytes = bytes
        self.width = width
        self.height = height
        self.format = format
        self.planes = planes
        self.yuvRange = yuvRange
    }

    /// A buffer whose planes follow each other with the given row strides (nil: tightly packed).
    ///
    /// For NV12/NV21 the planes are Y then the interleaved chroma; for I420, Y, U, V. Strides apply
    /// per plane; one stride for several planes is a caller error reported as ``VisionError/invalidBuffer(detail:)``.
    public init(
        bytes: [UInt8], width: Int, height: Int, format: PixelFormat, bytesPerRow: [Int]? = nil,
        yuvRange: YUVRange = .full
    ) throws {
        guard width > 0, height > 0 else {
            throw VisionError.invalidBuffer(detail: "size \(width)x\(height) is not positive")
        }
        let strides =
            bytesPerRow ?? (0..<format.planeCount).map { format.planeExtent($0, width: width, height: height).rowBytes }
        guard strides.count == format.planeCount else {
            throw VisionError.invalidBuffer(
                detail: "\(format.rawValue) needs \(format.planeCount) row strides, got \(strides.count)")
        }
        var planes = [Plane]()
        var offset = 0
        for (index, stride) in strides.enumerated() {
            planes.append(Plane(offset: offset, bytesPerRow: stride))
            let rows = format.planeExtent(index, width: width, height: height).rows
            let (size, overflow) = stride.multipliedReportingOverflow(by: rows)
            guard !overflow, stride >= 0 else {
                throw VisionError.invalidBuffer(detail: "plane \(index): stride \(stride) is invalid")
            }
            offset += size
        }
        try self.init(bytes: bytes, width: width, height: height, format: format, planes: planes, yuvRange: yuvRange)
    }
}

extension PixelBuffer {
    /// A buffer holding a copy of pixels in memory the caller owns (a camera frame, another
    /// library's image).
    ///
    /// Each plane is given as the bytes from its first row to the end of its last one and the
    /// distance between row starts; the copy keeps only each row's pixel bytes (row padding is
    /// dropped), so the caller may reuse or free the memory as soon as this returns. This is how
    /// `VisionImage` takes a `CVPixelBuffer` on Apple platforms: the capture pipeline recycles
    /// its buffers, and a copy is the one lifetime rule that cannot be broken by accident.
    ///
    /// - Throws: ``VisionError/invalidBuffer(detail:)`` when a size is not positive, the number of
    ///   planes or strides does not match `format`, a stride is shorter than a row, or a plane's
    ///   bytes end before its last row does.
    public init(
        copyingPlanes planes: [UnsafeRawBufferPointer], bytesPerRow: [Int], width: Int, height: Int,
        format: PixelFormat, yuvRange: YUVRange = .full
    ) throws {
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else {
            throw VisionError.invalidBuffer(detail: "size \(width)x\(height) is outside 1...32768")
        }
        guard planes.count == format.planeCount, bytesPerRow.count == format.planeCount else {
            throw VisionError.invalidBuffer(
                detail:
                    "\(format.rawValue) needs \(format.planeCount) planes, got \(planes.count) with \(bytesPerRow.count) strides"
            )
        }
        var bytes = [UInt8]()
        for (index, plane) in planes.enumerated() {
            let (rowBytes, rows) = format.planeExtent(index, width: width, height: height)
            let stride = bytesPerRow[index]
            guard stride >= rowBytes else {
                throw VisionError.invalidBuffer(
                    detail: "plane \(index): \(stride) bytes per row, need at least \(rowBytes)")
            }
            let (span, overflow) = stride.multipliedReportingOverflow(by: rows - 1)
            guard !overflow, span <= plane.count - rowBytes, plane.baseAddress != nil else {
                throw VisionError.invalidBuffer(
                    detail:
                        "plane \(index): \(rows) rows of \(stride) bytes do not fit in the \(plane.count) bytes given")
            }
            bytes.reserveCapacity(bytes.count + rowBytes * rows)
            for row in 0..<rows {
                let start = row * stride
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: plane[start..<start + rowBytes]))
            }
        }
        try self.init(bytes: bytes, width: width, height: height, format: format, yuvRange: yuvRange)
    }
}

// Apple platforms only: this file compiles to nothing elsewhere. Not yet compiled on an Apple
// system (no Apple SDK on the machines this package is developed on); CI checks its syntax with
// `swiftc -parse` (scripts/parse-apple-sources.sh). The copying and the format table it relies
// on (`PixelBuffer(copyingPlanes:...)`, `PixelFormat.coreVideo(_:)`) are portable and tested.
#if canImport(CoreVideo)
    import CoreVideo

    extension PixelBuffer {
        /// A copy of a Core Video pixel buffer's pixels (a camera frame).
        ///
        /// **Lifetime:** the pixels are copied while the buffer's base address is locked read-only,
        /// and the `CVPixelBuffer` is not retained, so the capture pipeline may reuse it as soon as
        /// this returns (as `AVCaptureVideoDataOutput` does with its small pool of buffers). The copy
        /// costs one pass over the frame (1.4 MB for 1280×720 NV12).
        ///
        /// Formats: `kCVPixelFormatType_32BGRA`, `_32RGBA`, `_24RGB`, `_OneComponent8`,
        /// `_420YpCbCr8BiPlanarFullRange` / `VideoRange` (NV12) and `_420YpCbCr8PlanarFullRange` /
        /// `_420YpCbCr8Planar` (I420).
        ///
        /// - Throws: ``VisionError/unsupportedFormat(detail:)`` for another pixel format, and
        ///   ``VisionError/invalidBuffer(detail:)`` when the buffer cannot be locked or its planes do
        ///   not hold the rows its size needs.
        public init(copying pixelBuffer: CVPixelBuffer) throws {
            let type = CVPixelBufferGetPixelFormatType(pixelBuffer)
            guard let layout = PixelFormat.coreVideo(type) else {
                throw VisionError.unsupportedFormat(
                    detail: "Core Video pixel format \(PixelFormat.describeCoreVideo(type)) is not read")
            }
            let status = CVPixelBufferLockBaseAddress(pixelBuffer, .readOnly)
            guard status == kCVReturnSuccess else {
                throw VisionError.invalidBuffer(detail: "CVPixelBufferLockBaseAddress failed with status \(status)")
            }
            defer { CVPixelBufferUnlockBaseAddress(pixelBuffer, .readOnly) }

            var planes = [UnsafeRawBufferPointer]()
            var strides = [Int]()
            if CVPixelBufferIsPlanar(pixelBuffer) {
                for index in 0..<CVPixelBufferGetPlaneCount(pixelBuffer) {
                    let stride = CVPixelBufferGetBytesPerRowOfPlane(pixelBuffer, index)
                    let rows = CVPixelBufferGetHeightOfPlane(pixelBuffer, index)
                    let base = CVPixelBufferGetBaseAddressOfPlane(pixelBuffer, index)
                    planes.append(UnsafeRawBufferPointer(start: base, count: base == nil ? 0 : stride * rows))
                    strides.append(stride)
                }
            } else {
                let stride = CVPixelBufferGetBytesPerRow(pixelBuffer)
                let rows = CVPixelBufferGetHeight(pixelBuffer)
                let base = CVPixelBufferGetBaseAddress(pixelBuffer)
                planes.append(UnsafeRawBufferPointer(start: base, count: base == nil ? 0 : stride * rows))
                strides.append(stride)
            }
            try self.init(
                copyingPlanes: planes, bytesPerRow: strides, width: CVPixelBufferGetWidth(pixelBuffer),
                height: CVPixelBufferGetHeight(pixelBuffer), format: layout.format, yuvRange: layout.range)
        }
    }
#endif

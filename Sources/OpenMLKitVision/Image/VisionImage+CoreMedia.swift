// Apple platforms only: this file compiles to nothing elsewhere. Not yet compiled on an Apple
// system; CI checks its syntax with `swiftc -parse` (scripts/parse-apple-sources.sh).
#if canImport(CoreVideo)
    import CoreVideo

    extension VisionImage {
        /// An image over a copy of a camera frame's pixels (see ``PixelBuffer/init(copying:)``).
        ///
        /// The frame is copied, so the capture pipeline may reuse `pixelBuffer` as soon as this
        /// returns. Set `orientation` from the device and camera
        /// (``ImageOrientation/init(deviceOrientation:cameraPosition:)``).
        ///
        /// - Throws: the errors of ``PixelBuffer/init(copying:)``.
        public init(pixelBuffer: CVPixelBuffer, orientation: ImageOrientation = .up) throws {
            self.init(buffer: try PixelBuffer(copying: pixelBuffer), orientation: orientation)
        }
    }
#endif

#if canImport(CoreMedia)
    import CoreMedia

    extension VisionImage {
        /// An image over a copy of the pixels of a video sample buffer, as ML Kit's
        /// `VisionImage(buffer:)` takes the frames of `AVCaptureVideoDataOutput`.
        ///
        /// The frame is copied (see ``PixelBuffer/init(copying:)``), so the delegate may return and
        /// the capture pipeline reuse the buffer while the image is processed. Unlike ML Kit's, this
        /// initializer throws: a sample buffer without an image, or in a pixel format this package does
        /// not read, is an error rather than an empty image.
        ///
        /// - Throws: ``VisionError/invalidBuffer(detail:)`` when the sample buffer holds no image
        ///   buffer, and the errors of ``PixelBuffer/init(copying:)``.
        public init(buffer sampleBuffer: CMSampleBuffer, orientation: ImageOrientation = .up) throws {
            guard let imageBuffer = CMSampleBufferGetImageBuffer(sampleBuffer) else {
                throw VisionError.invalidBuffer(
                    detail: "the sample buffer holds no image buffer (audio or compressed data)")
            }
            self.init(buffer: try PixelBuffer(copying: imageBuffer), orientation: orientation)
        }
    }
#endif

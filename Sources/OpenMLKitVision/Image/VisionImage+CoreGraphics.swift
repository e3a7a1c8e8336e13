// Apple platforms only: this file compiles to nothing elsewhere. Not yet compiled on an Apple
// system; CI checks its syntax with `swiftc -parse` (scripts/parse-apple-sources.sh).
#if canImport(CoreGraphics)
    import CoreGraphics

    extension VisionImage {
        /// An image over a copy of a Core Graphics image's pixels (see ``PixelBuffer/init(cgImage:)``).
        ///
        /// A `CGImage` carries no orientation: pass the one that shows it upright (for an image read
        /// with ImageIO, `ImageOrientation(exifValue:)` of its `kCGImagePropertyOrientation`).
        ///
        /// - Throws: the errors of ``PixelBuffer/init(cgImage:)``.
        public init(cgImage: CGImage, orientation: ImageOrientation = .up) throws {
            self.init(buffer: try PixelBuffer(cgImage: cgImage), orientation: orientation)
        }
    }
#endif

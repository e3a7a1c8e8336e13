// Apple platforms only: this file compiles to nothing elsewhere. Not yet compiled on an Apple
// system; CI checks its syntax with `swiftc -parse` (scripts/parse-apple-sources.sh).
#if canImport(UIKit)
    import UIKit

    extension VisionImage {
        /// An image over a copy of a `UIImage`'s pixels, with its `imageOrientation`, as ML Kit's
        /// `VisionImage(image:)`.
        ///
        /// - Throws: ``VisionError/unsupportedFormat(detail:)`` when the image has no `CGImage` (one
        ///   made from a `CIImage`: render it first), and the errors of ``PixelBuffer/init(cgImage:)``.
        public init(image: UIImage) throws {
            guard let cgImage = image.cgImage else {
                throw VisionError.unsupportedFormat(
                    detail: "the UIImage has no CGImage (made from a CIImage?); render it first")
            }
            self.init(buffer: try PixelBuffer(cgImage: cgImage), orientation: ImageOrientation(image.imageOrientation))
        }
    }
#endif

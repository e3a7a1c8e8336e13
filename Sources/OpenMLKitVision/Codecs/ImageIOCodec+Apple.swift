// Apple platforms only: this file compiles to nothing elsewhere. Not yet compiled on an Apple
// system; CI checks its syntax with `swiftc -parse` (scripts/parse-apple-sources.sh).
#if canImport(ImageIO)
    import CoreGraphics
    import Foundation
    import ImageIO

    /// JPEG and PNG through ImageIO on Apple platforms, in place of libjpeg and libpng.
    ///
    /// ``ImageDecoder`` and ``PNGEncoder`` call this where the system codecs are not linked. Decoded
    /// pixels are those ImageIO produces: a JPEG may differ from libjpeg-turbo's by a level or two per
    /// channel (a different IDCT and chroma upsampling), so results on Apple platforms are not held to
    /// the byte-exact vision parity measured on Linux.
    enum ImageIOCodec {
        /// The first image of an encoded file, as RGBA8, and the EXIF orientation ImageIO reports for
        /// it (nil when it reports none).
        ///
        /// - Throws: ``VisionError/corruptImage(format:detail:)`` when ImageIO cannot read the data,
        ///   and the errors of ``PixelBuffer/init(cgImage:)``.
        static func decode(_ bytes: UnsafeRawBufferPointer, format: String) throws -> (PixelBuffer, ImageOrientation?) {
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                throw VisionError.corruptImage(format: format, detail: "no bytes")
            }
            let data = Data(bytes: base, count: bytes.count) as CFData
            // No cache: the pixels are copied out at once and the CGImage is dropped.
            let options = [kCGImageSourceShouldCache: false] as CFDictionary
            guard let source = CGImageSourceCreateWithData(data, options),
                CGImageSourceGetCount(source) > 0,
                let image = CGImageSourceCreateImageAtIndex(source, 0, options)
            else {
                let status = CGImageSourceCreateWithData(data, nil).map { CGImageSourceGetStatus($0).rawValue }
                throw VisionError.corruptImage(
                    format: format,
                    detail: "ImageIO could not decode it (source status \(status.map(String.init) ?? "none"))")
            }
            let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any]
            let exif = (properties?[kCGImagePropertyOrientation] as? NSNumber)?.intValue
            return (try PixelBuffer(cgImage: image), exif.flatMap(ImageOrientation.init(exifValue:)))
        }

        /// The PNG encoding of tightly packed RGB8 pixels (the caller has checked the count).
        ///
        /// - Throws: ``VisionError/invalidBuffer(detail:)`` when ImageIO fails.
        static func encodePNG(rgb pixels: [UInt8], width: Int, height: Int) throws -> Data {
            guard let provider = CGDataProvider(data: Data(pixels) as CFData),
                let space = CGColorSpace(name: CGColorSpace.sRGB),
                let image = CGImage(
                    width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 24, bytesPerRow: width * 3,
                    space: space, bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.none.rawValue),
                    provider: provider,
                    decode: nil, shouldInterpolate: false, intent: .defaultIntent)
            else {
                throw VisionError.invalidBuffer(detail: "PNG encoding failed: Core Graphics could not wrap the pixels")
            }
            let output = NSMutableData()
            guard
                let destination = CGImageDestinationCreateWithData(
                    output as CFMutableData, "public.png" as CFString, 1, nil)
            else {
                throw VisionError.invalidBuffer(detail: "PNG encoding failed: ImageIO has no PNG encoder")
            }
            CGImageDestinationAddImage(destination, image, nil)
            guard CGImageDestinationFinalize(destination) else {
                throw VisionError.invalidBuffer(detail: "PNG encoding failed: ImageIO could not finalize the file")
            }
            return output as Data
        }
    }
#endif

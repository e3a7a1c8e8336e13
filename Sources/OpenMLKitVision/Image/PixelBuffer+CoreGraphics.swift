// Apple platforms only: this file compiles to nothing elsewhere. Not yet compiled on an Apple
// system (no Apple SDK on the machines this package is developed on); CI checks its syntax with
// `swiftc -parse` (scripts/parse-apple-sources.sh).
#if canImport(CoreGraphics)
    import CoreGraphics

    extension PixelBuffer {
        /// The pixels of a Core Graphics image, drawn into an RGBA8 buffer (alpha ignored).
        ///
        /// An RGB image is drawn in its own color space, so its stored values are kept; any other
        /// (grayscale, CMYK, indexed) is converted to sRGB by Core Graphics. Transparent pixels come
        /// out over black.
        ///
        /// - Throws: ``VisionError/invalidBuffer(detail:)`` when the image is empty or larger than
        ///   32768 pixels on a side, or Core Graphics cannot make a drawing context for it.
        public init(cgImage image: CGImage) throws {
            let width = image.width
            let height = image.height
            guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else {
                throw VisionError.invalidBuffer(detail: "image size \(width)x\(height) is outside 1...32768")
            }
            // The image's own RGB space first (no conversion); sRGB when it has none, is not RGB, or
            // cannot back an 8-bit context (extended-range and float spaces).
            let spaces = [
                image.colorSpace.flatMap { $0.model == .rgb ? $0 : nil }, CGColorSpace(name: CGColorSpace.sRGB),
            ]
            var bytes = [UInt8](repeating: 0, count: width * height * 4)
            let drawn = bytes.withUnsafeMutableBytes { memory -> Bool in
                // RGBX in memory order: alpha skipped, bytes in big-endian order (R first).
                let info = CGImageAlphaInfo.noneSkipLast.rawValue | CGBitmapInfo.byteOrder32Big.rawValue
                for case let space? in spaces {
                    guard
                        let context = CGContext(
                            data: memory.baseAddress, width: width, height: height, bitsPerComponent: 8,
                            bytesPerRow: width * 4, space: space, bitmapInfo: info)
                    else { continue }
                    context.interpolationQuality = .none
                    context.draw(image, in: CGRect(x: 0, y: 0, width: width, height: height))
                    return true
                }
                return false
            }
            guard drawn else {
                throw VisionError.invalidBuffer(detail: "Core Graphics could not draw a \(width)x\(height) image")
            }
            try self.init(bytes: bytes, width: width, height: height, format: .rgba8)
        }
    }
#endif

#if !canImport(ImageIO)
import CImageCodecs
#endif
import Foundation

/// Writes RGB8 pixels as PNG (used to save annotated images).
public enum PNGEncoder {
    /// The PNG encoding of `width` × `height` tightly packed RGB8 `pixels`.
    ///
    /// - Throws: ``VisionError/invalidBuffer(detail:)`` when the pixel count does not match or libpng fails.
    public static func encode(rgb pixels: [UInt8], width: Int, height: Int) throws -> Data {
        guard width > 0, height > 0, pixels.count == width * height * 3 else {
            throw VisionError.invalidBuffer(detail: "\(pixels.count) bytes do not hold a \(width)x\(height) RGB image")
        }
        #if canImport(ImageIO)
        return try ImageIOCodec.encodePNG(rgb: pixels, width: width, height: height)
        #else
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = pixels.withUnsafeBufferPointer { source in
            message.withUnsafeMutableBufferPointer { text in
                omk_png_encode_rgb(
                    source.baseAddress, UInt32(width), UInt32(height), &output, &size, text.baseAddress, text.count)
            }
        }
        defer { omk_free(output) }
        guard status == 0, let output else {
            let detail = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw VisionError.invalidBuffer(detail: "PNG encoding failed: \(detail)")
        }
        return Data(bytes: output, count: size)
        #endif
    }
}

#if canImport(ImageIO)
// Apple platforms: ImageIO decodes JPEG and PNG (ImageIOCodec+Apple.swift); libjpeg and libpng are not linked.
#else
import CImageCodecs
#endif

/// Picks a decoder from the leading bytes and decodes an image file held in memory.
enum ImageDecoder {
    /// The decoded pixels and, for JPEG, the EXIF orientation (`.up` otherwise).
    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> (PixelBuffer, ImageOrientation) {
        guard bytes.count >= 4 else {
            throw VisionError.unsupportedFormat(detail: "\(bytes.count) bytes are too few for an image")
        }
        if bytes[0] == 0xFF, bytes[1] == 0xD8 {
            return (try decodeJPEG(bytes), EXIF.orientation(inJPEG: bytes) ?? .up)
        }
        if bytes[0] == 0x89, bytes[1] == 0x50, bytes[2] == 0x4E, bytes[3] == 0x47 {
            return try decodePNG(bytes)
        }
        if bytes[0] == 0x42, bytes[1] == 0x4D {
            return (try BMPDecoder.decode(bytes), .up)
        }
        let head = bytes.prefix(4).map { String($0, radix: 16) }.joined(separator: " ")
        if let name = knownFormat(bytes) {
            #if canImport(ImageIO)
            // Apple platforms: ImageIO reads these (HEIC is what iPhone cameras write).
            let (buffer, orientation) = try ImageIOCodec.decode(bytes, format: name)
            return (buffer, orientation ?? .up)
            #else
            throw VisionError.unsupportedFormat(
                detail: "\(name) is not decoded here: only JPEG, PNG and BMP (starts with \(head)); convert it first")
            #endif
        }
        throw VisionError.unsupportedFormat(detail: "not JPEG, PNG or BMP (starts with \(head))")
    }

    /// The name of a common image format that only ImageIO reads (on Apple platforms), from its
    /// signature.
    static func knownFormat(_ bytes: UnsafeRawBufferPointer) -> String? {
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count
                && signature.indices.allSatisfy { bytes[offset + $0] == signature[$0] }
        }
        if starts(Array("GIF8".utf8)) { return "GIF" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "WebP" }
        if starts(Array("ftyp".utf8), at: 4) {
            for (brand, name) in [
                ("heic", "HEIC"), ("heix", "HEIC"), ("hevc", "HEIC"), ("mif1", "HEIF"), ("msf1", "HEIF"),
                ("avif", "AVIF"),
            ] where starts(Array(brand.utf8), at: 8) {
                return name
            }
        }
        return nil
    }

    static func decodeJPEG(_ bytes: UnsafeRawBufferPointer) throws -> PixelBuffer {
        #if canImport(ImageIO)
        try ImageIOCodec.decode(bytes, format: "JPEG").0
        #else
        try decodeWithC(bytes, format: "JPEG", channels: 3, pixelFormat: .rgb8, omk_jpeg_decode)
        #endif
    }

    /// The pixels and the orientation in the PNG's `eXIf` chunk (`.up` without one).
    static func decodePNG(_ bytes: UnsafeRawBufferPointer) throws -> (PixelBuffer, ImageOrientation) {
        #if canImport(ImageIO)
        let (buffer, orientation) = try ImageIOCodec.decode(bytes, format: "PNG")
        return (buffer, orientation ?? .up)
        #else
        var exif: UnsafeMutablePointer<UInt8>?
        var exifSize = 0
        defer { omk_free(exif) }
        let buffer = try decodeWithC(bytes, format: "PNG", channels: 4, pixelFormat: .rgba8) {
            omk_png_decode($0, $1, $2, $3, $4, &exif, &exifSize, $5, $6)
        }
        guard let exif, exifSize > 0 else { return (buffer, .up) }
        return (buffer, EXIF.orientation(inTIFF: UnsafeRawBufferPointer(start: exif, count: exifSize)) ?? .up)
        #endif
    }

    #if !canImport(ImageIO)

    private typealias CDecoder = (
        UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
        UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<CChar>?, Int
    ) -> Int32

    private static func decodeWithC(
        _ bytes: UnsafeRawBufferPointer, format: String, channels: Int, pixelFormat: PixelFormat, _ decoder: CDecoder
    ) throws -> PixelBuffer {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: UInt32 = 0
        var height: UInt32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { text in
            decoder(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &pixels, &width, &height,
                text.baseAddress, text.count)
        }
        defer { omk_free(pixels) }
        guard status == 0, let pixels else {
            let detail = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw VisionError.corruptImage(format: format, detail: detail.isEmpty ? "decoding failed" : detail)
        }
        let count = Int(width) * Int(height) * channels
        let array = [UInt8](UnsafeBufferPointer(start: pixels, count: count))
        return try PixelBuffer(bytes: array, width: Int(width), height: Int(height), format: pixelFormat)
    }
    #endif
}

extension PixelFormat {
    /// The layout and YUV range of a Core Video pixel format type (`OSType`, a four-character
    /// code), or nil for a format this package does not read.
    ///
    /// Kept free of Core Video so the table is tested on every platform; the Apple-only code that
    /// reads `CVPixelBuffer`s (`PixelBuffer+CoreVideo.swift`) only looks it up.
    static func coreVideo(_ type: UInt32) -> (format: PixelFormat, range: YUVRange)? {
        switch type {
        case fourCC("BGRA"): return (.bgra8, .full)  // kCVPixelFormatType_32BGRA, the camera's RGB output
        case fourCC("RGBA"): return (.rgba8, .full)  // kCVPixelFormatType_32RGBA
        case 0x18: return (.rgb8, .full)  // kCVPixelFormatType_24RGB (a classic QuickTime number, not a code)
        case fourCC("L008"): return (.gray8, .full)  // kCVPixelFormatType_OneComponent8
        case fourCC("420f"): return (.nv12, .full)  // kCVPixelFormatType_420YpCbCr8BiPlanarFullRange
        case fourCC("420v"): return (.nv12, .video)  // kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
        case fourCC("f420"): return (.i420, .full)  // kCVPixelFormatType_420YpCbCr8PlanarFullRange
        case fourCC("y420"): return (.i420, .video)  // kCVPixelFormatType_420YpCbCr8Planar
        default: return nil
        }
    }

    /// A four-character code as Core Video spells pixel formats (`'420f'` is 0x34323066).
    static func fourCC(_ code: StaticString) -> UInt32 {
        precondition(code.utf8CodeUnitCount == 4, "a four-character code has four characters")
        return code.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    /// A Core Video pixel format type as text: its four characters when printable, else hex.
    static func describeCoreVideo(_ type: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: type >> (24 - 8 * $0)) }
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return "'" + String(decoding: bytes, as: UTF8.self) + "'"
        }
        return "0x" + String(type, radix: 16)
    }
}

/// Reads the orientation tag from a JPEG's APP1 `Exif` block or a PNG's `eXIf` chunk.
///
/// Only what orientation needs is parsed: the JPEG marker chain up to the first scan, the TIFF
/// header and IFD0. Every offset is checked; a malformed or absent block yields nil (the image is
/// then treated as upright, as other decoders do) rather than an error, because the pixels are fine.
enum EXIF {
    /// The EXIF orientation of the JPEG in `bytes`, or nil when it has none (or an unreadable one).
    static func orientation(inJPEG bytes: UnsafeRawBufferPointer) -> ImageOrientation? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var position = 2
        while position + 4 <= bytes.count {
            guard bytes[position] == 0xFF else { return nil }
            let marker = bytes[position + 1]
            if marker == 0xFF {
                position += 1
                continue
            }  // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 {
                position += 2
                continue
            }
            if marker == 0xDA || marker == 0xD9 { return nil }  // scan data or end: no Exif before it
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            guard length >= 2, position + 2 + length <= bytes.count else { return nil }
            let segment = UnsafeRawBufferPointer(rebasing: bytes[(position + 4)..<(position + 2 + length)])
            if marker == 0xE1, let value = orientation(inApp1: segment) { return value }
            position += 2 + length
        }
        return nil
    }

    /// The orientation in an APP1 payload that starts with `Exif\0\0`, or nil.
    static func orientation(inApp1 segment: UnsafeRawBufferPointer) -> ImageOrientation? {
        let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        guard segment.count >= 14, zip(segment.prefix(6), header).allSatisfy({ $0 == $1 }) else { return nil }
        return orientation(inTIFF: UnsafeRawBufferPointer(rebasing: segment[6...]))
    }

    /// The orientation tag in IFD0 of a TIFF structure (an `Exif` block after its header, or a PNG
    /// `eXIf` chunk), or nil.
    static func orientation(inTIFF tiff: UnsafeRawBufferPointer) -> ImageOrientation? {
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for entry in 0..<count {
            let at = ifd + 2 + 12 * entry
            guard let tag = u16(at), let type = u16(at + 2), let n = u32(at + 4) else { return nil }
            guard tag == 0x0112 else { continue }
            guard type == 3, n >= 1, let value = u16(at + 8) else { return nil }
            return ImageOrientation(exifValue: value)
        }
        return nil
    }
}

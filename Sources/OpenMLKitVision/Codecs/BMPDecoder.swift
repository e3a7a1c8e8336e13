/// Decodes Windows bitmaps: 1/4/8-bit palettes and 24/32-bit pixels (`BI_RGB`, or `BI_BITFIELDS`
/// masks for 32-bit), bottom-up or top-down. Compressed (RLE) and 16-bit bitmaps are rejected.
enum BMPDecoder {
    /// Decodes `bytes` to an RGB8 buffer.
    ///
    /// - Throws: ``VisionError/corruptImage(format:detail:)`` for truncated or inconsistent files and
    ///   ``VisionError/unsupportedFormat(detail:)`` for valid but unsupported variants.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> PixelBuffer {
        func fail(_ detail: String) -> VisionError { .corruptImage(format: "BMP", detail: detail) }
        func u16(_ at: Int) throws -> Int {
            guard at + 2 <= bytes.count else { throw fail("truncated header (needs byte \(at + 2) of \(bytes.count))") }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8
        }
        func u32(_ at: Int) throws -> UInt32 {
            UInt32(try u16(at)) | UInt32(try u16(at + 2)) << 16
        }
        guard bytes.count >= 2, bytes[0] == 0x42, bytes[1] == 0x4D else { throw fail("missing 'BM' signature") }
        let dataOffset = Int(try u32(10))
        let headerSize = Int(try u32(14))
        let width: Int
        let rawHeight: Int
        let bitCount: Int
        let compression: UInt32
        var paletteEntrySize = 4
        if headerSize == 12 {
            width = try u16(18)
            rawHeight = Int(Int16(truncatingIfNeeded: try u16(20)))
            bitCount = try u16(24)
            compression = 0
            paletteEntrySize = 3
        } else if headerSize >= 40, headerSize <= 124 {
            width = Int(Int32(bitPattern: try u32(18)))
            rawHeight = Int(Int32(bitPattern: try u32(22)))
            bitCount = try u16(28)
            compression = try u32(30)
        } else {
            throw fail("unknown DIB header size \(headerSize)")
        }
        let topDown = rawHeight < 0
        let height = abs(rawHeight)
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else {
            throw fail("size \(width)x\(height) is outside 1...32768")
        }
        guard [1, 4, 8, 24, 32].contains(bitCount) else {
            throw VisionError.unsupportedFormat(detail: "BMP with \(bitCount) bits per pixel")
        }
        var masks: (UInt32, UInt32, UInt32) = (0x00FF_0000, 0x0000_FF00, 0x0000_00FF)
        switch compression {
        case 0: break
        case 3 where bitCount == 32:
            // Masks follow a 40-byte header or live inside V4/V5 headers at the same place.
            masks = (try u32(54), try u32(58), try u32(62))
        default:
            throw VisionError.unsupportedFormat(
                detail: "BMP compression \(compression) with \(bitCount) bits per pixel")
        }
        var palette = [(UInt8, UInt8, UInt8)]()
        if bitCount <= 8 {
            let colorsUsed = headerSize >= 40 ? Int(try u32(46)) : 0
            let count = colorsUsed == 0 ? 1 << bitCount : min(colorsUsed, 1 << bitCount)
            let start = 14 + headerSize
            guard start + count * paletteEntrySize <= bytes.count else { throw fail("truncated palette") }
            for i in 0..<count {
                let p = start + i * paletteEntrySize
                palette.append((bytes[p + 2], bytes[p + 1], bytes[p]))
            }
        }
        let rowBytes = ((width * bitCount + 31) / 32) * 4
        guard dataOffset >= 14, dataOffset <= bytes.count, rowBytes * height <= bytes.count - dataOffset else {
            throw fail(
                "pixel data (\(rowBytes * height) bytes at offset \(dataOffset)) exceeds the file (\(bytes.count) bytes)"
            )
        }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        func channel(_ value: UInt32, _ mask: UInt32) -> UInt8 {
            guard mask != 0 else { return 0 }
            let shift = UInt32(mask.trailingZeroBitCount)
            let maximum = mask >> shift
            let bits = 32 - maximum.leadingZeroBitCount
            let sample = (value & mask) >> shift
            return bits >= 8 ? UInt8(truncatingIfNeeded: sample >> UInt32(bits - 8)) : UInt8(sample * 255 / maximum)
        }
        for y in 0..<height {
            let row = dataOffset + (topDown ? y : height - 1 - y) * rowBytes
            var o = y * width * 3
            for x in 0..<width {
                let r: UInt8
                let g: UInt8
                let b: UInt8
                switch bitCount {
                case 24:
                    let p = row + x * 3
                    (r, g, b) = (bytes[p + 2], bytes[p + 1], bytes[p])
                case 32:
                    let p = row + x * 4
                    let v =
                        UInt32(bytes[p]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p + 2]) << 16 | UInt32(bytes[p + 3])
                        << 24
                    (r, g, b) = (channel(v, masks.0), channel(v, masks.1), channel(v, masks.2))
                default:
                    let bit = x * bitCount
                    let byte = Int(bytes[row + bit / 8])
                    let index = (byte >> (8 - bitCount - bit % 8)) & ((1 << bitCount) - 1)
                    guard index < palette.count else {
                        throw fail("palette index \(index) at (\(x), \(y)) is out of range (\(palette.count) colours)")
                    }
                    (r, g, b) = palette[index]
                }
                out[o] = r
                out[o + 1] = g
                out[o + 2] = b
                o += 3
            }
        }
        return try PixelBuffer(bytes: out, width: width, height: height, format: .rgb8)
    }
}

/// Reads the stored (uncompressed) zip archive that metadata writers append to a model file.
///
/// Offsets in the archive are taken relative to where the archive really starts (writers that
/// append to an existing file record them either way), every structure is bounds-checked, and each
/// entry's CRC-32 is verified. Compressed, encrypted and ZIP64 entries are rejected.
enum ZipArchive {
    struct Entry {
        let name: String
        /// Byte range of the entry's data within the whole file.
        let range: Range<Int>
    }

    static func entries(in bytes: UnsafeRawBufferPointer) throws -> [Entry] {
        func fail(_ detail: String) -> MetadataError { .invalidArchive(detail: detail) }
        func u16(_ at: Int) -> Int { Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian) }
        func u32(_ at: Int) -> Int { Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian) }
        func check(_ at: Int, _ length: Int, _ what: String) throws {
            guard at >= 0, length >= 0, at <= bytes.count, length <= bytes.count - at else {
                throw fail("\(what): \(length) bytes at offset \(at) lie outside the file (\(bytes.count) bytes)")
            }
        }
        // The end-of-central-directory record ends the file exactly (after its comment).
        guard bytes.count >= 22 else { return [] }
        var eocd: Int?
        var p = bytes.count - 22
        let lowest = max(0, bytes.count - 22 - 0xFFFF)
        while p >= lowest {
            if u32(p) == 0x0605_4B50, p + 22 + u16(p + 20) == bytes.count {
                eocd = p
                break
            }
            p -= 1
        }
        guard let end = eocd else { return [] }
        let count = u16(end + 10)
        let directorySize = u32(end + 12)
        let directoryOffset = u32(end + 16)
        guard u16(end + 4) == 0, u16(end + 6) == 0, u16(end + 8) == count else {
            throw fail("multi-disk archives are not supported")
        }
        guard directoryOffset != 0xFFFF_FFFF, directorySize != 0xFFFF_FFFF, count != 0xFFFF else {
            throw fail("ZIP64 archives are not supported")
        }
        let shift = end - directorySize - directoryOffset
        guard shift >= 0 else {
            throw fail(
                "central directory (\(directorySize) bytes at \(directoryOffset)) overlaps its end record at \(end)")
        }
        var entries = [Entry]()
        var c = directoryOffset + shift
        for i in 0..<count {
            let what = "central directory entry \(i)"
            try check(c, 46, what)
            guard u32(c) == 0x0201_4B50 else { throw fail("\(what) at offset \(c) has a bad signature") }
            let flags = u16(c + 8)
            let method = u16(c + 10)
            let crc = UInt32(u32(c + 16))
            let compressed = u32(c + 20)
            let size = u32(c + 24)
            let nameLength = u16(c + 28)
            let extraLength = u16(c + 30)
            let commentLength = u16(c + 32)
            let local = u32(c + 42) + shift
            try check(c + 46, nameLength, "\(what) name")
            let name = String(
                decoding: UnsafeRawBufferPointer(rebasing: bytes[(c + 46)..<(c + 46 + nameLength)]), as: UTF8.self)
            guard flags & 1 == 0 else { throw fail("'\(name)' is encrypted") }
            guard method == 0, compressed == size else {
                throw fail("'\(name)' is compressed (method \(method)); metadata files must be stored")
            }
            try check(local, 30, "local header of '\(name)'")
            guard u32(local) == 0x0403_4B50 else {
                throw fail("local header of '\(name)' at offset \(local) has a bad signature")
            }
            let start = local + 30 + u16(local + 26) + u16(local + 28)
            try check(start, size, "data of '\(name)'")
            guard start + size <= end - directorySize else {
                throw fail("data of '\(name)' overlaps the central directory")
            }
            let range = start..<(start + size)
            let actual = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[range]))
            guard actual == crc else {
                throw fail(
                    "'\(name)' fails its CRC check (stored \(String(crc, radix: 16)), computed \(String(actual, radix: 16)))"
                )
            }
            entries.append(Entry(name: name, range: range))
            c += 46 + nameLength + extraLength + commentLength
        }
        return entries
    }
}

/// The CRC-32 of zip (polynomial 0xEDB88320).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

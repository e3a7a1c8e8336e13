/// TensorFlow Lite's string tensor layout: an int32 count `n`, then `n + 1` int32 byte offsets from
/// the start of the buffer (the last is the buffer's length), then the strings' bytes back to back.
/// Every offset is checked before use: a malformed buffer throws, it never traps.
enum StringTensor {
    /// The strings (as bytes) of a buffer in TFLite's string format, checked against `count`
    /// elements when given.
    static func decode(_ raw: UnsafeRawBufferPointer, count expected: Int? = nil, what: String) throws -> [[UInt8]] {
        guard raw.count >= 4 else { throw RuntimeError("\(what): a string tensor needs at least 4 bytes, has \(raw.count)") }
        let n = Int(raw.loadUnaligned(fromByteOffset: 0, as: Int32.self))
        guard n >= 0, (n + 2) * 4 <= raw.count else {
            throw RuntimeError("\(what): string count \(n) does not fit \(raw.count) bytes")
        }
        if let expected, expected != n {
            throw RuntimeError("\(what): holds \(n) strings for \(expected) elements")
        }
        var strings = [[UInt8]]()
        strings.reserveCapacity(n)
        var previous = Int(raw.loadUnaligned(fromByteOffset: 4, as: Int32.self))
        guard previous == (n + 2) * 4 else {
            throw RuntimeError("\(what): the first string starts at \(previous), not after the \(n + 2) header words")
        }
        for i in 0..<n {
            let next = Int(raw.loadUnaligned(fromByteOffset: 4 * (i + 2), as: Int32.self))
            guard next >= previous, next <= raw.count else {
                throw RuntimeError("\(what): string \(i) ends at \(next), outside \(previous)...\(raw.count)")
            }
            strings.append(Array(raw[previous..<next]))
            previous = next
        }
        return strings
    }

    /// The TFLite string-format bytes of `strings`.
    static func encode(_ strings: [[UInt8]]) -> [UInt8] {
        let header = (strings.count + 2) * 4
        var bytes = [UInt8]()
        bytes.reserveCapacity(header + strings.reduce(0) { $0 + $1.count })
        func append(_ v: Int) { withUnsafeBytes(of: Int32(truncatingIfNeeded: v).littleEndian) { bytes.append(contentsOf: $0) } }
        append(strings.count)
        var offset = header
        append(offset)
        for s in strings {
            offset += s.count
            append(offset)
        }
        for s in strings { bytes.append(contentsOf: s) }
        return bytes
    }
}

extension RuntimeTensor {
    /// The strings of a string tensor (one per element).
    func strings(_ what: String) throws -> [[UInt8]] {
        guard type == .string else { throw RuntimeError("\(what) is \(type.name), not a string tensor") }
        guard data != nil else { throw RuntimeError("\(what) has no data") }
        return try StringTensor.decode(UnsafeRawBufferPointer(raw), count: elementCount, what: what)
    }

    /// Stores `strings` in this string tensor (in its own block sized for them).
    func setStrings(_ strings: [[UInt8]]) throws {
        let bytes = StringTensor.encode(strings)
        try allocateOwned(byteCount: bytes.count)
        bytes.withUnsafeBytes { source in
            if let s = source.baseAddress, let d = data { d.copyMemory(from: s, byteCount: bytes.count) }
        }
    }
}

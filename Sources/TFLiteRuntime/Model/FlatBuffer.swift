/// A bounds-checked view of one FlatBuffer table.
///
/// FlatBuffers are read in place: a table is a signed offset to its vtable followed by its fields,
/// and reference fields hold unsigned offsets relative to their own position. Every read below is
/// checked against the buffer, so a hostile file can make reading fail but never read out of
/// bounds. Reads are unaligned-safe.
struct FlatTable {
    let bytes: UnsafeRawBufferPointer
    let position: Int
    private let vtable: Int
    private let vtableSize: Int
    private let tableSize: Int
    /// Human-readable location used in error messages, e.g. "subgraph 0 tensor 3".
    let what: String

    init(bytes: UnsafeRawBufferPointer, position: Int, what: String) throws {
        self.bytes = bytes
        self.position = position
        self.what = what
        try FlatTable.check(bytes, position, 4, what)
        let soffset = Int(bytes.loadUnaligned(fromByteOffset: position, as: Int32.self))
        let vt = position - soffset
        try FlatTable.check(bytes, vt, 4, "\(what) (vtable)")
        let vsize = Int(bytes.loadUnaligned(fromByteOffset: vt, as: UInt16.self))
        let tsize = Int(bytes.loadUnaligned(fromByteOffset: vt + 2, as: UInt16.self))
        guard vsize >= 4, vsize % 2 == 0 else {
            throw ModelError.invalidValue(what: "\(what) (vtable)", detail: "vtable size \(vsize) is invalid")
        }
        try FlatTable.check(bytes, vt, vsize, "\(what) (vtable)")
        guard tsize >= 4 else {
            throw ModelError.invalidValue(what: what, detail: "table size \(tsize) is invalid")
        }
        try FlatTable.check(bytes, position, tsize, what)
        vtable = vt
        vtableSize = vsize
        tableSize = tsize
    }

    /// Throws unless `length` bytes at `offset` are inside `bytes`. `what` is only built for the error:
    /// models have thousands of fields, and formatting a location string for every read showed up in
    /// the profile of loading MobileNetV2.
    static func check(
        _ bytes: UnsafeRawBufferPointer, _ offset: Int, _ length: Int, _ what: @autoclosure () -> String
    ) throws {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else {
            throw ModelError.outOfBounds(what: what(), offset: offset, length: length, fileSize: bytes.count)
        }
    }

    /// Position of field `index` within the buffer, or nil when the field is absent.
    private func fieldPosition(_ index: Int, size: Int) throws -> Int? {
        let entry = 4 + 2 * index
        guard entry + 2 <= vtableSize else { return nil }
        let off = Int(bytes.loadUnaligned(fromByteOffset: vtable + entry, as: UInt16.self))
        guard off != 0 else { return nil }
        guard off + size <= tableSize else {
            throw ModelError.outOfBounds(
                what: "\(what) field \(index)", offset: position + off, length: size, fileSize: bytes.count)
        }
        return position + off
    }

    /// Byte position of scalar field `index` in the buffer, or nil when absent (used by tests that patch files).
    func position(ofField index: Int, size: Int) throws -> Int? { try fieldPosition(index, size: size) }

    func has(_ index: Int) -> Bool {
        let entry = 4 + 2 * index
        guard entry + 2 <= vtableSize else { return false }
        return bytes.loadUnaligned(fromByteOffset: vtable + entry, as: UInt16.self) != 0
    }

    func scalar<T: FixedWidthInteger>(_ index: Int, _ defaultValue: T) throws -> T {
        guard let p = try fieldPosition(index, size: MemoryLayout<T>.size) else { return defaultValue }
        return bytes.loadUnaligned(fromByteOffset: p, as: T.self)
    }

    func int32(_ index: Int, _ defaultValue: Int32 = 0) throws -> Int32 { try scalar(index, defaultValue) }
    func uint32(_ index: Int, _ defaultValue: UInt32 = 0) throws -> UInt32 { try scalar(index, defaultValue) }
    func int8(_ index: Int, _ defaultValue: Int8 = 0) throws -> Int8 { try scalar(index, defaultValue) }
    func uint8(_ index: Int, _ defaultValue: UInt8 = 0) throws -> UInt8 { try scalar(index, defaultValue) }
    func int64(_ index: Int, _ defaultValue: Int64 = 0) throws -> Int64 { try scalar(index, defaultValue) }
    func uint64(_ index: Int, _ defaultValue: UInt64 = 0) throws -> UInt64 { try scalar(index, defaultValue) }
    func bool(_ index: Int, _ defaultValue: Bool = false) throws -> Bool {
        try scalar(index, UInt8(defaultValue ? 1 : 0)) != 0
    }
    func float(_ index: Int, _ defaultValue: Float = 0) throws -> Float {
        guard let p = try fieldPosition(index, size: 4) else { return defaultValue }
        return Float(bitPattern: bytes.loadUnaligned(fromByteOffset: p, as: UInt32.self))
    }

    /// Follows the reference stored in field `index`; nil when absent.
    private func reference(_ index: Int) throws -> Int? {
        guard let p = try fieldPosition(index, size: 4) else { return nil }
        let rel = Int(bytes.loadUnaligned(fromByteOffset: p, as: UInt32.self))
        let target = p + rel
        try FlatTable.check(bytes, target, 4, "\(what) field \(index)")
        return target
    }

    /// The table field `index` refers to; nil when absent. `name` is its location for errors.
    func table(_ index: Int, what name: @autoclosure () -> String) throws -> FlatTable? {
        guard let target = try reference(index) else { return nil }
        return try FlatTable(bytes: bytes, position: target, what: name())
    }

    func string(_ index: Int) throws -> String? {
        guard let target = try reference(index) else { return nil }
        let length = Int(bytes.loadUnaligned(fromByteOffset: target, as: UInt32.self))
        try FlatTable.check(bytes, target + 4, length, "\(what) field \(index) (string)")
        let slice = UnsafeRawBufferPointer(rebasing: bytes[(target + 4)..<(target + 4 + length)])
        return String(decoding: slice, as: UTF8.self)
    }

    /// The element range of a vector field: (position of first element, element count).
    func vector(_ index: Int, elementSize: Int) throws -> (start: Int, count: Int)? {
        guard let target = try reference(index) else { return nil }
        let count = Int(bytes.loadUnaligned(fromByteOffset: target, as: UInt32.self))
        let (total, overflow) = count.multipliedReportingOverflow(by: elementSize)
        guard !overflow else {
            throw ModelError.invalidValue(what: "\(what) field \(index)", detail: "vector length \(count) overflows")
        }
        try FlatTable.check(bytes, target + 4, total, "\(what) field \(index) (vector of \(count))")
        return (target + 4, count)
    }

    func scalarVector<T: FixedWidthInteger & BitwiseCopyable>(_ index: Int, as: T.Type) throws -> [T]? {
        try copiedVector(index, as: T.self)
    }

    func int32Vector(_ index: Int) throws -> [Int32]? { try scalarVector(index, as: Int32.self) }

    func floatVector(_ index: Int) throws -> [Float]? { try copiedVector(index, as: Float.self) }

    /// A vector of fixed-size scalars, copied out in one piece (FlatBuffers are little-endian, like
    /// every host this runtime builds for; the reads above assume it too).
    private func copiedVector<T: BitwiseCopyable>(_ index: Int, as: T.Type) throws -> [T]? {
        guard let (start, count) = try vector(index, elementSize: MemoryLayout<T>.size) else { return nil }
        guard count > 0, let base = bytes.baseAddress else { return [] }
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(
                from: UnsafeRawBufferPointer(start: base + start, count: count * MemoryLayout<T>.size))
            initialized = count
        }
    }

    /// Tables stored in a vector field; `name(i)` gives each element's location for errors.
    func tableVector(_ index: Int, name: (Int) -> String) throws -> [FlatTable] {
        guard let (start, count) = try vector(index, elementSize: 4) else { return [] }
        var tables = [FlatTable]()
        tables.reserveCapacity(count)
        for i in 0..<count {
            let p = start + 4 * i
            let target = p + Int(bytes.loadUnaligned(fromByteOffset: p, as: UInt32.self))
            tables.append(try FlatTable(bytes: bytes, position: target, what: name(i)))
        }
        return tables
    }

    /// The byte range of a `[ubyte]` vector field.
    func byteRange(_ index: Int) throws -> Range<Int>? {
        guard let (start, count) = try vector(index, elementSize: 1) else { return nil }
        return start..<(start + count)
    }
}

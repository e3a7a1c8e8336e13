/// A bounds-checked reader for FlexBuffers, the schemaless format of custom operator options.
///
/// Layout (from the FlatBuffers documentation): the last byte of a buffer is the byte width of the
/// root, the byte before it the root's packed type (`type << 2 | log2(width)`), and the root value
/// sits just before those two bytes. Scalars are stored inline at the width of their parent;
/// everything else is reached through an unsigned offset that points backwards from where it is
/// stored. Vectors are preceded by their length; untyped vectors are followed by one packed type byte
/// per element; maps are untyped vectors preceded by (offset to keys vector, keys byte width, length).
///
/// Every read is checked against the buffer: a malformed buffer throws a `FlexBufferError` that says
/// what was being read and where, and never reads out of bounds.
struct FlexBuffer {
    /// The value types of the format, by their numbers in the specification.
    enum ValueType: UInt8, Sendable {
        case null = 0, int = 1, uint = 2, float = 3, key = 4, string = 5
        case indirectInt = 6, indirectUInt = 7, indirectFloat = 8
        case map = 9, vector = 10
        case vectorInt = 11, vectorUInt = 12, vectorFloat = 13, vectorKey = 14, vectorStringDeprecated = 15
        case vectorInt2 = 16, vectorUInt2 = 17, vectorFloat2 = 18
        case vectorInt3 = 19, vectorUInt3 = 20, vectorFloat3 = 21
        case vectorInt4 = 22, vectorUInt4 = 23, vectorFloat4 = 24
        case blob = 25, bool = 26, vectorBool = 36

        var isTypedVector: Bool { (11...15).contains(rawValue) || self == .vectorBool }
        var isFixedTypedVector: Bool { (16...24).contains(rawValue) }
        var isVectorLike: Bool {
            self == .vector || self == .map || isTypedVector || isFixedTypedVector
        }

        /// Element type of a typed vector.
        var typedElementType: ValueType? {
            switch self {
            case .vectorInt, .vectorInt2, .vectorInt3, .vectorInt4: return .int
            case .vectorUInt, .vectorUInt2, .vectorUInt3, .vectorUInt4: return .uint
            case .vectorFloat, .vectorFloat2, .vectorFloat3, .vectorFloat4: return .float
            case .vectorKey: return .key
            case .vectorStringDeprecated: return .string
            case .vectorBool: return .bool
            default: return nil
            }
        }

        /// Element count of a fixed-length typed vector.
        var fixedLength: Int? {
            switch self {
            case .vectorInt2, .vectorUInt2, .vectorFloat2: return 2
            case .vectorInt3, .vectorUInt3, .vectorFloat3: return 3
            case .vectorInt4, .vectorUInt4, .vectorFloat4: return 4
            default: return nil
            }
        }
    }

    /// Values are nested at most this deep; deeper (or cyclic) buffers are rejected.
    static let maxDepth = 64

    let bytes: UnsafeRawBufferPointer
    /// Human-readable owner used in error messages, e.g. "node 12 custom options".
    let what: String

    init(bytes: UnsafeRawBufferPointer, what: String = "FlexBuffer") {
        self.bytes = bytes
        self.what = what
    }

    /// The root value of the buffer.
    func root() throws -> FlexReference {
        let n = bytes.count
        guard n >= 3 else {
            throw FlexBufferError.tooSmall(what: what, size: n)
        }
        let width = Int(bytes[n - 1])
        guard width == 1 || width == 2 || width == 4 || width == 8 else {
            throw FlexBufferError.invalid(what: "\(what) root", offset: n - 1, detail: "root byte width \(width) is not 1, 2, 4 or 8")
        }
        let packed = bytes[n - 2]
        let position = n - 2 - width
        try check(position, width, "\(what) root")
        return try FlexReference(buffer: self, position: position, parentWidth: width, packedType: packed, path: "root", depth: 0)
    }

    // MARK: - Checked primitive reads

    func check(_ offset: Int, _ length: Int, _ context: String) throws {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else {
            throw FlexBufferError.outOfBounds(what: "\(what) \(context)", offset: offset, length: length, size: bytes.count)
        }
    }

    func readUInt(_ offset: Int, width: Int, _ context: String) throws -> UInt64 {
        try check(offset, width, context)
        switch width {
        case 1: return UInt64(bytes[offset])
        case 2: return UInt64(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default:
            throw FlexBufferError.invalid(what: "\(what) \(context)", offset: offset, detail: "byte width \(width) is invalid")
        }
    }

    func readInt(_ offset: Int, width: Int, _ context: String) throws -> Int64 {
        let u = try readUInt(offset, width: width, context)
        switch width {
        case 1: return Int64(Int8(truncatingIfNeeded: u))
        case 2: return Int64(Int16(truncatingIfNeeded: u))
        case 4: return Int64(Int32(truncatingIfNeeded: u))
        default: return Int64(bitPattern: u)
        }
    }

    func readFloat(_ offset: Int, width: Int, _ context: String) throws -> Double {
        let u = try readUInt(offset, width: width, context)
        switch width {
        case 4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: u)))
        case 8: return Double(bitPattern: u)
        default:
            throw FlexBufferError.invalid(
                what: "\(what) \(context)", offset: offset, detail: "a float cannot be \(width) bytes wide")
        }
    }

    /// Follows the backwards offset stored at `offset` (`width` bytes wide).
    func indirect(_ offset: Int, width: Int, _ context: String) throws -> Int {
        let rel = try readUInt(offset, width: width, context)
        guard rel <= UInt64(offset) else {
            throw FlexBufferError.outOfBounds(what: "\(what) \(context)", offset: offset - Int(clamping: rel), length: 1, size: bytes.count)
        }
        let target = offset - Int(rel)
        try check(target, 0, context)
        return target
    }

    /// A NUL-terminated string starting at `offset`.
    func cString(at offset: Int, _ context: String) throws -> String {
        try check(offset, 0, context)
        var end = offset
        while true {
            guard end < bytes.count else {
                throw FlexBufferError.invalid(what: "\(what) \(context)", offset: offset, detail: "key is not NUL-terminated")
            }
            if bytes[end] == 0 { break }
            end += 1
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self)
    }
}

/// Why a FlexBuffer could not be read.
enum FlexBufferError: Error, Equatable, CustomStringConvertible {
    case tooSmall(what: String, size: Int)
    case outOfBounds(what: String, offset: Int, length: Int, size: Int)
    case invalid(what: String, offset: Int, detail: String)
    case tooDeep(what: String, depth: Int)

    var description: String {
        switch self {
        case .tooSmall(let what, let size):
            return "\(what): \(size) bytes is too small for a FlexBuffer (at least 3 needed)"
        case .outOfBounds(let what, let offset, let length, let size):
            return "\(what): \(length) bytes at offset \(offset) lie outside the buffer (\(size) bytes)"
        case .invalid(let what, let offset, let detail):
            return "\(what) at offset \(offset): \(detail)"
        case .tooDeep(let what, let depth):
            return "\(what): values are nested more than \(depth) deep (cyclic or hostile buffer)"
        }
    }
}

/// One value of a FlexBuffer: where it is stored, the width of its slot and its packed type.
struct FlexReference {
    let buffer: FlexBuffer
    /// Where the value (inline scalar) or the offset to it is stored.
    let position: Int
    /// Width of the slot at `position`.
    let parentWidth: Int
    /// Width from the packed type: of the indirect scalar, or of a vector's elements.
    let byteWidth: Int
    let type: FlexBuffer.ValueType
    /// Where this value is in the tree, e.g. `root["scales"][2]`, for error messages.
    let path: String
    let depth: Int

    init(buffer: FlexBuffer, position: Int, parentWidth: Int, packedType: UInt8, path: String, depth: Int) throws {
        guard depth <= FlexBuffer.maxDepth else {
            throw FlexBufferError.tooDeep(what: "\(buffer.what) \(path)", depth: FlexBuffer.maxDepth)
        }
        guard let t = FlexBuffer.ValueType(rawValue: packedType >> 2) else {
            throw FlexBufferError.invalid(
                what: "\(buffer.what) \(path)", offset: position, detail: "unknown value type \(packedType >> 2)")
        }
        self.init(buffer: buffer, position: position, parentWidth: parentWidth, byteWidth: 1 << Int(packedType & 3),
                  type: t, path: path, depth: depth)
    }

    init(buffer: FlexBuffer, position: Int, parentWidth: Int, byteWidth: Int, type: FlexBuffer.ValueType, path: String, depth: Int) {
        self.buffer = buffer
        self.position = position
        self.parentWidth = parentWidth
        self.byteWidth = byteWidth
        self.type = type
        self.path = path
        self.depth = depth
    }

    var isNull: Bool { type == .null }

    private func target() throws -> Int { try buffer.indirect(position, width: parentWidth, path) }

    // MARK: - Scalars (conversions follow flexbuffers.h)

    /// The value as a signed integer, converting like FlexBuffers' `AsInt64`.
    func asInt64() throws -> Int64 {
        switch type {
        case .int: return try buffer.readInt(position, width: parentWidth, path)
        case .uint, .bool: return Int64(bitPattern: try buffer.readUInt(position, width: parentWidth, path))
        case .float: return Self.truncate(try buffer.readFloat(position, width: parentWidth, path))
        case .indirectInt: return try buffer.readInt(target(), width: byteWidth, path)
        case .indirectUInt: return Int64(bitPattern: try buffer.readUInt(target(), width: byteWidth, path))
        case .indirectFloat: return Self.truncate(try buffer.readFloat(target(), width: byteWidth, path))
        case .null: return 0
        case .string: return Int64(try asString().trimmingCharacters(in: " ")) ?? 0
        case .vector, .map, .vectorInt, .vectorUInt, .vectorFloat, .vectorKey, .vectorStringDeprecated, .vectorBool:
            return Int64(try vectorCount())
        default: return 0
        }
    }

    func asUInt64() throws -> UInt64 {
        switch type {
        case .uint, .bool: return try buffer.readUInt(position, width: parentWidth, path)
        case .indirectUInt: return try buffer.readUInt(target(), width: byteWidth, path)
        default: return UInt64(bitPattern: try asInt64())
        }
    }

    /// The value as `Int32`, truncating like a C++ `static_cast` of `AsInt64`.
    func asInt32() throws -> Int32 { Int32(truncatingIfNeeded: try asInt64()) }

    func asDouble() throws -> Double {
        switch type {
        case .float: return try buffer.readFloat(position, width: parentWidth, path)
        case .indirectFloat: return try buffer.readFloat(target(), width: byteWidth, path)
        case .int: return Double(try buffer.readInt(position, width: parentWidth, path))
        case .uint, .bool: return Double(try buffer.readUInt(position, width: parentWidth, path))
        case .indirectInt: return Double(try buffer.readInt(target(), width: byteWidth, path))
        case .indirectUInt: return Double(try buffer.readUInt(target(), width: byteWidth, path))
        case .null: return 0
        case .string: return Double(try asString()) ?? 0
        case .vector, .map, .vectorInt, .vectorUInt, .vectorFloat, .vectorKey, .vectorStringDeprecated, .vectorBool:
            return Double(try vectorCount())
        default: return 0
        }
    }

    /// The value as `Float` (FlexBuffers' `AsFloat` narrows the double).
    func asFloat() throws -> Float { Float(try asDouble()) }

    func asBool() throws -> Bool {
        switch type {
        case .bool, .uint: return try buffer.readUInt(position, width: parentWidth, path) != 0
        case .int: return try buffer.readInt(position, width: parentWidth, path) != 0
        case .null: return false
        default: return try asUInt64() != 0
        }
    }

    /// A string or key value.
    func asString() throws -> String {
        switch type {
        case .key:
            return try buffer.cString(at: try target(), path)
        case .string, .blob:
            let start = try target()
            let length = try buffer.readUInt(start - byteWidth, width: byteWidth, "\(path) (length)")
            guard length <= UInt64(buffer.bytes.count) else {
                throw FlexBufferError.outOfBounds(what: "\(buffer.what) \(path)", offset: start, length: Int(clamping: length), size: buffer.bytes.count)
            }
            try buffer.check(start, Int(length), path)
            return String(decoding: UnsafeRawBufferPointer(rebasing: buffer.bytes[start..<(start + Int(length))]), as: UTF8.self)
        default:
            throw FlexBufferError.invalid(what: "\(buffer.what) \(path)", offset: position, detail: "expected a string, found \(type)")
        }
    }

    private static func truncate(_ d: Double) -> Int64 {
        guard d.isFinite else { return d.isNaN ? 0 : (d > 0 ? .max : .min) }
        if d >= 9.2233720368547758e18 { return .max }
        if d <= -9.2233720368547758e18 { return .min }
        return Int64(d)
    }

    // MARK: - Vectors and maps

    /// Start of a vector's elements and its length.
    private func vectorLayout() throws -> (start: Int, count: Int) {
        guard type.isVectorLike || type == .string || type == .blob else {
            throw FlexBufferError.invalid(what: "\(buffer.what) \(path)", offset: position, detail: "expected a vector, found \(type)")
        }
        let start = try target()
        if let fixed = type.fixedLength {
            return (start, fixed)
        }
        let count = try buffer.readUInt(start - byteWidth, width: byteWidth, "\(path) (length)")
        guard count <= UInt64(buffer.bytes.count) else {
            throw FlexBufferError.invalid(what: "\(buffer.what) \(path)", offset: start - byteWidth, detail: "length \(count) exceeds the buffer")
        }
        return (start, Int(count))
    }

    /// Number of elements of a vector or map.
    func vectorCount() throws -> Int { try vectorLayout().count }

    /// Element `i` of a vector (untyped, typed or fixed) or map (its values, in key order).
    func element(_ i: Int) throws -> FlexReference {
        let (start, count) = try vectorLayout()
        guard i >= 0, i < count else {
            throw FlexBufferError.invalid(what: "\(buffer.what) \(path)", offset: start, detail: "index \(i) is out of range (length \(count))")
        }
        let (elementsBytes, overflow) = count.multipliedReportingOverflow(by: byteWidth)
        guard !overflow else {
            throw FlexBufferError.invalid(what: "\(buffer.what) \(path)", offset: start, detail: "length \(count) overflows")
        }
        try buffer.check(start, elementsBytes, "\(path) (elements)")
        let childPath = "\(path)[\(i)]"
        let position = start + i * byteWidth
        if type == .vector || type == .map {
            let typesStart = start + elementsBytes
            try buffer.check(typesStart, count, "\(path) (element types)")
            let packed = buffer.bytes[typesStart + i]
            return try FlexReference(
                buffer: buffer, position: position, parentWidth: byteWidth, packedType: packed, path: childPath, depth: depth + 1)
        }
        guard let elementType = type.typedElementType else {
            throw FlexBufferError.invalid(what: "\(buffer.what) \(path)", offset: position, detail: "\(type) has no elements")
        }
        return FlexReference(
            buffer: buffer, position: position, parentWidth: byteWidth, byteWidth: 1, type: elementType, path: childPath,
            depth: depth + 1)
    }

    /// All elements of a vector.
    func elements() throws -> [FlexReference] {
        let n = try vectorCount()
        return try (0..<n).map { try element($0) }
    }

    /// The keys of a map, in stored order.
    func mapKeys() throws -> [String] {
        guard type == .map else {
            throw FlexBufferError.invalid(what: "\(buffer.what) \(path)", offset: position, detail: "expected a map, found \(type)")
        }
        let start = try target()
        let keysSlot = start - 3 * byteWidth
        let keysStart = try buffer.indirect(keysSlot, width: byteWidth, "\(path) (keys offset)")
        let keysWidth = Int(try buffer.readUInt(start - 2 * byteWidth, width: byteWidth, "\(path) (keys width)"))
        guard [1, 2, 4, 8].contains(keysWidth) else {
            throw FlexBufferError.invalid(what: "\(buffer.what) \(path)", offset: start - 2 * byteWidth, detail: "keys byte width \(keysWidth) is invalid")
        }
        let count = try vectorCount()
        let (keysBytes, overflow) = count.multipliedReportingOverflow(by: keysWidth)
        guard !overflow else {
            throw FlexBufferError.invalid(what: "\(buffer.what) \(path)", offset: keysStart, detail: "key count \(count) overflows")
        }
        try buffer.check(keysStart, keysBytes, "\(path) (keys)")
        var keys = [String]()
        keys.reserveCapacity(count)
        for i in 0..<count {
            let slot = keysStart + i * keysWidth
            let keyStart = try buffer.indirect(slot, width: keysWidth, "\(path) key \(i)")
            keys.append(try buffer.cString(at: keyStart, "\(path) key \(i)"))
        }
        return keys
    }

    /// The value stored under `key` in a map, or nil when the key is absent (FlexBuffers' null).
    func value(forKey key: String) throws -> FlexReference? {
        let keys = try mapKeys()
        guard let i = keys.firstIndex(of: key) else { return nil }
        let v = try element(i)
        return FlexReference(
            buffer: v.buffer, position: v.position, parentWidth: v.parentWidth, byteWidth: v.byteWidth, type: v.type,
            path: "\(path)[\"\(key)\"]", depth: v.depth)
    }

    /// `self[key]` like flexbuffers' Map: a null reference when absent.
    func lookup(_ key: String) throws -> FlexReference {
        if let v = try value(forKey: key) { return v }
        return FlexReference(buffer: buffer, position: position, parentWidth: parentWidth, byteWidth: 1, type: .null,
                             path: "\(path)[\"\(key)\"]", depth: depth + 1)
    }
}

private extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return String(s)
    }
}

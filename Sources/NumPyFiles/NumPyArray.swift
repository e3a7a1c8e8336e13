import Foundation
import TFLiteRuntime

/// An n-dimensional array in NumPy's `.npy` format: the interchange format of `mlkit run` and of
/// the parity fixtures. It lives in its own module, used by the command-line tool and the tests,
/// so the runtime's public API stays TensorFlowLiteSwift's.
///
/// Reads format versions 1.0–3.0 (C order, little-endian or byte-order-free dtypes) and writes 1.0.
/// Supported dtypes: `f4 f2 f8 i1 u1 i2 u2 i4 u4 i8 u8 b1 c8 c16` (c8: complex64, c16: complex128).
public struct NumPyArray: Equatable, Sendable {
    /// The element type.
    public var type: TensorType
    public var shape: [Int]
    /// Elements in row-major order, little-endian.
    public var data: Data

    public init(type: TensorType, shape: [Int], data: Data) {
        self.type = type
        self.shape = shape
        self.data = data
    }

    /// Why an `.npy` file could not be read or written.
    public enum FormatError: Error, Equatable, CustomStringConvertible {
        case notNumPy(String)
        case unsupportedDType(String)
        case fortranOrder
        case sizeMismatch(expected: Int, actual: Int)

        public var description: String {
            switch self {
            case .notNumPy(let why): return "not a NumPy .npy file: \(why)"
            case .unsupportedDType(let d): return "unsupported NumPy dtype '\(d)' (supported: f4 f2 f8 i1 u1 i2 u2 i4 u4 i8 u8 b1 c8 c16)"
            case .fortranOrder: return "Fortran-ordered arrays are not supported; save with C order"
            case .sizeMismatch(let e, let a): return "the header promises \(e) data bytes but the file has \(a)"
            }
        }
    }

    private static let dtypes: [String: TensorType] = [
        "f4": .float32, "f2": .float16, "f8": .float64, "i1": .int8, "u1": .uint8, "i2": .int16, "u2": .uint16,
        "i4": .int32, "u4": .uint32, "i8": .int64, "u8": .uint64, "b1": .bool,
        "c8": .complex64, "c16": .complex128,
    ]

    private static func descr(for type: TensorType) -> String? {
        switch type {
        case .bool: return "|b1"
        case .int8: return "|i1"
        case .uint8: return "|u1"
        default: return dtypes.first { $0.value == type }.map { "<" + $0.key }
        }
    }

    /// Parses `.npy` bytes.
    public init(npy bytes: Data) throws {
        let b = [UInt8](bytes)
        guard b.count >= 10, b[0] == 0x93, Array(b[1..<6]) == Array("NUMPY".utf8) else {
            throw FormatError.notNumPy("missing the \\x93NUMPY magic")
        }
        let major = b[6]
        let headerStart: Int
        let headerLength: Int
        if major == 1 {
            headerLength = Int(b[8]) | Int(b[9]) << 8
            headerStart = 10
        } else if major == 2 || major == 3 {
            guard b.count >= 12 else { throw FormatError.notNumPy("truncated header") }
            headerLength = Int(b[8]) | Int(b[9]) << 8 | Int(b[10]) << 16 | Int(b[11]) << 24
            headerStart = 12
        } else {
            throw FormatError.notNumPy("unknown format version \(major)")
        }
        guard headerLength <= b.count - headerStart else { throw FormatError.notNumPy("truncated header") }
        let header = String(decoding: b[headerStart..<(headerStart + headerLength)], as: UTF8.self)
        guard let descr = NumPyArray.value(of: "descr", in: header) else { throw FormatError.notNumPy("no 'descr' in header") }
        var code = descr.trimmingCharacters(in: CharacterSet(charactersIn: "'\" "))
        if code.hasPrefix(">") && !code.hasSuffix("1") { throw FormatError.unsupportedDType(code) }
        if let first = code.first, "<|=>".contains(first) { code.removeFirst() }
        guard let type = NumPyArray.dtypes[code] else { throw FormatError.unsupportedDType(code) }
        if let fortran = NumPyArray.value(of: "fortran_order", in: header), fortran.hasPrefix("True") {
            throw FormatError.fortranOrder
        }
        guard let shapeText = NumPyArray.value(of: "shape", in: header) else { throw FormatError.notNumPy("no 'shape' in header") }
        let inner = shapeText.trimmingCharacters(in: CharacterSet(charactersIn: "() "))
        var shape = [Int]()
        for part in inner.split(separator: ",") {
            let t = part.trimmingCharacters(in: .whitespaces)
            if t.isEmpty { continue }
            guard let d = Int(t.hasSuffix("L") ? String(t.dropLast()) : t), d >= 0 else {
                throw FormatError.notNumPy("bad shape '\(shapeText)'")
            }
            shape.append(d)
        }
        var elements = 1
        for d in shape {
            let (p, o) = elements.multipliedReportingOverflow(by: d)
            guard !o, p < Int(Int32.max) * 8 else { throw FormatError.notNumPy("shape \(shape) is too large") }
            elements = p
        }
        let dataStart = headerStart + headerLength
        let expected = elements * type.byteSize
        let actual = b.count - dataStart
        guard actual == expected else { throw FormatError.sizeMismatch(expected: expected, actual: actual) }
        self.init(type: type, shape: shape, data: bytes.subdata(in: (bytes.startIndex + dataStart)..<bytes.endIndex))
    }

    /// Reads an `.npy` file.
    public init(contentsOf url: URL) throws {
        try self.init(npy: try Data(contentsOf: url))
    }

    /// The value text following `'key':` in a header dictionary (up to the next top-level comma).
    private static func value(of key: String, in header: String) -> String? {
        guard let range = header.range(of: "'\(key)'") ?? header.range(of: "\"\(key)\"") else { return nil }
        var rest = header[range.upperBound...].drop { $0 == " " || $0 == ":" }
        var depth = 0
        var out = ""
        while let c = rest.first {
            if c == "(" { depth += 1 }
            if c == ")" { depth -= 1 }
            if (c == "," && depth == 0) || c == "}" { break }
            out.append(c)
            rest = rest.dropFirst()
        }
        return out.trimmingCharacters(in: .whitespaces)
    }

    /// The array serialized as `.npy` version 1.0.
    public func npyData() throws -> Data {
        guard let descr = NumPyArray.descr(for: type) else { throw FormatError.unsupportedDType(type.numpyName) }
        let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(shapeText), }"
        let unpadded = 10 + header.utf8.count + 1
        header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
        var out = Data([0x93] + Array("NUMPY".utf8) + [1, 0])
        let length = UInt16(header.utf8.count)
        out.append(contentsOf: [UInt8(length & 0xff), UInt8(length >> 8)])
        out.append(contentsOf: Array(header.utf8))
        out.append(data)
        return out
    }

    /// Writes the array as an `.npy` file.
    public func write(to url: URL) throws {
        try npyData().write(to: url)
    }
}

extension NumPyArray {
    /// The contents of an interpreter tensor.
    public init(_ tensor: Tensor) {
        self.init(type: tensor.dataType.tensorType, shape: tensor.shape.dimensions, data: tensor.data)
    }

    /// The elements converted to `Double`, for comparisons and printing (complex: real and
    /// imaginary parts in turn, two values per element).
    public func doubleValues() -> [Double] {
        data.withUnsafeBytes { raw -> [Double] in
            let n = shape.reduce(1, *)
            func load<T>(_: T.Type, _ f: (T) -> Double) -> [Double] {
                (0..<n).map { f(raw.loadUnaligned(fromByteOffset: $0 * MemoryLayout<T>.size, as: T.self)) }
            }
            switch type {
            case .float32: return load(Float.self) { Double($0) }
            case .float64: return load(Double.self) { $0 }
            case .float16: return load(UInt16.self) { Double(Float(float16Bits: $0)) }
            case .int8: return load(Int8.self) { Double($0) }
            case .uint8: return load(UInt8.self) { Double($0) }
            case .int16: return load(Int16.self) { Double($0) }
            case .uint16: return load(UInt16.self) { Double($0) }
            case .int32: return load(Int32.self) { Double($0) }
            case .uint32: return load(UInt32.self) { Double($0) }
            case .int64: return load(Int64.self) { Double($0) }
            case .uint64: return load(UInt64.self) { Double($0) }
            case .bool: return load(UInt8.self) { $0 != 0 ? 1 : 0 }
            case .complex64:
                return (0..<(2 * n)).map { Double(raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self)) }
            case .complex128:
                return (0..<(2 * n)).map { raw.loadUnaligned(fromByteOffset: $0 * 8, as: Double.self) }
            default: return []
            }
        }
    }
}

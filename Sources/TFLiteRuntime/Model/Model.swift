import Foundation

/// A TensorFlow Lite model file, read and verified.
///
/// Loading checks every offset, length and index in the file before anything uses it: a truncated,
/// corrupted or hostile file throws a ``ModelError`` that says what is wrong and where. Weights are
/// not copied: a file is memory-mapped and constant tensors are read in place.
///
/// A `Model` is immutable and may be shared between threads and interpreters.
public final class Model: @unchecked Sendable {
    /// The schema version recorded in the file.
    public let version: Int
    /// The model's description string (often the converter's name).
    public let modelDescription: String
    public let operatorCodes: [OperatorCode]
    public let subgraphs: [ModelSubgraph]
    /// Byte ranges of the model's buffers within ``bytes``; buffer 0 is the empty sentinel.
    let bufferRanges: [Range<Int>]
    public let metadata: [ModelMetadataEntry]
    public let signatures: [ModelSignature]
    let bytes: ModelBytes

    /// Largest tensor (and arena) this runtime will allocate, in bytes: a guard against hostile shapes.
    static let maxTensorBytes = 1 << 32

    /// Loads and verifies the model at `path` (memory-mapped).
    public convenience init(path: String) throws {
        try self.init(bytes: ModelBytes(mappingFile: path))
    }

    /// Loads and verifies a model held in memory (copied once).
    public convenience init(data: Data) throws {
        try self.init(bytes: ModelBytes(copying: data))
    }

    init(bytes: ModelBytes) throws {
        self.bytes = bytes
        let buf = bytes.buffer
        guard buf.count >= 8 else { throw ModelError.tooSmall(size: buf.count) }
        let ident = String(decoding: UnsafeRawBufferPointer(rebasing: buf[4..<8]), as: UTF8.self)
        guard ident == "TFL3" else {
            let printable = ident.unicodeScalars.allSatisfy { $0.value >= 32 && $0.value < 127 }
            throw ModelError.wrongIdentifier(found: printable ? ident : buf[4..<8].map { String(format: "%02x", $0) }.joined())
        }
        let rootOffset = Int(buf.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
        let root = try FlatTable(bytes: buf, position: rootOffset, what: "model")

        version = Int(try root.uint32(0))
        modelDescription = try root.string(3) ?? ""

        // Buffers first: tensors refer to them.
        var ranges = [Range<Int>]()
        for table in try root.tableVector(4, name: { "buffer \($0)" }) {
            let offset = try table.uint64(1)
            let size = try table.uint64(2)
            if offset > 1 {
                guard offset <= UInt64(buf.count), size <= UInt64(buf.count) - offset else {
                    throw ModelError.outOfBounds(
                        what: table.what, offset: Int(clamping: offset), length: Int(clamping: size), fileSize: buf.count)
                }
                ranges.append(Int(offset)..<Int(offset + size))
            } else {
                ranges.append(try table.byteRange(0) ?? 0..<0)
            }
        }
        bufferRanges = ranges

        var codes = [OperatorCode]()
        for table in try root.tableVector(1, name: { "operator code \($0)" }) {
            let deprecated = Int32(try table.int8(0))
            let extended = try table.int32(3)
            let code = BuiltinOperator(rawValue: max(deprecated, extended))
            codes.append(OperatorCode(builtin: code, customCode: try table.string(1), version: Int(try table.int32(2, 1))))
        }
        operatorCodes = codes

        let subgraphTables = try root.tableVector(2, name: { "subgraph \($0)" })
        guard !subgraphTables.isEmpty else {
            throw ModelError.invalidValue(what: "model", detail: "has no subgraphs")
        }
        var graphs = [ModelSubgraph]()
        for (index, table) in subgraphTables.enumerated() {
            graphs.append(try Model.readSubgraph(table, index: index, buffers: ranges, opcodeCount: codes.count))
        }
        subgraphs = graphs

        var entries = [ModelMetadataEntry]()
        for table in try root.tableVector(6, name: { "metadata \($0)" }) {
            let bufferIndex = Int(try table.uint32(1))
            guard bufferIndex < ranges.count else {
                throw ModelError.invalidIndex(what: "\(table.what) buffer", index: bufferIndex, count: ranges.count)
            }
            entries.append(ModelMetadataEntry(name: try table.string(0) ?? "", buffer: bufferIndex))
        }
        metadata = entries

        var sigs = [ModelSignature]()
        for table in try root.tableVector(7, name: { "signature \($0)" }) {
            let sub = Int(try table.uint32(4))
            guard sub < graphs.count else {
                throw ModelError.invalidIndex(what: "\(table.what) subgraph", index: sub, count: graphs.count)
            }
            let tensorCount = graphs[sub].tensors.count
            func maps(_ field: Int, _ kind: String) throws -> [(name: String, tensor: Int)] {
                try table.tableVector(field, name: { "\(table.what) \(kind) \($0)" }).map { map in
                    let t = Int(try map.uint32(1))
                    guard t < tensorCount else {
                        throw ModelError.invalidIndex(what: "\(map.what) tensor", index: t, count: tensorCount)
                    }
                    return (try map.string(0) ?? "", t)
                }
            }
            sigs.append(
                ModelSignature(
                    key: try table.string(2) ?? "", subgraphIndex: sub,
                    inputs: try maps(0, "input"), outputs: try maps(1, "output")))
        }
        signatures = sigs
    }

    /// The bytes of buffer `index` (empty for buffers without data).
    func bufferBytes(_ index: Int) -> UnsafeRawBufferPointer {
        guard index >= 0, index < bufferRanges.count else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(rebasing: bytes.buffer[bufferRanges[index]])
    }

    /// A copy of buffer `index`, e.g. a metadata buffer; nil when the index is out of range.
    public func bufferData(_ index: Int) -> Data? {
        guard index >= 0, index < bufferRanges.count else { return nil }
        return Data(bufferBytes(index))
    }

    /// The metadata buffer named `name` (e.g. `TFLITE_METADATA`), if the model has one.
    public func metadataBuffer(named name: String) -> Data? {
        metadata.first { $0.name == name }.flatMap { bufferData($0.buffer) }
    }

    /// The builtin options table of an operator, for kernels to read their parameters.
    func options(of op: ModelOperator, what: String) throws -> FlatTable? {
        guard let position = op.builtinOptionsPosition else { return nil }
        return try FlatTable(bytes: bytes.buffer, position: position, what: what)
    }

    /// The second builtin options table of an operator (`builtin_options_2`), when present.
    func options2(of op: ModelOperator, what: String) throws -> FlatTable? {
        guard let position = op.builtinOptions2Position else { return nil }
        return try FlatTable(bytes: bytes.buffer, position: position, what: what)
    }

    /// The custom options bytes of an operator (empty when absent).
    func customOptions(of op: ModelOperator) -> UnsafeRawBufferPointer {
        guard let range = op.customOptions else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(rebasing: bytes.buffer[range])
    }
}

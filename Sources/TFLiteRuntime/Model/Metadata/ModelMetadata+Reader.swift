import Foundation

extension ModelMetadata {
    /// Reads a metadata FlatBuffer (the contents of the `TFLITE_METADATA` buffer).
    ///
    /// Every offset is checked against the buffer before use.
    /// - Throws: ``MetadataError/wrongIdentifier(found:)`` or ``MetadataError/malformed(detail:)``.
    public init(flatBuffer data: Data) throws {
        self = try data.withUnsafeBytes { try ModelMetadata(bytes: $0) }
    }

    init(bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count >= 8 else { throw MetadataError.malformed(detail: "buffer has only \(bytes.count) bytes") }
        let ident = bytes[4..<8]
        guard ident.elementsEqual("M001".utf8) else {
            let printable = ident.allSatisfy { $0 >= 32 && $0 < 127 }
            throw MetadataError.wrongIdentifier(
                found: printable
                    ? String(decoding: ident, as: UTF8.self) : ident.map { String(format: "%02x", $0) }.joined())
        }
        do {
            let root = try FlatTable(
                bytes: bytes, position: Int(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self)), what: "metadata")
            self.init()
            name = try root.string(0)
            description = try root.string(1)
            version = try root.string(2)
            subgraphs = try root.tableVector(3, name: { "metadata subgraph \($0)" }).map(MetadataReader.subgraph)
            author = try root.string(4)
            license = try root.string(5)
            associatedFiles = try MetadataReader.files(root, 6)
            minParserVersion = try root.string(7)
        } catch let error as ModelError {
            throw MetadataError.malformed(detail: error.description)
        }
    }
}

/// Field-by-field readers for the metadata schema (tensorflow_lite_support metadata_schema.fbs).
enum MetadataReader {
    static func subgraph(_ table: FlatTable) throws -> SubgraphMetadata {
        var s = SubgraphMetadata()
        s.name = try table.string(0)
        s.description = try table.string(1)
        s.inputTensors = try table.tableVector(2, name: { "\(table.what) input \($0)" }).map(tensor)
        s.outputTensors = try table.tableVector(3, name: { "\(table.what) output \($0)" }).map(tensor)
        s.associatedFiles = try files(table, 4)
        s.inputProcessUnits = try table.tableVector(5, name: { "\(table.what) input process unit \($0)" }).map(
            processUnit)
        s.outputProcessUnits = try table.tableVector(6, name: { "\(table.what) output process unit \($0)" }).map(
            processUnit)
        return s
    }

    static func tensor(_ table: FlatTable) throws -> TensorMetadata {
        var t = TensorMetadata()
        t.name = try table.string(0)
        t.description = try table.string(1)
        t.dimensionNames = try strings(table, 2)
        if let content = try table.table(3, what: "\(table.what) content") {
            t.content = try contentProperties(content)
            if let range = try content.table(2, what: "\(content.what) range") {
                let low = Int(try range.int32(0))
                let high = Int(try range.int32(1))
                guard low <= high else {
                    throw ModelError.invalidValue(what: range.what, detail: "range \(low)...\(high) is empty")
                }
                t.contentRange = low...high
            }
        }
        t.processUnits = try table.tableVector(4, name: { "\(table.what) process unit \($0)" }).map(processUnit)
        if let stats = try table.table(5, what: "\(table.what) stats") {
            t.statsMax = try stats.floatVector(0) ?? []
            t.statsMin = try stats.floatVector(1) ?? []
        }
        t.associatedFiles = try files(table, 6)
        return t
    }

    static func contentProperties(_ content: FlatTable) throws -> ContentProperties? {
        let type = Int(try content.uint8(0))
        guard type != 0 else { return nil }
        let value = try content.table(1, what: "\(content.what) properties")
        switch type {
        case 1:
            return .feature
        case 2:
            let colorSpace = ContentProperties.ColorSpace(rawValue: Int(try value?.int8(0) ?? 0)) ?? .unknown
            let size = try value?.table(1, what: "\(content.what) default size")
            return .image(
                colorSpace: colorSpace, defaultWidth: try size.map { Int(try $0.uint32(0)) },
                defaultHeight: try size.map { Int(try $0.uint32(1)) })
        case 3:
            let index = try value?.scalarVector(0, as: UInt32.self)?.map { Int($0) } ?? []
            let type = ContentProperties.BoundingBoxType(rawValue: Int(try value?.int8(1) ?? 0)) ?? .unknown
            let coordinates = ContentProperties.CoordinateType(rawValue: Int(try value?.int8(2) ?? 0)) ?? .ratio
            return .boundingBox(index: index, type: type, coordinateType: coordinates)
        case 4:
            return .audio(sampleRate: Int(try value?.uint32(0) ?? 0), channels: Int(try value?.uint32(1) ?? 0))
        default:
            return .unknown(type)
        }
    }

    static func processUnit(_ table: FlatTable) throws -> ProcessUnit {
        let type = Int(try table.uint8(0))
        let options = try table.table(1, what: "\(table.what) options")
        switch type {
        case 1:
            return .normalization(mean: try options?.floatVector(0) ?? [], std: try options?.floatVector(1) ?? [])
        case 2:
            return .scoreCalibration(
                transformation: Int(try options?.int8(0) ?? 0), defaultScore: try options?.float(1) ?? 0)
        case 3:
            return .scoreThresholding(globalThreshold: try options?.float(0) ?? 0)
        default:
            return .other(type)
        }
    }

    static func files(_ table: FlatTable, _ field: Int) throws -> [AssociatedFile] {
        try table.tableVector(field, name: { "\(table.what) associated file \($0)" }).map { file in
            AssociatedFile(
                name: try file.string(0) ?? "", description: try file.string(1),
                type: AssociatedFile.FileType(rawValue: Int(try file.int8(2))) ?? .unknown,
                locale: try file.string(3), version: try file.string(4))
        }
    }

    /// A vector of strings, each reference checked.
    static func strings(_ table: FlatTable, _ field: Int) throws -> [String] {
        guard let (start, count) = try table.vector(field, elementSize: 4) else { return [] }
        let bytes = table.bytes
        return try (0..<count).map { i in
            let p = start + 4 * i
            let target = p + Int(bytes.loadUnaligned(fromByteOffset: p, as: UInt32.self))
            try FlatTable.check(bytes, target, 4, "\(table.what) field \(field) string \(i)")
            let length = Int(bytes.loadUnaligned(fromByteOffset: target, as: UInt32.self))
            try FlatTable.check(bytes, target + 4, length, "\(table.what) field \(field) string \(i)")
            return String(
                decoding: UnsafeRawBufferPointer(rebasing: bytes[(target + 4)..<(target + 4 + length)]), as: UTF8.self)
        }
    }
}

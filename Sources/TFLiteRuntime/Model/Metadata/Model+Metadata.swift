import Foundation

extension Model {
    /// The name of the metadata buffer that holds TensorFlow Lite metadata.
    public static let metadataBufferName = "TFLITE_METADATA"

    /// The model's TensorFlow Lite metadata, or nil when it has none.
    ///
    /// - Throws: ``MetadataError`` when the `TFLITE_METADATA` buffer is present but malformed.
    public func readMetadata() throws -> ModelMetadata? {
        guard let entry = metadata.first(where: { $0.name == Model.metadataBufferName }) else { return nil }
        return try ModelMetadata(bytes: bufferBytes(entry.buffer))
    }

    /// The files packed after the model in an uncompressed zip archive (labels and the like),
    /// in archive order; empty when the file has no archive.
    ///
    /// - Throws: ``MetadataError/invalidArchive(detail:)`` when an archive is present but malformed,
    ///   compressed, encrypted, or fails its CRC check.
    public func associatedFiles() throws -> [(name: String, data: Data)] {
        try ZipArchive.entries(in: bytes.buffer).map { ($0.name, Data(bytes.buffer[$0.range])) }
    }

    /// The associated file called `name`.
    ///
    /// - Throws: ``MetadataError/missingFile(name:)`` when the archive has no such file.
    public func associatedFile(named name: String) throws -> Data {
        guard let entry = try ZipArchive.entries(in: bytes.buffer).first(where: { $0.name == name }) else {
            throw MetadataError.missingFile(name: name)
        }
        return Data(bytes.buffer[entry.range])
    }
}

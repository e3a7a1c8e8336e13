import Foundation

/// Why a model's metadata or its associated files could not be read.
public enum MetadataError: Error, Equatable, Sendable {
    /// The metadata buffer does not carry the `M001` file identifier.
    case wrongIdentifier(found: String)
    /// The metadata FlatBuffer is malformed; `detail` names the part and the offset.
    case malformed(detail: String)
    /// The zip archive of associated files is malformed or uses features this reader rejects.
    case invalidArchive(detail: String)
    /// An associated file named in the metadata is not in the archive.
    case missingFile(name: String)
}

extension MetadataError: CustomStringConvertible {
    /// One line describing the failure.
    public var description: String {
        switch self {
        case .wrongIdentifier(let found):
            return "model metadata: file identifier is '\(found)', expected 'M001'"
        case .malformed(let detail):
            return "model metadata: \(detail)"
        case .invalidArchive(let detail):
            return "associated files: \(detail)"
        case .missingFile(let name):
            return "associated file '\(name)' is not packed with the model"
        }
    }
}

extension MetadataError: LocalizedError {
    /// The same line as ``description``.
    public var errorDescription: String? { description }
}

import Foundation

/// Why a model file could not be read.
///
/// Every case names the part of the file that was wrong (`what`, e.g. `"subgraph 0 tensor 12"`)
/// so that a malformed or hostile file produces a message a user can act on.
public enum ModelError: Error, Equatable, Hashable, Sendable {
    /// The file could not be opened or read from disk.
    case unreadable(path: String, reason: String)
    /// The file is too small to be a TensorFlow Lite FlatBuffer.
    case tooSmall(size: Int)
    /// The FlatBuffer file identifier is not `TFL3`.
    case wrongIdentifier(found: String)
    /// A structure points outside the file.
    case outOfBounds(what: String, offset: Int, length: Int, fileSize: Int)
    /// An index refers to an element that does not exist.
    case invalidIndex(what: String, index: Int, count: Int)
    /// A value is present but not acceptable.
    case invalidValue(what: String, detail: String)
}

extension ModelError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read model file '\(path)': \(reason)"
        case .tooSmall(let size):
            return "not a TensorFlow Lite model: the file has only \(size) bytes"
        case .wrongIdentifier(let found):
            return "not a TensorFlow Lite model: file identifier is '\(found)', expected 'TFL3'"
        case .outOfBounds(let what, let offset, let length, let fileSize):
            return "\(what): \(length) bytes at offset \(offset) lie outside the file (\(fileSize) bytes)"
        case .invalidIndex(let what, let index, let count):
            return "\(what): index \(index) is out of range (there are \(count))"
        case .invalidValue(let what, let detail):
            return "\(what): \(detail)"
        }
    }
}

extension ModelError: LocalizedError {
    public var errorDescription: String? { description }
}

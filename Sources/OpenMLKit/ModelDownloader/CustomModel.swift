import Foundation

/// A model on the device, as Firebase ML Model Downloader describes it (`CustomModel`).
public struct CustomModel: Hashable, Sendable {
    /// The name the model was published under.
    public let name: String
    /// The model file's size in bytes.
    public let size: Int
    /// The model file's absolute path.
    public let path: String
    /// The model file's hash (lowercase hex SHA-256, checked when it was installed).
    public let hash: String

    /// A model with these fields.
    public init(name: String, size: Int, path: String, hash: String) {
        self.name = name
        self.size = size
        self.path = path
        self.hash = hash
    }

    /// The model as installed by ``ModelManager``.
    public init(_ downloaded: DownloadedModel) {
        self.init(name: downloaded.name, size: Int(downloaded.size), path: downloaded.path, hash: downloaded.sha256)
    }
}

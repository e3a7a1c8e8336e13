import Foundation

/// A model hosted on a model hub (ML Kit's `RemoteModel`), identified by its name.
///
/// Equal names mean the same model, so remote models can be kept in sets and compared.
public class RemoteModel: Hashable, @unchecked Sendable, CustomStringConvertible {
    /// The name the model was published under.
    public let name: String

    init(name: String) { self.name = name }

    public static func == (lhs: RemoteModel, rhs: RemoteModel) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    public var description: String { "RemoteModel(\(name))" }
}

/// A custom TensorFlow Lite model hosted on a model hub (ML Kit's `CustomRemoteModel`).
///
/// ```swift
/// let remoteModel = CustomRemoteModel(name: "your_remote_model")
/// ```
public final class CustomRemoteModel: RemoteModel, @unchecked Sendable {
    /// A remote model published under `name`.
    public override init(name: String) { super.init(name: name) }
}

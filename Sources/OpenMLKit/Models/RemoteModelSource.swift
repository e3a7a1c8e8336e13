import Foundation

/// Where a hosted model comes from (ML Kit's `RemoteModelSource`).
///
/// OpenMLKit has one kind of source, a model hub (``HubModelSource``); Firebase's source is the
/// same thing under its ML Kit name, ``FirebaseModelSource``, so that code written for ML Kit
/// compiles unchanged.
public protocol RemoteModelSource: Sendable {
    /// The name the model was published under.
    var modelName: String { get }
}

/// A model published on a model hub under a name (the `ModelHub` server, or whatever hub
/// ``ModelManager`` is configured with).
public struct HubModelSource: RemoteModelSource, Hashable {
    /// The name the model was published under.
    public let name: String

    /// The hub model published as `name`.
    public init(name: String) { self.name = name }

    /// The name the model was published under.
    public var modelName: String { name }
}

/// ML Kit's name for a hosted-model source; here it is a model on the configured hub.
public typealias FirebaseModelSource = HubModelSource

extension CustomRemoteModel {
    /// The hosted model `remoteModelSource` names (ML Kit's `init(remoteModelSource:)`).
    ///
    /// ```swift
    /// let remoteModel = CustomRemoteModel(remoteModelSource: FirebaseModelSource(name: "your_model"))
    /// ```
    public convenience init(remoteModelSource: any RemoteModelSource) {
        self.init(name: remoteModelSource.modelName)
    }
}

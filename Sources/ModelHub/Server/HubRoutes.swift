import HTTPTypes

/// The hub's routes and their methods, in one table: the router is built from the same paths,
/// and a request whose path exists under other methods gets 405 with `Allow` (not 404).
enum HubRoutes {
    static let health = "/v1/health"
    static let metrics = "/metrics"
    static let models = "/v1/models"
    static let model = "/v1/models/:name"
    static let latest = "/v1/models/:name/latest"
    static let versions = "/v1/models/:name/versions"
    static let version = "/v1/models/:name/versions/:version"
    static let download = "/v1/models/:name/versions/:version/download"
    static let rollout = "/v1/models/:name/rollout"

    /// Every route with the methods it answers (GET routes also answer HEAD).
    static let table: [(pattern: String, methods: [HTTPRequest.Method])] = [
        (health, [.get, .head]),
        (metrics, [.get, .head]),
        (models, [.get, .head]),
        (model, [.get, .head, .delete]),
        (latest, [.get, .head]),
        (versions, [.post]),
        (version, [.get, .head]),
        (download, [.get, .head]),
        (rollout, [.put]),
    ]

    /// The methods `path` answers to, or nil when no route has that path.
    static func methods(forPath path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (pattern, methods) in table {
            let parts = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            guard parts.count == segments.count else { continue }
            if zip(parts, segments).allSatisfy({ $0.hasPrefix(":") ? !$1.isEmpty : $0 == $1 }) { return methods }
        }
        return nil
    }
}

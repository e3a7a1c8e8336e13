import HTTPTypes
import Hummingbird

/// Who is calling, by the credentials the request carries. Ordered: an admin may do everything an
/// app may.
public enum HubCaller: Int, Sendable, Comparable {
    /// No credentials, or wrong ones.
    case anonymous
    /// The hub's app key (`X-App-Key` or `?key=`), or any caller when the hub has no app key.
    case app
    /// The hub's admin token (`Authorization: Bearer <token>`).
    case admin

    public static func < (a: HubCaller, b: HubCaller) -> Bool { a.rawValue < b.rawValue }
}

/// The hub's credentials and the one rule that reads them: every entry point (the router's
/// access middleware, the download fast path) asks `caller(authorization:appKey:)`.
struct HubCredentials: Sendable {
    let adminToken: String
    let appKey: String?

    /// The caller that an `Authorization` header and an app key (header or query) make.
    /// Comparisons take the same time whatever the given text (no timing oracle for the secrets).
    func caller(authorization: String?, appKey given: String?) -> HubCaller {
        if let authorization {
            // RFC 9110 §11.1: the scheme is case-insensitive.
            let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer",
                constantTimeEqual(parts[1].trimmingCharacters(in: .whitespaces), adminToken)
            {
                return .admin
            }
        }
        guard let appKey else { return .app }
        return constantTimeEqual(given ?? "", appKey) ? .app : .anonymous
    }

    /// The caller of `request`.
    func caller(of request: Request) -> HubCaller {
        caller(
            authorization: request.headers[.authorization],
            appKey: request.headers[HTTPField.Name("X-App-Key")!] ?? request.uri.queryParameters.get("key").map { String($0) })
    }
}

/// Refuses a request whose caller is below `required` (401 in the hub's JSON shape) and tells the
/// route who is calling (`HubRequestContext.caller`). The router puts each route in the group of
/// the access it needs, so no handler checks credentials itself.
struct HubAccessMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext
    let credentials: HubCredentials
    let required: HubCaller

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        context.caller = credentials.caller(of: request)
        guard context.caller >= required else {
            switch required {
            case .admin: throw HubError(.unauthorized, "this needs the hub's admin token (Authorization: Bearer <token>)")
            case .app, .anonymous: throw HubError(.unauthorized, "this hub needs an app key (X-App-Key header)")
            }
        }
        return try await next(request, context)
    }
}

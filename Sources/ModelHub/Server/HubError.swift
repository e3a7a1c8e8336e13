import Foundation
import Hummingbird

/// A request the hub refuses, mapped to an HTTP status and a JSON body `{"error": {"message", "status"}}`.
///
/// Every error answer of the hub has this shape, whatever produced it (a handler, the router,
/// the body collector, the HTTP parser: see `HubErrorMiddleware` and `ConnectionGuard`).
/// Messages never name server paths.
public struct HubError: Error, Sendable, HTTPResponseError {
    /// The HTTP status.
    public let status: HTTPResponse.Status
    /// What was wrong, for the client.
    public let message: String
    /// Extra headers of the answer (`Allow` on 405).
    public var headers: HTTPFields

    /// An error with a status and message.
    public init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json"
        headers.addHubSecurityHeaders()
        let body = ByteBuffer(bytes: Self.body(status: status, message: message))
        headers[.contentLength] = String(body.readableBytes)
        // A HEAD answer has the headers of the GET answer and no body.
        return Response(status: status, headers: headers, body: request.method == .head ? ResponseBody() : .init(byteBuffer: body))
    }

    /// The JSON body of an error answer.
    static func body(status: HTTPResponse.Status, message: String) -> Data {
        (try? JSONSerialization.data(withJSONObject: ["error": ["message": message, "status": status.code]], options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data(#"{"error":{"message":"error","status":500}}"#.utf8)
    }

    static func notFound(_ message: String) -> HubError { HubError(.notFound, message) }
    static func badRequest(_ message: String) -> HubError { HubError(.badRequest, message) }
}

extension HubError: LocalizedError {
    public var errorDescription: String? { "\(status.code) \(status.reasonPhrase): \(message)" }
}

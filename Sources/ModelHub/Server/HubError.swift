import Foundation
import Hummingbird

/// A request the hub refuses, mapped to an HTTP status and a JSON body `{"error": {"message": ...}}`.
public struct HubError: Error, Sendable, HTTPResponseError {
    /// The HTTP status.
    public let status: HTTPResponse.Status
    /// What was wrong, for the client.
    public let message: String

    /// An error with a status and message.
    public init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = try JSONSerialization.data(withJSONObject: ["error": ["message": message, "status": status.code]])
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func notFound(_ message: String) -> HubError { HubError(.notFound, message) }
    static func badRequest(_ message: String) -> HubError { HubError(.badRequest, message) }
}

extension HubError: LocalizedError {
    public var errorDescription: String? { "\(status.code) \(status.reasonPhrase): \(message)" }
}

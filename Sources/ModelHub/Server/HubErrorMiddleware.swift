import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// Turns every error under the router into the hub's JSON error answer: unknown routes (404),
/// known paths with another method (405 with `Allow`), bodies over a limit (413), storage
/// failures (500, logged with their detail; the client's message names no path).
struct HubErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            var response = try await next(request, context)
            response.headers.addHubSecurityHeaders()
            return response
        } catch let error as HubError {
            throw error
        } catch let error as HTTPError {
            if error.status == .notFound, let allowed = HubRoutes.methods(forPath: request.uri.path) {
                if allowed.contains(request.method) {
                    throw HubError(.notFound, "not found")
                }
                let allow = allowed.map(\.rawValue).joined(separator: ", ")
                throw HubError(
                    .methodNotAllowed, "\(request.method.rawValue) is not allowed on \(request.uri.path); use \(allow)",
                    headers: [.allow: allow])
            }
            if error.status == .notFound { throw HubError(.notFound, "no such route: \(request.uri.path)") }
            if error.status == .contentTooLarge { throw HubError(.contentTooLarge, "the request body is too large") }
            throw HubError(error.status, error.body ?? error.status.reasonPhrase)
        } catch is NIOTooManyBytesError {
            // A body without Content-Length (chunked) that passed a handler's collection limit.
            throw HubError(.contentTooLarge, "the request body is too large")
        } catch let error as HTTPParserError {
            // A request body the connection broke off or garbled (see ConnectionGuard).
            throw HubError(.badRequest, "the request body was cut off or malformed (\(error))")
        } catch let error as IOError {
            // The client's connection broke (reset while its body was read): not the hub's fault.
            throw HubError(.badRequest, "the connection broke while the request was read (\(error.errnoCode))")
        } catch is ModelPreconditionFailed {
            throw HubError(
                .preconditionFailed,
                "the model is not in the state If-Match names (it changed, or does not exist); read it again for its ETag")
        } catch let error as HubStorageError {
            logger.error("storage failure", metadata: ["path": "\(request.uri.path)", "error": "\(error.localizedDescription)"])
            throw HubError(.internalServerError, "the hub could not read or write its storage; its log has the details")
        } catch is CancellationError {
            throw HubError(.serviceUnavailable, "the hub is shutting down")
        } catch {
            logger.error("unexpected failure", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            throw HubError(.internalServerError, "the hub failed to answer; its log has the details")
        }
    }
}

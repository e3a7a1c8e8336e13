import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client for a ModelHub server's HTTP API (reads, downloads' metadata, and admin calls).
///
/// Used by ``ModelManager`` and by `mlkit hub` / `mlkit model`. Every call is one HTTP request;
/// failures are ``ModelDownloadError``s carrying the hub's own message.
public struct ModelHubClient: Sendable {
    /// The hub's base URL, e.g. `http://127.0.0.1:8080`.
    public let baseURL: URL
    /// Sent as `X-App-Key` when set.
    public var appKey: String?
    /// Sent as `Authorization: Bearer` when set (publishing, deleting, rollouts, download counts).
    public var adminToken: String?
    /// Deadline and minimum rate of each call (not of model downloads, which ``ModelManager``
    /// limits with its own configuration).
    public var limits: HubTransferLimits
    /// The largest JSON answer accepted, in bytes.
    public var maximumAnswerBytes: Int

    /// A client for the hub at `baseURL`.
    ///
    /// Redirects are followed only within the hub's origin while the request carries the app key
    /// or admin token (a redirect elsewhere fails with ``ModelDownloadError/redirectRefused(_:)``);
    /// requests that change the hub (publish, rollout, delete) never follow a redirect.
    public init(
        baseURL: URL, appKey: String? = nil, adminToken: String? = nil, limits: HubTransferLimits = .metadata,
        maximumAnswerBytes: Int = 8 << 20
    ) {
        self.baseURL = baseURL
        self.appKey = appKey
        self.adminToken = adminToken
        self.limits = limits
        self.maximumAnswerBytes = maximumAnswerBytes
    }

    /// What the hub says about the version an installation should have.
    public enum LatestVersion: Sendable, Equatable {
        /// The version the client named in `ifNoneMatch` is the one to have (HTTP 304).
        case current
        /// This version is the one to have.
        case version(HubModelVersion)
    }

    /// Every model on the hub.
    public func listModels() async throws -> [HubModel] {
        struct Listing: Decodable { let models: [HubModel] }
        let (data, _) = try await send(request(path: "v1/models"), expect: [200])
        return try decode(Listing.self, data).models
    }

    /// One model with its versions and rollout.
    public func model(named name: String) async throws -> HubModel {
        let (data, _) = try await send(request(path: "v1/models/\(try checked(name))"), expect: [200])
        return try decode(HubModel.self, data)
    }

    /// The version the hub serves to this installation; `.current` when it has `sha256` already.
    public func latestVersion(
        of name: String, installationID: String?, groups: [String] = [], ifNoneMatch sha256: String? = nil
    ) async throws -> LatestVersion {
        var query = [URLQueryItem]()
        if let installationID { query.append(URLQueryItem(name: "installation", value: installationID)) }
        for group in groups { query.append(URLQueryItem(name: "group", value: group)) }
        var request = request(path: "v1/models/\(try checked(name))/latest", query: query)
        if let sha256 { request.setValue("\"\(sha256)\"", forHTTPHeaderField: "If-None-Match") }
        let (data, response) = try await send(request, expect: [200, 304])
        if response.statusCode == 304 { return .current }
        return .version(try decode(HubModelVersion.self, data))
    }

    /// Publishes the file at `fileURL` as the next version of `name` (needs the admin token),
    /// signed with `signature` (see ``ModelSignature/sign(name:sha256:with:)``) when given. With
    /// `ifMatch` (a ``HubModel/entityTag`` read before), only if the model is still in that state:
    /// otherwise ``ModelDownloadError/server(status:message:)`` with status 412, and nothing is published.
    public func publish(
        name: String, fileURL: URL, sha256: String? = nil, signature: String? = nil, ifMatch: String? = nil
    ) async throws -> HubModelVersion {
        var request = request(path: "v1/models/\(try checked(name))/versions", method: "POST")
        if let ifMatch { request.setValue(ifMatch, forHTTPHeaderField: "If-Match") }
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        if let sha256 { request.setValue(sha256, forHTTPHeaderField: "X-Model-SHA256") }
        if let signature { request.setValue(signature, forHTTPHeaderField: "X-Model-Signature") }
        let body: Data
        do { body = try Data(contentsOf: fileURL, options: .mappedIfSafe) } catch {
            throw ModelDownloadError.storage("cannot read \(fileURL.path): \(error.localizedDescription)")
        }
        request.httpBody = body
        // An upload may take long; its deadline grows with its size (at least 1 MiB/s).
        var limits = self.limits
        limits.timeout = max(limits.timeout, Double(body.count) / 1_048_576 + 30)
        let (data, _) = try await send(request, expect: [201], redirects: .never, limits: limits)
        return try decode(HubModelVersion.self, data)
    }

    /// Replaces a model's rollout (needs the admin token); with `ifMatch`, only if the model is still
    /// in that state (412 otherwise, as for ``publish(name:fileURL:sha256:signature:ifMatch:)``).
    public func setRollout(_ rollout: HubRollout, for name: String, ifMatch: String? = nil) async throws -> HubModel {
        var request = request(path: "v1/models/\(try checked(name))/rollout", method: "PUT")
        if let ifMatch { request.setValue(ifMatch, forHTTPHeaderField: "If-Match") }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try HubJSON.encoder().encode(rollout)
        let (data, _) = try await send(request, expect: [200], redirects: .never)
        return try decode(HubModel.self, data)
    }

    /// Deletes a model and all its versions (needs the admin token); with `ifMatch`, only if the
    /// model is still in that state (412 otherwise).
    public func deleteModel(named name: String, ifMatch: String? = nil) async throws {
        var request = request(path: "v1/models/\(try checked(name))", method: "DELETE")
        if let ifMatch { request.setValue(ifMatch, forHTTPHeaderField: "If-Match") }
        _ = try await send(request, expect: [204], redirects: .never)
    }

    /// The download request for a version, resuming at `offset` when it is positive.
    func downloadRequest(for version: HubModelVersion, from offset: Int64) -> URLRequest {
        var request = request(path: "v1/models/\(version.name)/versions/\(version.version)/download")
        if offset > 0 {
            request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
            request.setValue(version.entityTag, forHTTPHeaderField: "If-Range")
        }
        return request
    }

    func request(path: String, query: [URLQueryItem] = [], method: String = "GET") -> URLRequest {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query }
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.timeoutInterval = 60
        if let appKey { request.setValue(appKey, forHTTPHeaderField: "X-App-Key") }
        if let adminToken { request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization") }
        return request
    }

    private func checked(_ name: String) throws -> String {
        guard HubNames.isValidModelName(name) else { throw ModelDownloadError.invalidModelName(name) }
        return name
    }

    private func send(
        _ request: URLRequest, expect: Set<Int>, redirects: RedirectPolicy = .sameOriginWithCredentials,
        limits: HubTransferLimits? = nil
    ) async throws -> (Data, HTTPURLResponse) {
        let transfer = HubTransfer(
            request: request, sink: .memory(limit: maximumAnswerBytes), limits: limits ?? self.limits, redirects: redirects)
        let (data, response) = try await transfer.run()
        if (300..<400).contains(response.statusCode), response.statusCode != 304 {
            let target = response.value(forHTTPHeaderField: "Location") ?? "?"
            throw ModelDownloadError.redirectRefused("the hub answered \(response.statusCode) to \(target); not followed")
        }
        guard expect.contains(response.statusCode) else {
            throw HubHTTP.error(status: response.statusCode, body: data, url: request.url)
        }
        return (data, response)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do { return try HubJSON.decoder().decode(type, from: data) } catch {
            throw ModelDownloadError.invalidResponse("cannot decode \(T.self): \(error)")
        }
    }
}

/// Error mapping shared by the hub client and the downloader.
enum HubHTTP {
    static func describe(_ error: Error, _ url: URL?) -> String {
        let nsError = error as NSError
        let place = url.map { "\($0.scheme ?? "http")://\($0.host ?? "?")\($0.port.map { ":\($0)" } ?? "")" } ?? "the hub"
        if nsError.domain == NSURLErrorDomain {
            switch nsError.code {
            case NSURLErrorTimedOut: return "\(place) sent nothing for too long (timed out)"
            case NSURLErrorCannotConnectToHost: return "cannot connect to \(place) (connection refused)"
            case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return "cannot find the host of \(place)"
            case NSURLErrorNetworkConnectionLost: return "the connection to \(place) was lost"
            case NSURLErrorNotConnectedToInternet: return "this device is offline"
            default: break
            }
        }
        return "\(place): \(error.localizedDescription)"
    }

    /// Maps an error status and the hub's body to a ``ModelDownloadError``. The hub's JSON error
    /// message is used when there is one; any other body is summarised, never printed raw.
    static func error(status: Int, body: Data, url: URL?) -> ModelDownloadError {
        let message: String
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let error = object["error"] as? [String: Any], let text = error["message"] as? String
        {
            message = printable(text, limit: 500) ?? "(an unprintable message)"
        } else if body.isEmpty {
            message = "no explanation (\(HTTPURLResponse.localizedString(forStatusCode: status)))"
        } else if let text = String(data: body.prefix(2000), encoding: .utf8), let line = printable(text, limit: 200) {
            message = "a non-JSON answer: \(line)"
        } else {
            message = "a non-JSON answer of \(body.count) bytes that is not text"
        }
        switch status {
        case 401, 403: return .unauthorized(message)
        case 404: return .modelNotFound(message)
        default: return .server(status: status, message: message)
        }
    }

    /// `text` as one line of printable characters, at most `limit` of them; nil when it is
    /// mostly control characters (binary).
    static func printable(_ text: String, limit: Int) -> String? {
        let scalars = text.unicodeScalars
        let control = scalars.filter { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" && $0 != "\r" }
        guard control.count * 10 <= scalars.count else { return nil }
        var line = String(String.UnicodeScalarView(scalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
        line = line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return line.count > limit ? String(line.prefix(limit)) + "…" : line
    }
}

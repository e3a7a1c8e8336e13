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
    /// Sent as `Authorization: Bearer` when set (publishing, deleting, rollouts).
    public var adminToken: String?

    /// A client for the hub at `baseURL`.
    public init(baseURL: URL, appKey: String? = nil, adminToken: String? = nil) {
        self.baseURL = baseURL
        self.appKey = appKey
        self.adminToken = adminToken
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

    /// Publishes the file at `fileURL` as the next version of `name` (needs the admin token).
    public func publish(name: String, fileURL: URL, sha256: String? = nil) async throws -> HubModelVersion {
        var request = request(path: "v1/models/\(try checked(name))/versions", method: "POST")
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        if let sha256 { request.setValue(sha256, forHTTPHeaderField: "X-Model-SHA256") }
        let body: Data
        do { body = try Data(contentsOf: fileURL, options: .mappedIfSafe) } catch {
            throw ModelDownloadError.storage("cannot read \(fileURL.path): \(error.localizedDescription)")
        }
        request.httpBody = body
        let (data, _) = try await send(request, expect: [201])
        return try decode(HubModelVersion.self, data)
    }

    /// Replaces a model's rollout (needs the admin token).
    public func setRollout(_ rollout: HubRollout, for name: String) async throws -> HubModel {
        var request = request(path: "v1/models/\(try checked(name))/rollout", method: "PUT")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try HubJSON.encoder().encode(rollout)
        let (data, _) = try await send(request, expect: [200])
        return try decode(HubModel.self, data)
    }

    /// Deletes a model and all its versions (needs the admin token).
    public func deleteModel(named name: String) async throws {
        _ = try await send(request(path: "v1/models/\(try checked(name))", method: "DELETE"), expect: [204])
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

    private func send(_ request: URLRequest, expect: Set<Int>) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await HubHTTP.data(for: request)
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

/// The URL session and error mapping shared by the hub client and the downloader.
enum HubHTTP {
    /// An ephemeral session without a response cache: 304s must reach our code, not a cache.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    static func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: ModelDownloadError.network(describe(error, request.url)))
                } else if let response = response as? HTTPURLResponse {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: ModelDownloadError.invalidResponse("not an HTTP response"))
                }
            }.resume()
        }
    }

    static func describe(_ error: Error, _ url: URL?) -> String {
        "\(url?.absoluteString ?? "?"): \(error.localizedDescription)"
    }

    /// Maps an error status and the hub's JSON error body to a ``ModelDownloadError``.
    static func error(status: Int, body: Data, url: URL?) -> ModelDownloadError {
        var message = String(decoding: body.prefix(2000), as: UTF8.self)
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let error = object["error"] as? [String: Any], let text = error["message"] as? String
        {
            message = text
        }
        switch status {
        case 401, 403: return .unauthorized(message)
        case 404: return .modelNotFound(message)
        default: return .server(status: status, message: message)
        }
    }
}

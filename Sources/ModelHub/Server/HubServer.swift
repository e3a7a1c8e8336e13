import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenMLKit
import ServiceLifecycle
import UnixSignals

/// The model-hosting server: publish models by name and version, roll them out, serve downloads.
///
/// HTTP API (JSON bodies; errors are `{"error": {"message", "status"}}`):
///
/// | Method and path | Who | What |
/// |---|---|---|
/// | `GET /v1/health` | anyone | `{"status": "ok"}` |
/// | `GET /v1/models` | app | `{"models": [model]}` |
/// | `GET /v1/models/{name}` | app | the model with its versions and rollout |
/// | `GET /v1/models/{name}/latest?installation=ID&group=G` | app | the version this installation gets; `ETag`, 304 on `If-None-Match` |
/// | `GET /v1/models/{name}/versions/{v}` | app | one version's descriptor |
/// | `GET /v1/models/{name}/versions/{v}/download` | app | the bytes; `ETag`, `If-None-Match`, `Range` |
/// | `POST /v1/models/{name}/versions` | admin | body = model file; optional `X-Model-SHA256`; 201 + new version |
/// | `PUT /v1/models/{name}/rollout` | admin | body = rollout; 200 + model |
/// | `DELETE /v1/models/{name}` | admin | 204 |
///
/// "app" means the `X-App-Key` header (or `key` query parameter) when the hub has an app key;
/// "admin" means `Authorization: Bearer <admin token>`.
public struct HubServer: Sendable {
    /// The configuration the server runs with.
    public let configuration: HubConfiguration
    let catalog: any ModelCatalog
    let blobs: any BlobStore

    /// A server with the embedded storage under `configuration.dataDirectory`
    /// (`catalog.sqlite`, `blobs/`, `staging/`).
    public init(configuration: HubConfiguration) throws {
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        let catalog = try SQLiteModelCatalog(path: configuration.dataDirectory.appendingPathComponent("catalog.sqlite").path)
        let blobs = try FileBlobStore(root: configuration.dataDirectory)
        self.init(configuration: configuration, catalog: catalog, blobs: blobs)
    }

    /// A server with the given storage (for other catalogue or blob back ends).
    public init(configuration: HubConfiguration, catalog: any ModelCatalog, blobs: any BlobStore) {
        precondition(!configuration.adminToken.isEmpty, "the admin token must not be empty")
        self.configuration = configuration
        self.catalog = catalog
        self.blobs = blobs
    }

    /// Runs until the task is cancelled or the process gets SIGTERM/SIGINT (then finishes the
    /// requests in progress); `onListening` receives the bound port (useful with port 0).
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await serviceGroup(onListening: onListening, signals: [.sigterm, .sigint]).run()
    }

    func serviceGroup(onListening: @escaping @Sendable (Int) async -> Void, signals: [UnixSignal]) -> ServiceGroup {
        var logger = Logger(label: "ModelHub")
        logger.logLevel = .warning
        let app = Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "ModelHub"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        return ServiceGroup(services: [app], gracefulShutdownSignals: signals, cancellationSignals: [], logger: logger)
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: AccessLogMiddleware(log: configuration.accessLog))
        router.get("/v1/health") { _, _ in try json(["status": "ok"]) }
        router.get("/v1/models") { request, _ in
            try self.requireAppKey(request)
            return try json(["models": try await self.catalog.models()])
        }
        router.get("/v1/models/:name") { request, context in
            try self.requireAppKey(request)
            return try json(try await self.existingModel(context))
        }
        router.get("/v1/models/:name/latest") { request, context in
            try await self.latest(request, context)
        }
        router.get("/v1/models/:name/versions/:version") { request, context in
            try self.requireAppKey(request)
            let (model, version) = try await self.existingVersion(context)
            _ = model
            return try json(version, etag: version.entityTag)
        }
        router.get("/v1/models/:name/versions/:version/download") { request, context in
            try await self.download(request, context)
        }
        router.post("/v1/models/:name/versions") { request, context in
            try await self.publish(request, context)
        }
        router.put("/v1/models/:name/rollout") { request, context in
            try await self.setRollout(request, context)
        }
        router.delete("/v1/models/:name") { request, context in
            try self.requireAdmin(request)
            let name = try validName(context)
            guard let keys = try await self.catalog.deleteModel(named: name) else {
                throw HubError.notFound("no model named '\(name)'")
            }
            for key in keys { self.blobs.delete(key: key) }
            return Response(status: .noContent)
        }
        return router
    }

    // MARK: Reads

    private func latest(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try requireAppKey(request)
        let model = try await existingModel(context)
        let query = request.uri.queryParameters
        let installation = query.get("installation") ?? request.headers[HTTPField.Name("X-Installation-ID")!]
        let groups = Set(query.getAll("group").flatMap { $0.split(separator: ",").map(String.init) })
        guard let version = RolloutAssignment.version(of: model, installationID: installation, groups: groups) else {
            throw HubError.notFound("model '\(model.name)' has no versions")
        }
        if matches(request.headers[.ifNoneMatch], version.entityTag) {
            return Response(status: .notModified, headers: [.eTag: version.entityTag])
        }
        return try json(version, etag: version.entityTag)
    }

    private func download(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try requireAppKey(request)
        let name = try validName(context)
        let number = try versionNumber(context)
        guard let stored = try await catalog.storedVersion(name: name, version: number) else {
            throw HubError.notFound("model '\(name)' has no version \(number)")
        }
        let version = stored.version
        let url = try blobs.fileURL(forKey: stored.blobKey)
        let size = version.size
        var headers: HTTPFields = [.eTag: version.entityTag, .acceptRanges: "bytes"]
        if matches(request.headers[.ifNoneMatch], version.entityTag) {
            return Response(status: .notModified, headers: headers)
        }
        // A resume names the version it started with; if that is not this one, send it whole.
        var rangeHeader = request.headers[.range]
        if let ifRange = request.headers[.ifRange], ifRange != version.entityTag { rangeHeader = nil }
        let part: ByteRange
        var status = HTTPResponse.Status.ok
        switch ByteRange.resolve(rangeHeader, size: size) {
        case .whole:
            part = ByteRange(start: 0, end: size - 1)
        case .partial(let range):
            part = range
            status = .partialContent
            headers[.contentRange] = "bytes \(range.start)-\(range.end)/\(size)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        headers[.contentType] = "application/octet-stream"
        headers[.contentLength] = String(max(0, part.length))
        let rate = configuration.downloadBytesPerSecond
        let body = ResponseBody(contentLength: Int(max(0, part.length))) { writer in
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(part.start))
            var remaining = max(0, part.length)
            let chunk = rate.map { max(1024, min(64 * 1024, $0 / 20)) } ?? 256 * 1024
            while remaining > 0 {
                let want = Int(min(Int64(chunk), remaining))
                guard let data = try handle.read(upToCount: want), !data.isEmpty else {
                    throw HubError(.internalServerError, "model file ended early")
                }
                try await writer.write(ByteBuffer(bytes: data))
                remaining -= Int64(data.count)
                if let rate { try await Task.sleep(nanoseconds: UInt64(data.count) * 1_000_000_000 / UInt64(rate)) }
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    // MARK: Writes

    private func publish(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try requireAdmin(request)
        let name = try validName(context)
        let limit = configuration.maxUploadBytes
        if let declared = request.headers[.contentLength].flatMap(Int64.init), declared > limit {
            throw HubError(.contentTooLarge, "the model is \(declared) bytes; this hub accepts at most \(limit)")
        }
        let upload = try blobs.beginUpload()
        do {
            var hasher = SHA256()
            var size: Int64 = 0
            for try await buffer in request.body {
                size += Int64(buffer.readableBytes)
                if size > limit {
                    throw HubError(.contentTooLarge, "the model is larger than this hub accepts (\(limit) bytes)")
                }
                try buffer.withUnsafeReadableBytes { bytes in
                    hasher.update(bufferPointer: bytes)
                    try upload.write(bytes)
                }
            }
            try upload.close()
            let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
            if let expected = request.headers[HTTPField.Name("X-Model-SHA256")!], expected.lowercased() != digest {
                throw HubError.badRequest("the upload's SHA-256 is \(digest), the client sent \(expected): damaged in transit")
            }
            try validateModelFile(upload.url, size: size)
            let key = try blobs.commit(upload)
            do {
                let version = try await catalog.addVersion(
                    NewModelVersion(name: name, size: size, sha256: digest, blobKey: key, publishedAt: Date()))
                return try json(version, status: .created, etag: version.entityTag)
            } catch {
                blobs.delete(key: key)
                throw error
            }
        } catch {
            upload.discard()
            throw error
        }
    }

    private func setRollout(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try requireAdmin(request)
        let model = try await existingModel(context)
        let body = try await request.body.collect(upTo: 1 << 20)
        let rollout: HubRollout
        do {
            rollout = try HubJSON.decoder().decode(HubRollout.self, from: Data(buffer: body))
        } catch {
            throw HubError.badRequest("the rollout is not valid JSON of the expected shape: \(error)")
        }
        if let problem = RolloutAssignment.problem(with: rollout, for: model) {
            throw HubError(.unprocessableContent, problem)
        }
        guard try await catalog.setRollout(rollout, for: model.name), let updated = try await catalog.model(named: model.name)
        else { throw HubError.notFound("no model named '\(model.name)'") }
        return try json(updated)
    }

    /// Only files the runtime can load are published: a broken upload is refused here, not on devices.
    private func validateModelFile(_ url: URL, size: Int64) throws {
        guard size > 0 else { throw HubError(.unprocessableContent, "the model file is empty") }
        do {
            _ = try TFLiteModelCheck.check(path: url.path)
        } catch {
            throw HubError(.unprocessableContent, "not a valid TensorFlow Lite model: \(error.localizedDescription)")
        }
    }

    // MARK: Helpers

    private func existingModel(_ context: BasicRequestContext) async throws -> HubModel {
        let name = try validName(context)
        guard let model = try await catalog.model(named: name) else { throw HubError.notFound("no model named '\(name)'") }
        return model
    }

    private func existingVersion(_ context: BasicRequestContext) async throws -> (HubModel, HubModelVersion) {
        let model = try await existingModel(context)
        let number = try versionNumber(context)
        guard let version = model.versions.first(where: { $0.version == number }) else {
            throw HubError.notFound("model '\(model.name)' has no version \(number)")
        }
        return (model, version)
    }

    private func versionNumber(_ context: BasicRequestContext) throws -> Int {
        let text = context.parameters.get("version") ?? ""
        guard let number = Int(text), number > 0 else { throw HubError.badRequest("'\(text)' is not a version number") }
        return number
    }

    private func requireAdmin(_ request: Request) throws {
        let given = request.headers[.authorization] ?? ""
        guard given.hasPrefix("Bearer "), constantTimeEqual(String(given.dropFirst(7)), configuration.adminToken) else {
            throw HubError(.unauthorized, "this needs the hub's admin token (Authorization: Bearer <token>)")
        }
    }

    private func requireAppKey(_ request: Request) throws {
        guard let key = configuration.appKey else { return }
        let given = request.headers[HTTPField.Name("X-App-Key")!] ?? request.uri.queryParameters.get("key") ?? ""
        guard constantTimeEqual(given, key) else {
            throw HubError(.unauthorized, "this hub needs an app key (X-App-Key header)")
        }
    }
}

private func validName(_ context: BasicRequestContext) throws -> String {
    let name = context.parameters.get("name") ?? ""
    guard HubNames.isValidModelName(name) else {
        throw HubError.badRequest(
            "invalid model name '\(name)': use 1–\(HubNames.maximumLength) letters, digits, '.', '_' or '-', starting with a letter or digit, without '..'")
    }
    return name
}

private func matches(_ ifNoneMatch: String?, _ etag: String) -> Bool {
    guard let ifNoneMatch else { return false }
    return ifNoneMatch.split(separator: ",").contains { part in
        let tag = part.trimmingCharacters(in: .whitespaces)
        return tag == "*" || tag == etag || tag == "W/\(etag)"
    }
}

private func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    var difference = UInt8(x.count == y.count ? 0 : 1)
    for i in 0..<max(x.count, y.count) {
        difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
    }
    return difference == 0
}

private func json(
    _ value: some Encodable, status: HTTPResponse.Status = .ok, etag: String? = nil
) throws -> Response {
    var headers: HTTPFields = [.contentType: "application/json"]
    if let etag { headers[.eTag] = etag }
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try HubJSON.encoder().encode(value))))
}

/// Logs one line per request to the configured access log.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let log: (@Sendable (String) -> Void)?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let log else { return try await next(request, context) }
        let range = request.headers[.range].map { " range=\($0)" } ?? ""
        let line = "\(request.method) \(request.uri.path)\(range)"
        do {
            let response = try await next(request, context)
            log("\(line) -> \(response.status.code)")
            return response
        } catch let error as HubError {
            log("\(line) -> \(error.status.code) \(error.message)")
            throw error
        } catch {
            log("\(line) -> error \(error)")
            throw error
        }
    }
}

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
/// HTTP API (JSON bodies; every error is `{"error": {"message", "status"}}`):
///
/// | Method and path | Who | What |
/// |---|---|---|
/// | `GET /v1/health` | anyone | `{"status": "ok"}` |
/// | `GET /metrics` | admin | Prometheus metrics |
/// | `GET /v1/models` | app | `{"models": [model]}` (with download counts for the admin token) |
/// | `GET /v1/models/{name}` | app | the model with its versions and rollout |
/// | `GET /v1/models/{name}/latest?installation=ID&group=G` | app | the version this installation gets; `ETag`, 304 on `If-None-Match` |
/// | `GET /v1/models/{name}/versions/{v}` | app | one version's descriptor |
/// | `GET /v1/models/{name}/versions/{v}/download` | app | the bytes; `ETag`, `If-None-Match`, `Range`, `HEAD` |
/// | `POST /v1/models/{name}/versions` | admin | body = model file; optional `X-Model-SHA256`, `X-Model-Signature`; 201 + new version |
/// | `PUT /v1/models/{name}/rollout` | admin | body = rollout; 200 + model |
/// | `DELETE /v1/models/{name}` | admin | 204 |
///
/// "app" means the `X-App-Key` header (or `key` query parameter) when the hub has an app key;
/// "admin" means `Authorization: Bearer <admin token>` (the scheme in any case). A known path
/// with another method is 405 with `Allow`.
///
/// The data directory belongs to one process (see ``DataDirectoryLock``); call ``close()`` (or
/// let ``run(onListening:)`` return) to release it.
public struct HubServer: Sendable {
    /// The configuration the server runs with.
    public let configuration: HubConfiguration
    let catalog: any ModelCatalog
    let blobs: any BlobStore
    let lock: DataDirectoryLock
    /// The server's metrics (also served at `/metrics`).
    public let metrics: HubMetrics
    let downloads = DownloadCounter()
    let connections: ConnectionRegistry
    /// Versions recently served by the download route.
    let versionCache = VersionCache()
    /// Downloads handed to `sendfile` (nil: copy through buffers).
    let fileRegions: FileRegionTable?
    /// The admin token and app key, and the rule that reads them (made once: the download fast
    /// path asks it on every request).
    let credentials: HubCredentials

    /// A server with the embedded catalogue (`DATA/catalog.sqlite`) and the file blob store.
    ///
    /// - Throws: ``HubStartupError`` when the data directory is in use or unusable, or the blob
    ///   directory cannot be used; ``HubStorageError`` when the catalogue cannot be opened.
    public init(configuration: HubConfiguration, lock: DataDirectoryLock? = nil) throws {
        let lock = try lock ?? DataDirectoryLock(directory: configuration.dataDirectory)
        let catalog = try SQLiteModelCatalog(path: configuration.dataDirectory.appendingPathComponent("catalog.sqlite").path)
        try self.init(configuration: configuration, catalog: catalog, heldLock: lock)
    }

    /// A server with another catalogue (e.g. ``PostgresModelCatalog``, shared by replicas) and the
    /// file blob store in ``HubConfiguration/effectiveBlobsDirectory``.
    public init(configuration: HubConfiguration, catalog: any ModelCatalog, lock: DataDirectoryLock? = nil) throws {
        try self.init(
            configuration: configuration, catalog: catalog,
            heldLock: try lock ?? DataDirectoryLock(directory: configuration.dataDirectory))
    }

    /// A server with the given catalogue and blob store; it still locks the data directory.
    public init(configuration: HubConfiguration, catalog: any ModelCatalog, blobs: any BlobStore) throws {
        let lock = try DataDirectoryLock(directory: configuration.dataDirectory)
        self.init(configuration: configuration, catalog: catalog, blobs: blobs, lock: lock)
    }

    private init(configuration: HubConfiguration, catalog: any ModelCatalog, heldLock lock: DataDirectoryLock) throws {
        // `lock` may come from the caller, who took it before touching the directory.
        // Staging is emptied only now that this process holds the lock.
        let blobs = try FileBlobStore(
            blobs: configuration.effectiveBlobsDirectory,
            staging: configuration.dataDirectory.appendingPathComponent("staging"))
        self.init(configuration: configuration, catalog: catalog, blobs: blobs, lock: lock)
    }

    private init(configuration: HubConfiguration, catalog: any ModelCatalog, blobs: any BlobStore, lock: DataDirectoryLock) {
        precondition(!configuration.adminToken.isEmpty, "the admin token must not be empty")
        self.configuration = configuration
        self.credentials = HubCredentials(adminToken: configuration.adminToken, appKey: configuration.appKey)
        self.catalog = catalog
        self.blobs = blobs
        self.lock = lock
        self.metrics = HubMetrics()
        self.connections = ConnectionRegistry(maximum: configuration.maxConnections ?? FileLimit.defaultMaxConnections())
        self.fileRegions = configuration.useSendfile ? FileRegionTable() : nil
    }

    /// Runs until the task is cancelled or the process gets SIGTERM/SIGINT (then finishes the
    /// requests in progress and writes pending download counts); `onListening` receives the
    /// bound port (useful with port 0).
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        defer { lock.release() }
        try await serviceGroup(onListening: onListening, signals: [.sigterm, .sigint]).run()
    }

    /// Raises the process's open-file limit to its hard limit (at most 65 536), so the default
    /// connection limit (derived from it) is as high as the system allows.
    public static func raiseFileLimit() { FileLimit.raise() }

    /// Releases the data directory without running (a server made but never started).
    public func close() { lock.release() }

    /// Removes blobs that no catalogue row references and that are older than the grace
    /// period; returns how many (the server also does this at start and periodically).
    public func removeOrphanedBlobs() async -> Int {
        await HubBackgroundWork(catalog: catalog, blobs: blobs, counter: downloads, configuration: configuration)
            .reconcile(configuration.logger)
    }

    func serviceGroup(onListening: @escaping @Sendable (Int) async -> Void, signals: [UnixSignal]) -> ServiceGroup {
        var quiet = Logger(label: "ModelHub.http")
        quiet.logLevel = .warning
        let limits = ConnectionLimits(
            headerTimeout: timeAmount(configuration.headerTimeout),
            idleTimeout: timeAmount(configuration.idleTimeout),
            minBodyBytesPerSecond: configuration.minBodyBytesPerSecond)
        let registry = connections
        let regions = fileRegions
        let fast = configuration.useFastPath ? DownloadFastPath(server: self) : nil
        let app = Application(
            router: makeRouter(),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [ConnectionGuard(limits: limits, registry: registry, fileRegions: regions, fastPath: fast)])),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "ModelHub",
                backlog: 1024, reuseAddress: true),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: quiet
        )
        let background = HubBackgroundWork(catalog: catalog, blobs: blobs, counter: downloads, configuration: configuration)
        return ServiceGroup(
            // Shut down in reverse order: the server stops answering, then the last counts are written.
            services: [background, app], gracefulShutdownSignals: signals, cancellationSignals: [], logger: quiet)
    }

    func makeRouter() -> Router<HubRequestContext> {
        let router = Router(context: HubRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(
            middleware: AccessLogMiddleware(
                format: configuration.logFormat, log: configuration.accessLog, trustedProxies: configuration.trustedProxies,
                metrics: metrics))
        router.add(middleware: HubErrorMiddleware(logger: configuration.logger))
        // Access is decided here, once per route, by the group it is added to.
        router.get(RouterPath(HubRoutes.health)) { _, _ in try json(["status": "ok"]) }
        let apps = router.group().add(middleware: HubAccessMiddleware(credentials: credentials, required: .app))
        let admins = router.group().add(middleware: HubAccessMiddleware(credentials: credentials, required: .admin))
        admins.get(RouterPath(HubRoutes.metrics)) { _, _ in
            let text = ByteBuffer(bytes: self.metrics.exposition())
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4", .contentLength: String(text.readableBytes)],
                body: .init(byteBuffer: text))
        }
        apps.get(RouterPath(HubRoutes.models)) { _, context in
            let admin = context.caller == .admin
            return try json(["models": try await self.catalog.models().map { admin ? $0 : $0.withoutCounts }])
        }
        apps.get(RouterPath(HubRoutes.model)) { request, context in
            let model = try await self.existingModel(context)
            // The tag an admin sends back in If-Match to change exactly this state (see `condition`).
            if matches(request.headers[.ifNoneMatch], model.entityTag) {
                return Response(status: .notModified, headers: [.eTag: model.entityTag])
            }
            return try json(context.caller == .admin ? model : model.withoutCounts, etag: model.entityTag)
        }
        apps.get(RouterPath(HubRoutes.latest)) { request, context in try await self.latest(request, context) }
        apps.get(RouterPath(HubRoutes.version)) { _, context in
            let (_, version) = try await self.existingVersion(context)
            return try json(version.withoutCount, etag: version.entityTag)
        }
        apps.get(RouterPath(HubRoutes.download)) { request, context in try await self.download(request, context) }
        admins.post(RouterPath(HubRoutes.versions)) { request, context in try await self.publish(request, context) }
        admins.put(RouterPath(HubRoutes.rollout)) { request, context in try await self.setRollout(request, context) }
        admins.delete(RouterPath(HubRoutes.model)) { request, context in try await self.delete(request, context) }
        return router
    }

    // MARK: Shared checks

    func existingModel(_ context: HubRequestContext) async throws -> HubModel {
        let name = try validName(context)
        guard let model = try await catalog.model(named: name) else { throw HubError.notFound("no model named '\(name)'") }
        return model
    }

    func existingVersion(_ context: HubRequestContext) async throws -> (HubModel, HubModelVersion) {
        let model = try await existingModel(context)
        let number = try versionNumber(context)
        guard let version = model.versions.first(where: { $0.version == number }) else {
            throw HubError.notFound("model '\(model.name)' has no version \(number)")
        }
        return (model, version)
    }

    /// The request's `If-Match` as a condition the catalogue evaluates in the write's own
    /// transaction (nil without the header). The hub's tag for a model is `HubModel.entityTag`,
    /// sent with `GET /v1/models/{name}`; a write to a model that changed since answers 412.
    func condition(_ request: Request) -> ModelPrecondition? {
        request.headers[.ifMatch].map { ModelPrecondition.ifMatch(String($0.prefix(4096))) }
    }

    /// Fails fast (before an upload is read) when `request`'s `If-Match` does not hold now; the
    /// catalogue checks it again, atomically, when it writes.
    func checkEarly(_ request: Request, name: String) async throws {
        guard let condition = condition(request) else { return }
        guard condition.isMet(try await catalog.model(named: name)) else { throw ModelPreconditionFailed() }
    }

    func versionNumber(_ context: HubRequestContext) throws -> Int {
        let text = context.parameters.get("version") ?? ""
        guard text.count <= 9, let number = Int(text), number > 0 else {
            throw HubError.badRequest("'\(text.prefix(20))' is not a version number")
        }
        return number
    }
}

func timeAmount(_ duration: Duration) -> TimeAmount {
    .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
}

func validName(_ context: HubRequestContext) throws -> String {
    let name = context.parameters.get("name") ?? ""
    guard HubNames.isValidModelName(name) else {
        throw HubError.badRequest(
            "invalid model name '\(name.prefix(140))': use 1–\(HubNames.maximumLength) letters, digits, '.', '_' or '-', starting with a letter or digit, without '..'")
    }
    return name
}

func matches(_ ifNoneMatch: String?, _ etag: String) -> Bool {
    guard let ifNoneMatch else { return false }
    return ifNoneMatch.split(separator: ",").contains { part in
        let tag = part.trimmingCharacters(in: .whitespaces)
        return tag == "*" || tag == etag || tag == "W/\(etag)"
    }
}

func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    var difference = UInt8(x.count == y.count ? 0 : 1)
    for i in 0..<max(x.count, y.count) {
        difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
    }
    return difference == 0
}

func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, etag: String? = nil) throws -> Response {
    let body = ByteBuffer(bytes: try HubJSON.encoder().encode(value))
    var headers: HTTPFields = [.contentType: "application/json", .contentLength: String(body.readableBytes)]
    if let etag { headers[.eTag] = etag }
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
}

extension HubModel {
    /// The model as apps see it: download counts are for the admin token only.
    var withoutCounts: HubModel {
        var copy = self
        copy.versions = versions.map(\.withoutCount)
        return copy
    }
}

extension HubModelVersion {
    var withoutCount: HubModelVersion {
        var copy = self
        copy.downloads = nil
        return copy
    }
}

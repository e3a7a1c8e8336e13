import Foundation
import Logging

/// How a hub is run: where it keeps its data, where it listens, who may do what, and the limits
/// that keep one client from exhausting it.
public struct HubConfiguration: Sendable {
    /// The data directory: `catalog.sqlite` (unless another catalogue is given), `staging/`, and
    /// by default `blobs/`. It belongs to one process, which holds its lock (`.lock`).
    public var dataDirectory: URL
    /// Where model files are stored; nil means `dataDirectory/blobs`. Several hubs may share one
    /// (replicas over one PostgreSQL catalogue); it must be on the same file system as the data
    /// directory.
    public var blobsDirectory: URL?
    /// The address to listen on (default loopback).
    public var host: String
    /// The port; 0 picks a free one (see ``HubServer/run(onListening:)``).
    public var port: Int
    /// The bearer token that publishing, deleting, rollouts and `/metrics` need. Never empty.
    public var adminToken: String
    /// When set, reads and downloads need this key (`X-App-Key` header or `key` query parameter).
    public var appKey: String?
    /// The largest model file accepted by publish, in bytes (default 512 MiB).
    public var maxUploadBytes: Int64
    /// When set, each download is sent at no more than this many bytes per second (bandwidth
    /// protection; also how tests cut a download reliably in the middle).
    public var downloadBytesPerSecond: Int?
    /// The most rules a rollout may have (default 100); more is refused with 422.
    public var maxRolloutRules: Int
    /// How long a client has from connecting (or from the end of its previous response) to send a
    /// complete request head; default 10 s.
    public var headerTimeout: Duration
    /// How long an idle keep-alive connection stays open; default 60 s.
    public var idleTimeout: Duration
    /// The slowest accepted upload, in bytes per second, averaged from the request's start
    /// after a grace of ``headerTimeout``; default 1024. Slower request bodies are cut off.
    public var minBodyBytesPerSecond: Int
    /// The most connections held open at once; nil derives it from the process's file limit.
    /// At the limit, the connection that has waited longest without a request is closed to make
    /// room, so requests keep being answered while idle connections pile up.
    public var maxConnections: Int?
    /// Peers whose `X-Forwarded-For` names the real client in the access log (a load balancer).
    public var trustedProxies: Set<String>
    /// The access log's format.
    public var logFormat: AccessLogFormat
    /// Receives one access-log line per request, as formatted text or JSON; nil for none.
    /// ``accessLog(to:)`` sends them through swift-log (`mlkit hub serve` does, with
    /// ``AccessLogHandler`` writing them to standard output).
    public var accessLog: (@Sendable (String) -> Void)?
    /// Where server diagnostics go (storage failures, removed orphans); its level applies.
    public var logger: Logger
    /// How old an unreferenced blob must be before it is removed (default 1 hour), so that a blob
    /// another replica has just committed, but not yet catalogued, is never deleted.
    public var orphanGracePeriod: Duration
    /// How often unreferenced blobs are looked for after the check at start-up (default 10 min).
    public var reconcileInterval: Duration
    /// How often completed downloads are added to the catalogue's counts (default 2 s).
    public var downloadCountInterval: Duration
    /// Whether downloads of 16 KiB or more are sent with `sendfile` (default true); false copies
    /// them through the process in 1 MiB buffers (``downloadBytesPerSecond`` always does).
    public var useSendfile = true
    /// Whether plain downloads of recently served versions are answered on the connection's event
    /// loop (`DownloadFastPath`) instead of through the router (default true; same answers).
    public var useFastPath = true

    /// A configuration. `adminToken` must not be empty.
    public init(
        dataDirectory: URL, blobsDirectory: URL? = nil, host: String = "127.0.0.1", port: Int = 8080,
        adminToken: String, appKey: String? = nil, maxUploadBytes: Int64 = 512 << 20,
        downloadBytesPerSecond: Int? = nil, maxRolloutRules: Int = 100, headerTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60), minBodyBytesPerSecond: Int = 1024, maxConnections: Int? = nil,
        trustedProxies: Set<String> = [], logFormat: AccessLogFormat = .text,
        accessLog: (@Sendable (String) -> Void)? = nil, logger: Logger = Logger(label: "ModelHub"),
        orphanGracePeriod: Duration = .seconds(3600), reconcileInterval: Duration = .seconds(600),
        downloadCountInterval: Duration = .seconds(2)
    ) {
        self.dataDirectory = dataDirectory
        self.blobsDirectory = blobsDirectory
        self.host = host
        self.port = port
        self.adminToken = adminToken
        self.appKey = appKey
        self.maxUploadBytes = maxUploadBytes
        self.downloadBytesPerSecond = downloadBytesPerSecond
        self.maxRolloutRules = maxRolloutRules
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.minBodyBytesPerSecond = minBodyBytesPerSecond
        self.maxConnections = maxConnections
        self.trustedProxies = trustedProxies
        self.logFormat = logFormat
        self.accessLog = accessLog
        self.logger = logger
        self.orphanGracePeriod = orphanGracePeriod
        self.reconcileInterval = reconcileInterval
        self.downloadCountInterval = downloadCountInterval
    }

    /// The blob directory in effect.
    public var effectiveBlobsDirectory: URL { blobsDirectory ?? dataDirectory.appendingPathComponent("blobs") }
}

/// How access-log lines are written.
public enum AccessLogFormat: String, Sendable, CaseIterable {
    /// `2026-11-25T15:02:21Z 127.0.0.1 GET /v1/models 200 1234 B 1.2 ms model=m version=2`
    case text
    /// One JSON object per line: `time`, `client`, `method`, `path`, `status`, `bytes`,
    /// `durationMs`, and `model`/`version` where the request names them.
    case json
}

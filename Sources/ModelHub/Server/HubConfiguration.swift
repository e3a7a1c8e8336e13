import Foundation

/// How a hub is run: where it keeps its data, where it listens, and who may do what.
public struct HubConfiguration: Sendable {
    /// The data directory: `catalog.sqlite` and the blob store live here.
    public var dataDirectory: URL
    /// The address to listen on (default loopback).
    public var host: String
    /// The port; 0 picks a free one (see ``HubServer/run(onListening:)``).
    public var port: Int
    /// The bearer token that publishing, deleting and rollouts need. Never empty.
    public var adminToken: String
    /// When set, reads and downloads need this key (`X-App-Key` header or `key` query parameter).
    public var appKey: String?
    /// The largest model file accepted by publish, in bytes (default 512 MiB).
    public var maxUploadBytes: Int64
    /// When set, each download is sent at no more than this many bytes per second (bandwidth
    /// protection; also how tests cut a download reliably in the middle).
    public var downloadBytesPerSecond: Int?
    /// Receives one line per request (method, path, range, status); nil for none.
    public var accessLog: (@Sendable (String) -> Void)?

    /// A configuration. `adminToken` must not be empty.
    public init(
        dataDirectory: URL, host: String = "127.0.0.1", port: Int = 8080, adminToken: String,
        appKey: String? = nil, maxUploadBytes: Int64 = 512 << 20, downloadBytesPerSecond: Int? = nil,
        accessLog: (@Sendable (String) -> Void)? = nil
    ) {
        self.dataDirectory = dataDirectory
        self.host = host
        self.port = port
        self.adminToken = adminToken
        self.appKey = appKey
        self.maxUploadBytes = maxUploadBytes
        self.downloadBytesPerSecond = downloadBytesPerSecond
        self.accessLog = accessLog
    }
}

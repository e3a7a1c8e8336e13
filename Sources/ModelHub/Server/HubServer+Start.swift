import Foundation
import ServiceLifecycle

/// A hub running in the background of this process (see ``HubServer/start()``).
public final class RunningHub: Sendable {
    /// The port it listens on.
    public let port: Int
    /// Its base URL, e.g. `http://127.0.0.1:41234`.
    public let url: URL
    /// The server (its metrics, and ``HubServer/removeOrphanedBlobs()``).
    public let server: HubServer
    private let group: ServiceGroup
    private let task: Task<Void, Error>

    init(server: HubServer, port: Int, host: String, group: ServiceGroup, task: Task<Void, Error>) {
        self.server = server
        self.port = port
        self.url = URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")!
        self.group = group
        self.task = task
    }

    /// Stops the server: lets requests in progress finish for up to `grace` seconds, then cuts
    /// them off, and returns once the port is closed.
    public func stop(grace: Double = 2) async {
        await group.triggerGracefulShutdown()
        let task = self.task
        let deadline = Task {
            try await Task.sleep(nanoseconds: UInt64(grace * 1e9))
            task.cancel()
        }
        _ = try? await task.value
        deadline.cancel()
        server.lock.release()
    }
}

extension HubServer {
    /// Starts the server in a background task and returns once it listens (useful with port 0:
    /// the chosen port is in the result). Throws the server's error if it cannot start.
    public func start() async throws -> RunningHub {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let group = serviceGroup(onListening: { continuation.yield($0) }, signals: [])
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        for await port in ports {
            return RunningHub(server: self, port: port, host: configuration.host, group: group, task: task)
        }
        defer { lock.release() }
        try await task.value
        throw HubError(.internalServerError, "the hub stopped before it started listening")
    }
}

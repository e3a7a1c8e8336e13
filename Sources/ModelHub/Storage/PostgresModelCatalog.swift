import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import OpenMLKit
import PostgresNIO

/// The shared catalogue: one PostgreSQL database that several hub processes (replicas) use at once.
///
/// Behaves exactly as ``SQLiteModelCatalog``. Version numbers are assigned in a transaction that
/// first locks the model's row (`SELECT … FOR UPDATE`), so concurrent publishes of one name from
/// any number of processes get consecutive numbers without gaps or duplicates. Publication dates are
/// stored as `timestamptz` truncated to whole milliseconds, and ``addVersion(_:)`` returns the
/// truncated date, so a version read back equals the one returned.
///
/// Every operation has a deadline (``queryTimeout``, enforced by the server as `statement_timeout`
/// and by the client, which closes the connection of an operation that overruns it), so a hung
/// database gives a ``HubStorageError/database(_:)`` instead of an endless wait. Every database
/// failure is such an error, and its message never contains the password.
///
/// The database should belong to the hub: the catalogue creates the tables `model`, `version` and
/// `schema_version` in the connection's default schema. Call ``close()`` when done.
public final class PostgresModelCatalog: ModelCatalog {
    /// How long one catalogue operation (including waiting for a connection) may take.
    public let queryTimeout: Duration

    let client: PostgresClient
    let logger: Logger
    private let runTask: Task<Void, Never>
    private let password: String?

    private init(client: PostgresClient, logger: Logger, password: String?, queryTimeout: Duration) {
        self.client = client
        self.logger = logger
        self.password = password
        self.queryTimeout = queryTimeout
        self.runTask = Task { await client.run() }
    }

    /// Connects to the database at `url`, creating or migrating the schema if needed.
    ///
    /// Safe to call from several processes at the same moment: the migration runs under a
    /// PostgreSQL advisory lock, so exactly one of them creates the tables and the others find them.
    ///
    /// - Parameters:
    ///   - url: The database.
    ///   - logger: Receives the connection pool's background messages.
    ///   - queryTimeout: The deadline of each operation.
    ///   - maximumConnections: The size of this process's connection pool.
    /// - Throws: ``HubStorageError/database(_:)`` when the server cannot be reached, refuses the
    ///   login, or the migration fails.
    public static func connect(
        _ url: PostgresConnectionURL, logger: Logger, queryTimeout: Duration = .seconds(10), maximumConnections: Int = 8
    ) async throws -> PostgresModelCatalog {
        let milliseconds =
            queryTimeout.components.seconds * 1000 + queryTimeout.components.attoseconds / 1_000_000_000_000_000
        let startupParameters = [
            ("statement_timeout", "\(milliseconds)"),
            ("idle_in_transaction_session_timeout", "\(milliseconds)"),
            ("application_name", "openmlkit-hub"),
        ]
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: tlsConfiguration(for: url.sslMode).map { url.sslMode == .require ? .require($0) : .prefer($0) }
                ?? .disable)
        configuration.options.connectTimeout = queryTimeout
        configuration.options.maximumConnections = max(1, maximumConnections)
        configuration.options.additionalStartupParameters = startupParameters
        let catalog = PostgresModelCatalog(
            client: PostgresClient(configuration: configuration, backgroundLogger: logger), logger: logger,
            password: url.password, queryTimeout: queryTimeout)
        do {
            // A connection of its own rather than the pool's: the pool retries a failed login
            // quietly, while this reports a wrong password or an unknown database at once.
            var direct = PostgresConnection.Configuration(
                host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
                tls: .disable)
            if let tls = try tlsConfiguration(for: url.sslMode).map({ try NIOSSLContext(configuration: $0) }) {
                direct.tls = url.sslMode == .require ? .require(tls) : .prefer(tls)
            }
            direct.options.connectTimeout = .nanoseconds(Int64(milliseconds) * 1_000_000)
            direct.options.additionalStartupParameters = startupParameters
            try await catalog.migrate(direct)
        } catch {
            await catalog.close()
            throw error as? HubStorageError ?? HubStorageError.database("connecting: \(catalog.describe(error))")
        }
        return catalog
    }

    /// Closes every connection and ends the connection pool's task. The catalogue cannot be used afterwards.
    public func close() async {
        runTask.cancel()
        await runTask.value
    }

    /// The TLS settings of a mode, nil for plain connections.
    private static func tlsConfiguration(for mode: PostgresConnectionURL.SSLMode) -> TLSConfiguration? {
        switch mode {
        case .disable:
            return nil
        case .prefer:
            // As libpq's prefer: encryption against eavesdroppers, no certificate check.
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .none
            return configuration
        case .require:
            return .makeClientConfiguration()
        }
    }

    // MARK: Running operations

    /// Runs `body` on one pooled connection within the deadline, turning every failure into
    /// ``HubStorageError/database(_:)``.
    func withConnection<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let leased = NIOLockedValueBox<PostgresConnection?>(nil)
        return try await withDeadline(operation, connection: leased) {
            try await self.client.withConnection { connection in
                leased.withLockedValue { $0 = connection }
                return try await body(connection)
            }
        }
    }

    /// Runs `body` in one transaction (committed when it returns, rolled back when it throws).
    func withTransaction<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withConnection(operation) { [logger] connection in
            try await connection.withTransaction(logger: logger) { try await body($0) }
        }
    }

    /// Runs `body` within ``queryTimeout``; when the time is up, closes `connection` (queries cannot
    /// be cancelled, but closing the connection fails the one in flight) and throws. Every failure
    /// becomes ``HubStorageError/database(_:)``.
    func withDeadline<T: Sendable>(
        _ operation: String, connection: NIOLockedValueBox<PostgresConnection?>,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        do {
            return try await withThrowingTaskGroup(of: Outcome<T>.self) { group in
                group.addTask { try await .finished(body()) }
                group.addTask {
                    try await Task.sleep(for: self.queryTimeout)
                    return .timedOut
                }
                defer { group.cancelAll() }
                guard case .finished(let value) = try await group.next()! else {
                    if let connection = connection.withLockedValue({ $0 }) {
                        _ = connection.close() as EventLoopFuture<Void>
                    }
                    throw HubStorageError.database(
                        "\(operation): no answer (or no connection) from the database within \(queryTimeout)")
                }
                return value
            }
        } catch let error as HubStorageError {
            throw error
        } catch let failed as ModelPreconditionFailed {
            throw failed
        } catch let error as PostgresTransactionError where error.closureError is ModelPreconditionFailed {
            throw ModelPreconditionFailed()
        } catch {
            throw HubStorageError.database("\(operation): \(describe(error))")
        }
    }

    private enum Outcome<T: Sendable>: Sendable {
        case finished(T)
        case timedOut
    }

    /// A failure's message for logs and API answers: the server's message and SQLSTATE, never the password.
    func describe(_ error: any Error) -> String {
        var message: String
        switch error {
        case let error as PostgresTransactionError:
            let inner = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError
            return inner.map(describe) ?? "transaction failed"
        case let error as HubStorageError:
            switch error {
            case .database(let text), .io(let text), .invalidRecord(let text): message = text
            }
        case let error as PSQLError:
            message = "\(error.code)"
            if let info = error.serverInfo {
                if let text = info[.message] { message += ": \(text)" }
                if let state = info[.sqlState] { message += " (SQLSTATE \(state))" }
                if let detail = info[.detail] { message += "; \(detail)" }
            } else if let underlying = error.underlying {
                message += ": \(underlying)"
            }
        default:
            message = "\(error)"
        }
        if let password, !password.isEmpty {
            message = message.replacingOccurrences(of: password, with: "***")
        }
        return message
    }
}

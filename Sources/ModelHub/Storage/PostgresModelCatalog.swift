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
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: tls(for: url.sslMode))
        configuration.options.connectTimeout = queryTimeout
        configuration.options.maximumConnections = max(1, maximumConnections)
        let milliseconds = queryTimeout.components.seconds * 1000 + queryTimeout.components.attoseconds / 1_000_000_000_000_000
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", "\(milliseconds)"),
            ("idle_in_transaction_session_timeout", "\(milliseconds)"),
            ("application_name", "openmlkit-hub"),
        ]
        let catalog = PostgresModelCatalog(
            client: PostgresClient(configuration: configuration, backgroundLogger: logger), logger: logger,
            password: url.password, queryTimeout: queryTimeout)
        do {
            try await catalog.migrate()
        } catch {
            await catalog.close()
            throw error
        }
        return catalog
    }

    /// Closes every connection and ends the connection pool's task. The catalogue cannot be used afterwards.
    public func close() async {
        runTask.cancel()
        await runTask.value
    }

    private static func tls(for mode: PostgresConnectionURL.SSLMode) -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable:
            return .disable
        case .prefer:
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .none
            return .prefer(configuration)
        case .require:
            return .require(.makeClientConfiguration())
        }
    }

    // MARK: Running operations

    /// Runs `body` on one pooled connection within the deadline, turning every failure into
    /// ``HubStorageError/database(_:)``.
    func withConnection<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let leased = NIOLockedValueBox<PostgresConnection?>(nil)
        do {
            return try await withThrowingTaskGroup(of: Outcome<T>.self) { group in
                group.addTask {
                    try await .finished(
                        self.client.withConnection { connection in
                            leased.withLockedValue { $0 = connection }
                            return try await body(connection)
                        })
                }
                group.addTask {
                    try await Task.sleep(for: self.queryTimeout)
                    return .timedOut
                }
                defer { group.cancelAll() }
                guard case .finished(let value) = try await group.next()! else {
                    // Queries cannot be cancelled; closing the connection fails the one in flight.
                    if let connection = leased.withLockedValue({ $0 }) {
                        _ = connection.close() as EventLoopFuture<Void>
                    }
                    throw HubStorageError.database("\(operation): no answer from the database within \(queryTimeout)")
                }
                return value
            }
        } catch let error as HubStorageError {
            throw error
        } catch {
            throw HubStorageError.database("\(operation): \(describe(error))")
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

    private enum Outcome<T: Sendable>: Sendable {
        case finished(T)
        case timedOut
    }

    /// A failure's message for logs and API answers: the server's message and SQLSTATE, never the password.
    private func describe(_ error: any Error) -> String {
        var message: String
        switch error {
        case let error as PostgresTransactionError:
            let inner = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError
            return inner.map(describe) ?? "transaction failed"
        case let error as HubStorageError:
            switch error {
            case .database(let text), .io(let text): message = text
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

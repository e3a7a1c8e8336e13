import Foundation

/// Where a ``PostgresModelCatalog`` connects: a parsed `postgres://` (or `postgresql://`) URL.
///
/// The accepted form is `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=MODE]`. User, password
/// and database are percent-decoded (a password containing `@`, `:`, `/` or `?` must be written
/// percent-encoded); an IPv6 host is written in brackets (`[::1]`). The port defaults to 5432. A
/// URL without a password (or with an empty one) takes the `PGPASSWORD` value passed to
/// ``init(parsing:environmentPassword:)``.
///
/// `sslmode`, as in libpq:
/// - `disable`: plain TCP.
/// - `prefer` (the default): TLS when the server offers it, else plain; as in libpq the server's
///   certificate is not verified, so this protects against eavesdroppers but not against a
///   man in the middle.
/// - `require`: TLS or no connection, through SwiftNIO SSL. Unlike libpq's `require`, the
///   certificate *is* verified against the system's trust roots and the host name (libpq's
///   `verify-full`), because an unverified connection is no safer than `prefer`.
///
/// The password never appears in ``description``, ``redacted``, a debugger's view, or the message of
/// a ``PostgresConnectionURLError``.
public struct PostgresConnectionURL: Sendable, Equatable {
    /// How the connection uses TLS.
    public enum SSLMode: String, Sendable, CaseIterable {
        /// Never TLS.
        case disable
        /// TLS when the server offers it (certificate not verified), else plain.
        case prefer
        /// TLS with a verified certificate, or no connection.
        case require
    }

    /// The database user.
    public var user: String
    /// The user's password, if any.
    public var password: String?
    /// The server's host name or IP address (an IPv6 address without brackets).
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The database name.
    public var database: String
    /// How the connection uses TLS.
    public var sslMode: SSLMode

    /// The default PostgreSQL port.
    public static let defaultPort = 5432

    /// A connection target given field by field.
    public init(
        user: String, password: String?, host: String, port: Int = defaultPort, database: String,
        sslMode: SSLMode = .prefer
    ) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.sslMode = sslMode
    }

    /// Parses a `postgres://` or `postgresql://` URL.
    ///
    /// - Parameters:
    ///   - string: The URL.
    ///   - environmentPassword: The `PGPASSWORD` environment value, used when the URL has no password.
    /// - Throws: ``PostgresConnectionURLError`` naming what is wrong (never quoting the password).
    public init(parsing string: String, environmentPassword: String? = nil) throws(PostgresConnectionURLError) {
        var rest = Substring(string)
        if rest.hasPrefix("postgres://") {
            rest = rest.dropFirst("postgres://".count)
        } else if rest.hasPrefix("postgresql://") {
            rest = rest.dropFirst("postgresql://".count)
        } else {
            throw .unsupportedScheme
        }

        // The authority ends at the first "/" or "?"; a password holding either must be encoded.
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]

        // The last "@" separates the credentials, so that an unencoded "@" in a password still parses.
        guard let at = authority.lastIndex(of: "@") else { throw .missingUser }
        let credentials = authority[..<at]
        let hostPort = authority[authority.index(after: at)...]

        let rawUser: Substring
        var rawPassword: Substring?
        if let colon = credentials.firstIndex(of: ":") {
            rawUser = credentials[..<colon]
            rawPassword = credentials[credentials.index(after: colon)...]
        } else {
            rawUser = credentials
        }
        let user = try Self.decode(rawUser, component: "user")
        guard !user.isEmpty else { throw .missingUser }
        var password = try rawPassword.map { raw throws(PostgresConnectionURLError) in
            try Self.decode(raw, component: "password")
        }
        if password?.isEmpty ?? true {
            password = environmentPassword.flatMap { $0.isEmpty ? nil : $0 }
        }

        let (host, port) = try Self.hostAndPort(hostPort)

        guard rest.hasPrefix("/") else { throw .missingDatabase }
        rest = rest.dropFirst()
        let queryStart = rest.firstIndex(of: "?") ?? rest.endIndex
        let database = try Self.decode(rest[..<queryStart], component: "database")
        guard !database.isEmpty, !database.contains("/") else { throw .missingDatabase }

        var sslMode = SSLMode.prefer
        if queryStart < rest.endIndex {
            for pair in rest[rest.index(after: queryStart)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = try Self.decode(parts[0], component: "query")
                guard name == "sslmode" else { throw .unsupportedParameter(name) }
                let value = parts.count > 1 ? try Self.decode(parts[1], component: "query") : ""
                guard let mode = SSLMode(rawValue: value) else { throw .unsupportedSSLMode(value) }
                sslMode = mode
            }
        }

        self.init(user: user, password: password, host: host, port: port, database: database, sslMode: sslMode)
    }

    /// The URL with the password replaced by `***`, for logs: `postgres://user:***@host:port/db`.
    public var redacted: String {
        let credentials = password == nil ? Self.encode(user) : "\(Self.encode(user)):***"
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "postgres://\(credentials)@\(host):\(port)/\(Self.encode(database))"
    }

    private static func hostAndPort(_ text: Substring) throws(PostgresConnectionURLError) -> (String, Int) {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .missingHost }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw .invalidPort
            }
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text
        }
        guard !host.isEmpty else { throw .missingHost }
        var port = defaultPort
        if let portText {
            guard portText.allSatisfy(\.isASCII), let value = Int(portText), (1...65535).contains(value) else {
                throw .invalidPort
            }
            port = value
        }
        return (String(host), port)
    }

    private static func decode(_ text: Substring, component: String) throws(PostgresConnectionURLError) -> String {
        guard let decoded = String(text).removingPercentEncoding else {
            throw .invalidPercentEncoding(component: component)
        }
        return decoded
    }

    private static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

extension PostgresConnectionURL: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The redacted URL (see ``redacted``), so interpolating the value into a log never leaks the password.
    public var description: String { redacted }

    /// The redacted URL, also in the debugger.
    public var debugDescription: String { redacted }

    /// A mirror without the password, so `dump` and test failure messages never show it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "user": user, "password": password == nil ? "nil" : "***", "host": host, "port": port,
                "database": database, "sslMode": sslMode,
            ])
    }
}

/// Why a PostgreSQL connection URL was rejected. Messages never contain the password.
public enum PostgresConnectionURLError: Error, Equatable, Sendable {
    /// The URL does not start with `postgres://` or `postgresql://`.
    case unsupportedScheme
    /// The URL names no user (`postgres://USER@HOST/DB`).
    case missingUser
    /// The URL names no host.
    case missingHost
    /// The port is not a number from 1 to 65535.
    case invalidPort
    /// The URL names no database (`.../DB`).
    case missingDatabase
    /// A component (user, password, database, query) has an invalid `%` escape.
    case invalidPercentEncoding(component: String)
    /// A query parameter other than `sslmode`.
    case unsupportedParameter(String)
    /// An `sslmode` other than `disable`, `prefer` or `require`.
    case unsupportedSSLMode(String)
}

extension PostgresConnectionURLError: LocalizedError {
    public var errorDescription: String? {
        let form = "postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=disable|prefer|require]"
        switch self {
        case .unsupportedScheme: return "the PostgreSQL URL must start with postgres:// or postgresql:// (\(form))"
        case .missingUser: return "the PostgreSQL URL names no user (\(form))"
        case .missingHost: return "the PostgreSQL URL names no host (\(form))"
        case .invalidPort: return "the PostgreSQL URL's port is not a number from 1 to 65535"
        case .missingDatabase: return "the PostgreSQL URL names no database (\(form))"
        case .invalidPercentEncoding(let component):
            return "the PostgreSQL URL's \(component) has an invalid percent escape"
        case .unsupportedParameter(let name):
            return "the PostgreSQL URL has the unsupported parameter '\(name)' (only sslmode is accepted)"
        case .unsupportedSSLMode(let mode):
            return "the PostgreSQL URL's sslmode '\(mode)' is not one of disable, prefer, require"
        }
    }
}

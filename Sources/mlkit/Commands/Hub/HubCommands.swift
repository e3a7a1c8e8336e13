import ArgumentParser
import Foundation
import Logging
import ModelHub
import OpenMLKit

/// The model-hosting subcommands (`hub`, `model`), registered by `MLKitCommand`.
let hubSubcommands: [any ParsableCommand.Type] = [HubCommand.self, ModelCommand.self]

/// `mlkit hub ...`: run a model hub and manage the models on it.
struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hub",
        abstract: "Host models: run a ModelHub server, publish versions, roll them out, list, delete.",
        subcommands: [
            HubServeCommand.self, HubPublishCommand.self, HubListCommand.self, HubRolloutCommand.self,
            HubDeleteCommand.self, HubKeygenCommand.self,
        ]
    )
}

/// Options shared by the commands that talk to a hub.
struct HubConnectionOptions: ParsableArguments {
    @Option(help: "The hub's URL (default: $OPENMLKIT_HUB_URL).")
    var server: String?

    @Option(name: .customLong("app-key"), help: "The hub's app key, if it has one (default: $OPENMLKIT_APP_KEY).")
    var appKey: String?

    func client(adminToken: String? = nil) throws -> ModelHubClient {
        let env = ProcessInfo.processInfo.environment
        guard let text = server ?? env["OPENMLKIT_HUB_URL"], !text.isEmpty else {
            throw CLIError("no hub given: pass --server URL or set OPENMLKIT_HUB_URL")
        }
        guard let url = URL(string: text), let scheme = url.scheme, scheme == "http" || scheme == "https", url.host != nil
        else { throw CLIError("'\(text)' is not an http(s) URL") }
        return ModelHubClient(baseURL: url, appKey: appKey ?? env["OPENMLKIT_APP_KEY"], adminToken: adminToken)
    }
}

/// The admin token option of the commands that change a hub.
struct AdminTokenOption: ParsableArguments {
    @Option(help: "The hub's admin token (default: $OPENMLKIT_HUB_ADMIN_TOKEN).")
    var token: String?

    func resolved() throws -> String {
        guard let token = token ?? ProcessInfo.processInfo.environment["OPENMLKIT_HUB_ADMIN_TOKEN"], !token.isEmpty else {
            throw CLIError("this needs the hub's admin token: pass --token T or set OPENMLKIT_HUB_ADMIN_TOKEN")
        }
        return token
    }
}

/// `mlkit hub serve`: run the hub in the foreground.
struct HubServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a ModelHub server (catalogue in DIR/catalog.sqlite or PostgreSQL, files in DIR/blobs or --blobs).",
        discussion: """
            DIR belongs to one running hub: a second hub on the same DIR exits at once. The admin token \
            comes from --admin-token, else $OPENMLKIT_HUB_ADMIN_TOKEN, else DIR/admin-token (created with a \
            random token, readable only by you, on first start). With --app-key (or $OPENMLKIT_HUB_APP_KEY), \
            listing and downloading need that key. One access-log line per request goes to standard output.
            Replicas: each hub its own --data, all the same --database postgres://... and --blobs DIR.
            """
    )

    @Option(help: "The data directory (created if missing; one hub per directory).")
    var data: String

    @Option(help: "Where model files live (default DATA/blobs); replicas share one, on the same file system as DATA.")
    var blobs: String?

    @Option(
        help: ArgumentHelp(
            "A PostgreSQL catalogue shared by replicas: postgres://USER[:PASSWORD]@HOST:PORT/DB[?sslmode=disable|prefer|require] (password also from $PGPASSWORD). Default: the SQLite file in DATA.",
            valueName: "url"))
    var database: String?

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one; the chosen port is printed).")
    var port = 8080

    @Option(name: .customLong("admin-token"), help: "The token publishing, deleting and /metrics need.")
    var adminToken: String?

    @Option(name: .customLong("app-key"), help: "A key that reads and downloads must present.")
    var appKey: String?

    @Option(name: .customLong("max-upload-mb"), help: "The largest model file accepted, in MiB.")
    var maxUploadMB = 512

    @Option(name: .customLong("download-rate"), help: "Limit each download to this many bytes per second.")
    var downloadRate: Int?

    @Option(name: .customLong("header-timeout"), help: "Seconds a client has to send a request's headers.")
    var headerTimeout: Double = 10

    @Option(name: .customLong("idle-timeout"), help: "Seconds an idle keep-alive connection stays open.")
    var idleTimeout: Double = 60

    @Option(name: .customLong("min-body-rate"), help: "Slowest accepted upload, bytes per second (0: no limit).")
    var minBodyRate = 1024

    @Option(
        name: .customLong("max-connections"),
        help: "Connections held at once (default: from the open-file limit); at the limit the longest-idle one is closed.")
    var maxConnections: Int?

    @Option(name: .customLong("max-rollout-rules"), help: "The most rules one rollout may have.")
    var maxRolloutRules = 100

    @Option(
        name: .customLong("trusted-proxy"),
        help: "A load balancer's address whose X-Forwarded-For the access log believes (repeatable).")
    var trustedProxies: [String] = []

    @Option(name: .customLong("log-format"), help: "Access log format: text or json.")
    var logFormat = "text"

    @Option(
        name: .customLong("orphan-grace"),
        help: "Seconds an unreferenced blob must be old before it is removed (keep it longer than any publish takes).")
    var orphanGrace: Double = 3600

    @Option(name: .customLong("reconcile-interval"), help: "Seconds between looks for unreferenced blobs (also at start).")
    var reconcileInterval: Double = 600

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be within 0–65535") }
        guard maxUploadMB >= 1 else { throw ValidationError("--max-upload-mb must be at least 1") }
        if let downloadRate, downloadRate < 1024 { throw ValidationError("--download-rate must be at least 1024") }
        guard headerTimeout > 0, headerTimeout <= 3600 else { throw ValidationError("--header-timeout must be within (0, 3600] seconds") }
        guard idleTimeout > 0, idleTimeout <= 86400 else { throw ValidationError("--idle-timeout must be within (0, 86400] seconds") }
        guard minBodyRate >= 0 else { throw ValidationError("--min-body-rate must not be negative") }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be at least 1") }
        guard maxRolloutRules >= 1 else { throw ValidationError("--max-rollout-rules must be at least 1") }
        guard AccessLogFormat(rawValue: logFormat) != nil else { throw ValidationError("--log-format must be text or json") }
        guard orphanGrace >= 0 else { throw ValidationError("--orphan-grace must not be negative") }
        guard reconcileInterval >= 1 else { throw ValidationError("--reconcile-interval must be at least 1 second") }
    }

    func run() async throws {
        try await reportingErrors {
            let env = ProcessInfo.processInfo.environment
            let directory = URL(fileURLWithPath: data, isDirectory: true)
            // The lock comes first: a second hub on this directory changes nothing before it exits.
            let lock = try DataDirectoryLock(directory: directory)
            let token = try adminToken ?? env["OPENMLKIT_HUB_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
                ?? storedAdminToken(in: directory)
            let format = AccessLogFormat(rawValue: logFormat) ?? .text
            var logger = Logger(label: "ModelHub")
            logger.logLevel = .notice
            let configuration = HubConfiguration(
                dataDirectory: directory, blobsDirectory: blobs.map { URL(fileURLWithPath: $0, isDirectory: true) },
                host: host, port: port, adminToken: token,
                appKey: appKey ?? env["OPENMLKIT_HUB_APP_KEY"].flatMap { $0.isEmpty ? nil : $0 },
                maxUploadBytes: Int64(maxUploadMB) << 20, downloadBytesPerSecond: downloadRate,
                maxRolloutRules: maxRolloutRules, headerTimeout: .milliseconds(Int64(headerTimeout * 1000)),
                idleTimeout: .milliseconds(Int64(idleTimeout * 1000)), minBodyBytesPerSecond: minBodyRate,
                maxConnections: maxConnections, trustedProxies: Set(trustedProxies), logFormat: format,
                accessLog: HubConfiguration.accessLog(
                    to: Logger(label: "ModelHub.access", factory: AccessLogHandler.standardOutput)),
                logger: logger,
                orphanGracePeriod: .milliseconds(Int64(orphanGrace * 1000)),
                reconcileInterval: .milliseconds(Int64(reconcileInterval * 1000)))
            HubServer.raiseFileLimit()
            let server: HubServer
            var closeCatalog: (@Sendable () async -> Void)?
            if let database {
                let url = try PostgresConnectionURL(parsing: database, environmentPassword: env["PGPASSWORD"])
                let catalog = try await PostgresModelCatalog.connect(url, logger: logger)
                closeCatalog = { await catalog.close() }
                server = try HubServer(configuration: configuration, catalog: catalog, lock: lock)
            } else {
                server = try HubServer(configuration: configuration, lock: lock)
            }
            let host = self.host
            let storage = database.flatMap { try? PostgresConnectionURL(parsing: $0, environmentPassword: nil).redacted } ?? "SQLite"
            do {
                try await server.run { port in
                    AccessLogHandler.flush()
                    printFlushed("ModelHub listening on http://\(host):\(port) (data: \(directory.path), catalogue: \(storage))")
                }
            } catch {
                AccessLogHandler.flush()
                await closeCatalog?()
                throw error
            }
            AccessLogHandler.flush()
            await closeCatalog?()
        }
    }

    private func storedAdminToken(in directory: URL) throws -> String {
        let url = directory.appendingPathComponent("admin-token")
        if let text = try? String(contentsOf: url, encoding: .utf8) {
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !token.isEmpty { return token }
        }
        var bytes = [UInt8](repeating: 0, count: 24)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        let token = bytes.map { String(format: "%02x", $0) }.joined()
        guard FileManager.default.createFile(atPath: url.path, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else { throw CLIError("cannot write the admin token to \(url.path)") }
        printFlushed("admin token created in \(url.path)")
        return token
    }
}

/// `mlkit hub keygen --out K`: an Ed25519 key pair for signing models.
struct HubKeygenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write an Ed25519 key pair for signing models: K (private, mode 0600) and K.pub (for apps).")

    @Option(help: "The private key file to write (K.pub is written beside it); never overwritten.")
    var out: String

    func run() async throws {
        try reportingErrors {
            let key = ModelSigningKey()
            try key.write(to: URL(fileURLWithPath: out))
            print("wrote \(out) (private, keep it secret) and \(out).pub (public key \(key.publicKey.base64))")
        }
    }
}

/// `mlkit hub publish NAME FILE`: upload a new version.
struct HubPublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish", abstract: "Publish FILE as the next version of model NAME; prints the new version.")

    @Argument(help: "The model's name.") var name: String
    @Argument(help: "The .tflite file.") var file: String
    @OptionGroup var connection: HubConnectionOptions
    @OptionGroup var admin: AdminTokenOption
    @Option(name: .customLong("sign-key"), help: "Sign the model's name and SHA-256 with this private key (from `hub keygen`).")
    var signKey: String?
    @Flag(help: "Print the version as JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            guard HubNames.isValidModelName(name) else { throw ModelDownloadError.invalidModelName(name) }
            let url = URL(fileURLWithPath: file)
            guard FileManager.default.isReadableFile(atPath: url.path) else { throw CLIError("cannot read \(file)") }
            let key = try signKey.map { try ModelSigningKey(contentsOf: URL(fileURLWithPath: $0)) }
            let client = try connection.client(adminToken: try admin.resolved())
            let digest = try sha256Hex(of: url)
            let signature = try key.map { try ModelSignature.sign(name: name, sha256: digest, with: $0) }
            let version = try await client.publish(name: name, fileURL: url, sha256: digest, signature: signature)
            if json {
                print(String(decoding: try HubJSON.encoder().encode(version), as: UTF8.self))
            } else {
                print(
                    "published \(version.name) version \(version.version) (\(version.size) bytes, sha256 \(version.sha256)\(version.signature == nil ? "" : ", signed"))")
            }
        }
    }
}

/// `mlkit hub list`: the models on a hub.
struct HubListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the models on a hub and their versions.")

    @OptionGroup var connection: HubConnectionOptions
    @Option(help: "The admin token, to see download counts (default: $OPENMLKIT_HUB_ADMIN_TOKEN).") var token: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            let admin = token ?? ProcessInfo.processInfo.environment["OPENMLKIT_HUB_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            let models = try await connection.client(adminToken: admin).listModels()
            if json {
                struct Listing: Encodable { let models: [HubModel] }
                print(String(decoding: try HubJSON.encoder().encode(Listing(models: models)), as: UTF8.self))
                return
            }
            if models.isEmpty { print("no models") }
            for model in models {
                let latest = model.latest.map { "latest v\($0.version)" } ?? "no versions"
                print("\(model.name)  (\(model.versions.count) version(s), \(latest))")
                for version in model.versions {
                    let downloads = version.downloads.map { "  \($0) download\($0 == 1 ? "" : "s")" } ?? ""
                    let signed = version.signature == nil ? "" : "  signed"
                    print(
                        "  v\(version.version)  \(version.size) bytes  sha256 \(version.sha256)  \(iso8601(version.publishedAt))\(downloads)\(signed)")
                }
                for rule in model.rollout.rules {
                    if let group = rule.group { print("  rollout: group \(group) -> v\(rule.version)") }
                    if let percent = rule.percent { print("  rollout: \(formatPercent(percent))% -> v\(rule.version)") }
                }
                if let pinned = model.rollout.defaultVersion { print("  rollout: everyone else -> v\(pinned)") }
            }
        }
    }
}

/// `mlkit hub rollout NAME`: which installations get which version.
struct HubRolloutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollout",
        abstract: "Set which versions of NAME which installations get (A/B tests, staged rollouts).",
        discussion: """
            Group rules come first, then percentage rules in the order given: `--percent 30=2 --percent 20=3` \
            serves version 2 to 30% of installations and version 3 to the next 20%. Everyone else gets \
            --default, or the latest version. With no rules and no --default, the rollout is cleared.
            """
    )

    @Argument(help: "The model's name.") var name: String
    @Option(name: .customLong("group"), help: "GROUP=VERSION: installations in GROUP get VERSION.") var groups: [String] = []
    @Option(name: .customLong("percent"), help: "PERCENT=VERSION: that share of installations gets VERSION.") var percents: [String] = []
    @Option(name: .customLong("default"), help: "The version for everyone else (default: the latest).") var defaultVersion: Int?
    @OptionGroup var connection: HubConnectionOptions
    @OptionGroup var admin: AdminTokenOption

    func run() async throws {
        try await reportingErrors {
            var rules = [HubRollout.Rule]()
            for text in groups {
                let (group, version) = try split(text, "--group")
                rules.append(.group(group, version: version))
            }
            for text in percents {
                let (share, version) = try split(text, "--percent")
                guard let percent = Double(share.hasSuffix("%") ? String(share.dropLast()) : share) else {
                    throw CLIError("--percent \(text): '\(share)' is not a number")
                }
                rules.append(.percent(percent, version: version))
            }
            let model = try await connection.client(adminToken: try admin.resolved())
                .setRollout(HubRollout(rules: rules, defaultVersion: defaultVersion), for: name)
            print("rollout of \(model.name): \(rules.count) rule(s), default \(model.rollout.defaultVersion.map { "v\($0)" } ?? "latest")")
        }
    }

    private func split(_ text: String, _ option: String) throws -> (String, Int) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let version = Int(parts[1]), version > 0 else {
            throw CLIError("\(option) \(text): expected KEY=VERSION with a positive version number")
        }
        return (parts[0], version)
    }
}

/// `mlkit hub delete NAME`: remove a model and its versions.
struct HubDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete model NAME and all its versions from the hub.")

    @Argument(help: "The model's name.") var name: String
    @OptionGroup var connection: HubConnectionOptions
    @OptionGroup var admin: AdminTokenOption

    func run() async throws {
        try await reportingErrors {
            try await connection.client(adminToken: try admin.resolved()).deleteModel(named: name)
            print("deleted \(name)")
        }
    }
}

/// Prints a line and flushes standard output (logs read by other processes while we run).
func printFlushed(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func iso8601(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

func formatPercent(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
}

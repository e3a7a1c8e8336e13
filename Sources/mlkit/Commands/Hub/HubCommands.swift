import ArgumentParser
import Foundation
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
            HubDeleteCommand.self,
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
        abstract: "Run a ModelHub server (catalogue in DIR/catalog.sqlite, files in DIR/blobs).",
        discussion: """
            The admin token comes from --admin-token, else $OPENMLKIT_HUB_ADMIN_TOKEN, else DIR/admin-token \
            (created with a random token, readable only by you, on first start). With --app-key (or \
            $OPENMLKIT_HUB_APP_KEY), listing and downloading need that key. One line per request is \
            logged to standard output.
            """
    )

    @Option(help: "The data directory (created if missing).")
    var data: String

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one; the chosen port is printed).")
    var port = 8080

    @Option(name: .customLong("admin-token"), help: "The token publishing and deleting need.")
    var adminToken: String?

    @Option(name: .customLong("app-key"), help: "A key that reads and downloads must present.")
    var appKey: String?

    @Option(name: .customLong("max-upload-mb"), help: "The largest model file accepted, in MiB.")
    var maxUploadMB = 512

    @Option(name: .customLong("download-rate"), help: "Limit each download to this many bytes per second.")
    var downloadRate: Int?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be within 0–65535") }
        guard maxUploadMB >= 1 else { throw ValidationError("--max-upload-mb must be at least 1") }
        if let downloadRate, downloadRate < 1024 { throw ValidationError("--download-rate must be at least 1024") }
    }

    func run() async throws {
        try await reportingErrors {
            let env = ProcessInfo.processInfo.environment
            let directory = URL(fileURLWithPath: data, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let token = try adminToken ?? env["OPENMLKIT_HUB_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
                ?? storedAdminToken(in: directory)
            let configuration = HubConfiguration(
                dataDirectory: directory, host: host, port: port, adminToken: token,
                appKey: appKey ?? env["OPENMLKIT_HUB_APP_KEY"].flatMap { $0.isEmpty ? nil : $0 },
                maxUploadBytes: Int64(maxUploadMB) << 20, downloadBytesPerSecond: downloadRate,
                accessLog: { line in printFlushed(line) })
            let server = try HubServer(configuration: configuration)
            let host = self.host
            try await server.run { port in
                printFlushed("ModelHub listening on http://\(host):\(port) (data: \(directory.path))")
            }
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

/// `mlkit hub publish NAME FILE`: upload a new version.
struct HubPublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish", abstract: "Publish FILE as the next version of model NAME; prints the new version.")

    @Argument(help: "The model's name.") var name: String
    @Argument(help: "The .tflite file.") var file: String
    @OptionGroup var connection: HubConnectionOptions
    @OptionGroup var admin: AdminTokenOption
    @Flag(help: "Print the version as JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            guard HubNames.isValidModelName(name) else { throw ModelDownloadError.invalidModelName(name) }
            let url = URL(fileURLWithPath: file)
            guard FileManager.default.isReadableFile(atPath: url.path) else { throw CLIError("cannot read \(file)") }
            let client = try connection.client(adminToken: try admin.resolved())
            let version = try await client.publish(name: name, fileURL: url, sha256: try sha256Hex(of: url))
            if json {
                print(String(decoding: try HubJSON.encoder().encode(version), as: UTF8.self))
            } else {
                print("published \(version.name) version \(version.version) (\(version.size) bytes, sha256 \(version.sha256))")
            }
        }
    }
}

/// `mlkit hub list`: the models on a hub.
struct HubListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the models on a hub and their versions.")

    @OptionGroup var connection: HubConnectionOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            let models = try await connection.client().listModels()
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
                    print("  v\(version.version)  \(version.size) bytes  sha256 \(version.sha256)  \(iso8601(version.publishedAt))")
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

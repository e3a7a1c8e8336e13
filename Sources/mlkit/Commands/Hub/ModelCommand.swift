import ArgumentParser
import Foundation
import OpenMLKit

/// `mlkit model ...`: what an app does with hosted models, from the command line.
struct ModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Download hosted models into a local cache, list them, and find the file an app would load.",
        subcommands: [ModelDownloadCommand.self, ModelListCommand.self, ModelPathCommand.self, ModelDeleteCommand.self]
    )
}

/// The cache directory option.
struct CacheOption: ParsableArguments {
    @Option(help: "The model cache directory (default: $OPENMLKIT_CACHE_DIR or ~/.cache/openmlkit/models).")
    var cache: String?

    var directory: URL {
        cache.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? ModelManager.Configuration.defaultCacheDirectory
    }
}

/// `mlkit model download NAME`: fetch (or update) a model the way `ModelManager.download` does.
struct ModelDownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download the version of NAME the hub serves this installation; prints the local path last.",
        discussion: """
            An interrupted download resumes where it stopped; the file is verified against the hub's \
            SHA-256 and loaded by the runtime before it replaces the installed version.
            """
    )

    @Argument(help: "The model's name.") var name: String
    @OptionGroup var connection: HubConnectionOptions
    @OptionGroup var cache: CacheOption
    @Option(name: .customLong("group"), help: "A rollout group this installation belongs to (repeatable).") var groups: [String] = []
    @Flag(name: .customLong("no-cellular"), help: "Refuse to download on a metered or unknown network.") var noCellular = false
    @Option(help: "Give up when the model file has not arrived within this many seconds.") var timeout: Double = 3600
    @Option(
        name: .customLong("min-rate"),
        help: "Give up when the hub sends fewer bytes per second than this, averaged over 20 s (0: never).")
    var minRate = 1024
    @Option(
        name: .customLong("trust"),
        help: "A public key file (from `hub keygen`): install only models signed by it (repeatable; any one suffices).")
    var trust: [String] = []

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        guard minRate >= 0 else { throw ValidationError("--min-rate must not be negative") }
    }

    func run() async throws {
        try await reportingErrors {
            guard HubNames.isValidModelName(name) else { throw ModelDownloadError.invalidModelName(name) }
            let client = try connection.client()
            let keys = try trust.map { try ModelSigningPublicKey(contentsOf: URL(fileURLWithPath: $0)) }
            let manager = ModelManager(
                configuration: .init(
                    hubURL: client.baseURL, appKey: client.appKey, cacheDirectory: cache.directory, userGroups: groups,
                    downloadLimits: HubTransferLimits(timeout: timeout, minimumBytesPerSecond: minRate),
                    requestLimits: HubTransferLimits(timeout: min(timeout, 30), minimumBytesPerSecond: 0),
                    trustedSigningKeys: keys))
            let model = CustomRemoteModel(name: name)
            let before = manager.downloadedModel(model)
            let progress = manager.download(model, conditions: ModelDownloadConditions(allowsCellularAccess: !noCellular))
            let bar = ProgressBar(label: name)
            let ticker = Task {
                while !Task.isCancelled {
                    bar.show(progress)
                    try? await Task.sleep(nanoseconds: 100_000_000)
                }
            }
            defer { ticker.cancel() }
            let installed = try await manager.downloadModel(model)
            ticker.cancel()
            bar.finish(progress)
            if before?.sha256 == installed.sha256 {
                FileHandle.standardError.write(Data("\(name) v\(installed.version) is up to date\n".utf8))
            } else {
                FileHandle.standardError.write(
                    Data("\(name) v\(installed.version): \(installed.size) bytes, sha256 \(installed.sha256) verified\n".utf8))
            }
            print(installed.path)
        }
    }
}

/// A one-line progress bar on standard error (redrawn in place on a terminal, every 25% otherwise).
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let isTerminal = isatty(2) != 0
    private var lastQuarter = -1

    init(label: String) { self.label = label }

    func show(_ progress: Progress) {
        guard progress.totalUnitCount > 0 else { return }
        let fraction = min(1, Double(progress.completedUnitCount) / Double(progress.totalUnitCount))
        let text = line(fraction, progress)
        if isTerminal {
            FileHandle.standardError.write(Data("\r\(text)".utf8))
        } else if Int(fraction * 4) > lastQuarter {
            lastQuarter = Int(fraction * 4)
            FileHandle.standardError.write(Data("\(text)\n".utf8))
        }
    }

    func finish(_ progress: Progress) {
        show(progress)
        if isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    private func line(_ fraction: Double, _ progress: Progress) -> String {
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let mb = { (bytes: Int64) in String(format: "%.2f", Double(bytes) / 1_048_576) }
        return "\(label) [\(bar)] \(Int(fraction * 100))% \(mb(progress.completedUnitCount))/\(mb(progress.totalUnitCount)) MiB"
    }
}

/// `mlkit model list`: the downloaded models.
struct ModelListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the downloaded models in the cache.")

    @OptionGroup var cache: CacheOption
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try reportingErrors {
            let models = ModelManager(configuration: .init(hubURL: nil, cacheDirectory: cache.directory)).downloadedModels()
            if json {
                struct Listing: Encodable { let models: [DownloadedModel] }
                print(String(decoding: try HubJSON.encoder().encode(Listing(models: models)), as: UTF8.self))
                return
            }
            if models.isEmpty { print("no downloaded models in \(cache.directory.path)") }
            for model in models {
                print("\(model.name)  v\(model.version)  \(model.size) bytes  sha256 \(model.sha256)  \(model.path)")
            }
        }
    }
}

/// `mlkit model path NAME`: the file an app would load.
struct ModelPathCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "path", abstract: "Print the model file an app would load for NAME (the downloaded version).")

    @Argument(help: "The model's name.") var name: String
    @OptionGroup var cache: CacheOption

    func run() async throws {
        try reportingErrors {
            let manager = ModelManager(configuration: .init(hubURL: nil, cacheDirectory: cache.directory))
            print(try manager.latestModelFilePath(CustomRemoteModel(name: name)))
        }
    }
}

/// `mlkit model delete NAME`: remove a downloaded model.
struct ModelDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete the downloaded files of NAME.")

    @Argument(help: "The model's name.") var name: String
    @OptionGroup var cache: CacheOption

    func run() async throws {
        try reportingErrors {
            let manager = ModelManager(configuration: .init(hubURL: nil, cacheDirectory: cache.directory))
            try manager.deleteDownloadedModel(CustomRemoteModel(name: name))
            print("deleted the downloaded \(name)")
        }
    }
}

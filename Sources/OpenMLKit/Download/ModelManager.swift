import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TFLiteRuntime

/// Downloads, verifies, caches and updates hosted models (ML Kit's `ModelManager`).
///
/// ```swift
/// let remoteModel = CustomRemoteModel(name: "your_remote_model")
/// let conditions = ModelDownloadConditions(allowsCellularAccess: true, allowsBackgroundDownloading: true)
/// let progress = ModelManager.modelManager().download(remoteModel, conditions: conditions)
/// ```
///
/// Each `download` asks the hub which version this installation should have (rollouts and A/B
/// groups apply) and fetches it only when it differs from the installed one. Bytes are written
/// to a partial file as they arrive; an interrupted download resumes with HTTP `Range`. The file
/// is checked against the hub's size and SHA-256 and loaded by the runtime's verifier before it
/// is installed; a download that fails any check leaves the previous model in place. Two
/// `download` calls for one model while it downloads share one transfer and one `Progress`.
/// Success and failure are posted as `.firebaseMLModelDownloadDidSucceed` / `...DidFail`.
///
/// Thread-safe.
public final class ModelManager: @unchecked Sendable {
    /// Where a manager downloads from and where it keeps models.
    public struct Configuration: Sendable {
        /// The hub's base URL; downloads fail with ``ModelDownloadError/hubNotConfigured`` when nil.
        public var hubURL: URL?
        /// The hub's app key, when it has one.
        public var appKey: String?
        /// The model cache directory.
        public var cacheDirectory: URL
        /// Rollout groups this installation belongs to (e.g. `["beta"]`).
        public var userGroups: [String]
        /// Tells metered from unmetered networks (see ``ModelDownloadConditions``).
        public var networkMonitor: any NetworkMonitor
        /// Deadline and minimum rate of a model file's transfer (default: one hour, 1 KiB/s over
        /// every 20 s); a transfer that breaks either fails with ``ModelDownloadError/timedOut(_:)``
        /// and keeps its partial file for resuming.
        public var downloadLimits: HubTransferLimits
        /// Deadline of the hub's answers about versions (default 30 s).
        public var requestLimits: HubTransferLimits
        /// When not empty, only models whose version carries a valid signature by one of these keys
        /// are installed (see ``ModelSignature``); others fail with
        /// ``ModelDownloadError/signatureMissing(_:)`` or ``ModelDownloadError/signatureInvalid(_:)``
        /// before any byte is downloaded, and the installed model stays.
        public var trustedSigningKeys: [ModelSigningPublicKey]

        /// A configuration.
        public init(
            hubURL: URL?, appKey: String? = nil, cacheDirectory: URL = Configuration.defaultCacheDirectory,
            userGroups: [String] = [], networkMonitor: any NetworkMonitor = SystemNetworkMonitor(),
            downloadLimits: HubTransferLimits = .download, requestLimits: HubTransferLimits = .metadata,
            trustedSigningKeys: [ModelSigningPublicKey] = []
        ) {
            self.hubURL = hubURL
            self.appKey = appKey
            self.cacheDirectory = cacheDirectory
            self.userGroups = userGroups
            self.networkMonitor = networkMonitor
            self.downloadLimits = downloadLimits
            self.requestLimits = requestLimits
            self.trustedSigningKeys = trustedSigningKeys
        }

        /// `OPENMLKIT_CACHE_DIR`, else ``platformCacheDirectory``: `~/.cache/openmlkit/models` on
        /// Linux, Application Support + `openmlkit/models` on Apple platforms (where the system
        /// empties Caches when storage runs low).
        public static var defaultCacheDirectory: URL {
            if let path = ProcessInfo.processInfo.environment["OPENMLKIT_CACHE_DIR"], !path.isEmpty {
                return URL(fileURLWithPath: path, isDirectory: true)
            }
            return platformCacheDirectory
        }

        /// From the environment: `OPENMLKIT_HUB_URL`, `OPENMLKIT_APP_KEY`, `OPENMLKIT_CACHE_DIR`,
        /// `OPENMLKIT_GROUPS` (comma-separated). On Apple platforms, where apps have no environment,
        /// the main bundle's Info.plist keys `OpenMLKitHubURL` and `OpenMLKitAppKey` are used when
        /// the variables are not set.
        public static func fromEnvironment() -> Configuration {
            let env = ProcessInfo.processInfo.environment
            return Configuration(
                hubURL: nonEmpty(env["OPENMLKIT_HUB_URL"] ?? infoPlist("OpenMLKitHubURL")).flatMap { URL(string: $0) },
                appKey: nonEmpty(env["OPENMLKIT_APP_KEY"] ?? infoPlist("OpenMLKitAppKey")),
                userGroups: (env["OPENMLKIT_GROUPS"] ?? "").split(separator: ",").map(String.init))
        }

        /// The Info.plist key names read by ``fromEnvironment()`` on Apple platforms.
        public static let hubURLInfoPlistKey = "OpenMLKitHubURL"
        /// The Info.plist key of the hub's app key.
        public static let appKeyInfoPlistKey = "OpenMLKitAppKey"

        private static func nonEmpty(_ value: String?) -> String? {
            guard let value, !value.isEmpty else { return nil }
            return value
        }

        private static func infoPlist(_ key: String) -> String? {
            #if canImport(Darwin)
            return Bundle.main.object(forInfoDictionaryKey: key) as? String
            #else
            return nil
            #endif
        }
    }

    private static let shared = ModelManager(configuration: .fromEnvironment())

    /// The shared manager (ML Kit's `ModelManager.modelManager()`), configured from the
    /// environment until ``configuration`` is set.
    public static func modelManager() -> ModelManager { shared }

    /// What the manager's callers share: its settings and the downloads in flight, by model name.
    private struct State {
        var configuration: Configuration
        var applicationState = ApplicationState.foreground
        var inFlight: [String: Transfer] = [:]
    }

    private let state: LockedBox<State>

    /// A manager with its own configuration (e.g. one cache directory per test or per tenant).
    public init(configuration: Configuration) {
        state = LockedBox(State(configuration: configuration))
    }

    /// The configuration; changes apply to downloads started afterwards.
    public var configuration: Configuration {
        get { state.withLockedValue { $0.configuration } }
        set { state.withLockedValue { $0.configuration = newValue } }
    }

    /// Whether the process is in the foreground; going to the background cancels downloads
    /// whose conditions do not allow background downloading (their partial files are kept).
    public var applicationState: ApplicationState {
        get { state.withLockedValue { $0.applicationState } }
        set {
            let stopped = state.withLockedValue { state -> [Transfer] in
                state.applicationState = newValue
                guard newValue == .background else { return [] }
                return state.inFlight.values.filter { !$0.conditions.allowsBackgroundDownloading }
            }
            for transfer in stopped { transfer.task.cancel() }
        }
    }

    private var store: ModelStore { ModelStore(root: configuration.cacheDirectory) }

    // MARK: Downloading

    /// Starts downloading `remoteModel` if it is not on the device or the hub has another
    /// version for this installation, and returns the download's progress (in bytes). Completion
    /// is announced by notification; a download already running for the model is shared.
    @discardableResult
    public func download(_ remoteModel: RemoteModel, conditions: ModelDownloadConditions) -> Progress {
        transfer(for: remoteModel, conditions: conditions).progress
    }

    /// Downloads `remoteModel` as ``download(_:conditions:)`` does and returns the installed model.
    public func downloadModel(
        _ remoteModel: RemoteModel, conditions: ModelDownloadConditions = ModelDownloadConditions()
    ) async throws -> DownloadedModel {
        let transfer = transfer(for: remoteModel, conditions: conditions)
        return try await withTaskCancellationHandler {
            try await transfer.task.value
        } onCancel: {
            transfer.task.cancel()
        }
    }

    /// Whether a version of `remoteModel` is installed and usable now.
    public func isModelDownloaded(_ remoteModel: RemoteModel) -> Bool {
        store.installed(remoteModel.name) != nil
    }

    /// The installed model file of `remoteModel` (ML Kit's `getLatestModelFilePath`), handed to
    /// `completion` on the main actor on Apple platforms, on ``CompletionQueue/queue`` on Linux.
    public func getLatestModelFilePath(
        _ remoteModel: RemoteModel, completion: @escaping CompletionHandler<String>
    ) {
        let result = Result { try latestModelFilePath(remoteModel) }
        deliverCompletion {
            switch result {
            case .success(let path): completion(path, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }

    /// The installed model file of `remoteModel`; throws ``ModelDownloadError/notDownloaded(_:)``.
    public func latestModelFilePath(_ remoteModel: RemoteModel) throws -> String {
        _ = try store.directory(for: remoteModel.name)
        guard let model = store.installed(remoteModel.name) else { throw ModelDownloadError.notDownloaded(remoteModel.name) }
        return model.path
    }

    /// The installed version of `remoteModel`, if any.
    public func downloadedModel(_ remoteModel: RemoteModel) -> DownloadedModel? {
        store.installed(remoteModel.name)
    }

    /// Every downloaded model, sorted by name.
    public func downloadedModels() -> [DownloadedModel] { store.allInstalled() }

    /// The downloaded models as remote models (ML Kit's `listDownloadedModels`), handed to
    /// `completion` as ``getLatestModelFilePath(_:completion:)`` does.
    public func listDownloadedModels(completion: @escaping ListCompletionHandler) {
        let models = Set(store.allInstalled().map { CustomRemoteModel(name: $0.name) })
        deliverCompletion { completion(models, nil) }
    }

    /// Deletes the downloaded files of `remoteModel` (ML Kit's `deleteDownloadedModel`); an
    /// error when nothing was downloaded. `completion` runs as in ``getLatestModelFilePath(_:completion:)``.
    public func deleteDownloadedModel(_ remoteModel: RemoteModel, completion: @escaping ErrorCompletionHandler) {
        let error: Error?
        do { try deleteDownloadedModel(remoteModel); error = nil } catch let failure { error = failure }
        deliverCompletion { completion(error) }
    }

    #if canImport(Darwin) || OPENMLKIT_MAIN_ACTOR_COMPLETIONS
    /// The completion of ``listDownloadedModels(completion:)`` (ML Kit's non-optional set).
    public typealias ListCompletionHandler = @MainActor @Sendable (Set<CustomRemoteModel>, Error?) -> Void
    #else
    /// The completion of ``listDownloadedModels(completion:)`` (ML Kit's non-optional set).
    public typealias ListCompletionHandler = @Sendable (Set<CustomRemoteModel>, Error?) -> Void
    #endif

    /// Deletes the downloaded files of `remoteModel`; throws when nothing was downloaded.
    public func deleteDownloadedModel(_ remoteModel: RemoteModel) throws {
        guard try store.remove(remoteModel.name) else { throw ModelDownloadError.notDownloaded(remoteModel.name) }
    }

    /// This installation's ID, as sent to the hub for percentage rollouts.
    public func installationID() throws -> String { try store.installationID() }

    // MARK: Transfers

    private final class Transfer: @unchecked Sendable {
        let progress: Progress
        let conditions: ModelDownloadConditions
        var task: Task<DownloadedModel, Error>!
        init(progress: Progress, conditions: ModelDownloadConditions) {
            self.progress = progress
            self.conditions = conditions
        }
    }

    private func transfer(for remoteModel: RemoteModel, conditions: ModelDownloadConditions) -> Transfer {
        // One lock span from the lookup to the registration: two callers never start two transfers
        // of one model, and the task's own removal waits until it is registered.
        state.withLockedValue { state in
            if let running = state.inFlight[remoteModel.name] { return running }
            let transfer = startTransfer(for: remoteModel, conditions: conditions, configuration: state.configuration)
            state.inFlight[remoteModel.name] = transfer
            return transfer
        }
    }

    /// A new transfer of `remoteModel`, running; it leaves the table of transfers in flight when it ends.
    private func startTransfer(
        for remoteModel: RemoteModel, conditions: ModelDownloadConditions, configuration: Configuration
    ) -> Transfer {
        let progress = Progress(totalUnitCount: -1)
        let transfer = Transfer(progress: progress, conditions: conditions)
        let priority: TaskPriority = conditions.allowsBackgroundDownloading ? .background : .userInitiated
        transfer.task = Task.detached(priority: priority) { [self] in
            defer { state.withLockedValue { _ = $0.inFlight.removeValue(forKey: remoteModel.name) } }
            do {
                let model = try await perform(remoteModel, conditions, configuration, progress)
                post(.firebaseMLModelDownloadDidSucceed, remoteModel, nil)
                return model
            } catch {
                let failure = (error is CancellationError) ? ModelDownloadError.cancelled : error
                post(.firebaseMLModelDownloadDidFail, remoteModel, failure)
                throw failure
            }
        }
        progress.cancellationHandler = { [transfer] in transfer.task.cancel() }
        return transfer
    }

    private func post(_ name: Notification.Name, _ model: RemoteModel, _ error: Error?) {
        var info: [AnyHashable: Any] = [ModelDownloadUserInfoKey.remoteModel.rawValue: model]
        if let error { info[ModelDownloadUserInfoKey.error.rawValue] = error }
        NotificationCenter.default.post(name: name, object: self, userInfo: info)
    }

    private func checkConditions(_ conditions: ModelDownloadConditions, _ configuration: Configuration) throws {
        if !conditions.allowsBackgroundDownloading && applicationState == .background {
            throw ModelDownloadError.conditionsNotMet(
                "the process is in the background and the conditions do not allow background downloading")
        }
        if !conditions.allowsCellularAccess {
            let network = configuration.networkMonitor.currentNetwork()
            if network != .unmetered {
                throw ModelDownloadError.conditionsNotMet(
                    "the network is \(network.rawValue) and the conditions do not allow cellular (metered) access")
            }
        }
    }

    private func perform(
        _ remoteModel: RemoteModel, _ conditions: ModelDownloadConditions, _ configuration: Configuration,
        _ progress: Progress
    ) async throws -> DownloadedModel {
        let name = remoteModel.name
        guard HubNames.isValidModelName(name) else { throw ModelDownloadError.invalidModelName(name) }
        guard let hubURL = configuration.hubURL else { throw ModelDownloadError.hubNotConfigured }
        try checkConditions(conditions, configuration)
        let store = ModelStore(root: configuration.cacheDirectory)
        let client = ModelHubClient(baseURL: hubURL, appKey: configuration.appKey, limits: configuration.requestLimits)
        let installed = store.installed(name)
        let answer = try await client.latestVersion(
            of: name, installationID: try store.installationID(), groups: configuration.userGroups,
            ifNoneMatch: installed?.sha256)
        let version: HubModelVersion
        switch answer {
        case .current:
            guard let installed else { throw ModelDownloadError.invalidResponse("304 for a model that is not installed") }
            progress.totalUnitCount = installed.size
            progress.completedUnitCount = installed.size
            return installed
        case .version(let latest):
            if let installed, installed.sha256 == latest.sha256, installed.version == latest.version {
                progress.totalUnitCount = installed.size
                progress.completedUnitCount = installed.size
                return installed
            }
            version = latest
        }
        guard version.name == name else {
            throw ModelDownloadError.invalidResponse("asked for '\(name)', the hub described a model named '\(version.name)'")
        }
        guard version.size > 0 else {
            throw ModelDownloadError.invalidResponse("the hub gave '\(name)' v\(version.version) an impossible size of \(version.size) bytes")
        }
        guard version.sha256.count == 64, version.sha256.allSatisfy(\.isHexDigit) else {
            throw ModelDownloadError.invalidResponse("the hub gave '\(name)' v\(version.version) a malformed SHA-256")
        }
        try ModelSignature.verify(version, keys: configuration.trustedSigningKeys)
        var offset = store.resumableBytes(for: version) ?? -1
        if offset < 0 {
            try store.beginPartial(version)
            offset = 0
        }
        progress.totalUnitCount = version.size
        progress.completedUnitCount = offset
        if offset < version.size {
            try Task.checkCancellation()
            let transfer = HubTransfer(
                request: client.downloadRequest(for: version, from: offset),
                sink: .file(url: try store.partialFile(for: name), offset: offset, expectedTotal: version.size, progress: progress),
                limits: configuration.downloadLimits, redirects: .sameOriginWithCredentials)
            let response: HTTPURLResponse
            let body: Data
            do {
                (body, response) = try await transfer.run(priority: conditions.allowsBackgroundDownloading ? 0.25 : 0.75)
            } catch ModelDownloadError.oversizedAnswer(let message) {
                // More bytes than the version has cannot become right by resuming.
                store.discardPartial(name)
                throw ModelDownloadError.oversizedAnswer(message)
            }
            guard response.statusCode == 200 || response.statusCode == 206 else {
                if (300..<400).contains(response.statusCode) {
                    throw ModelDownloadError.redirectRefused("the hub answered \(response.statusCode); not followed")
                }
                throw HubHTTP.error(status: response.statusCode, body: body, url: response.url)
            }
        }
        try verify(try store.partialFile(for: name), against: version, store: store)
        return try store.install(version)
    }

    /// Size, SHA-256 and a full load by the runtime's verifier; any failure discards the partial
    /// file (it cannot become right by resuming) and leaves the installed model alone.
    private func verify(_ file: URL, against version: HubModelVersion, store: ModelStore) throws {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
            guard size == version.size else {
                throw ModelDownloadError.sizeMismatch(name: version.name, expected: version.size, actual: size)
            }
            let digest = try ModelStore.sha256(of: file)
            guard digest == version.sha256 else {
                throw ModelDownloadError.integrityCheckFailed(name: version.name, expected: version.sha256, actual: digest)
            }
            do { _ = try Model(path: file.path) } catch {
                throw ModelDownloadError.invalidModelFile(name: version.name, reason: error.localizedDescription)
            }
        } catch let error as ModelDownloadError {
            store.discardPartial(version.name)
            throw error
        } catch {
            store.discardPartial(version.name)
            throw ModelDownloadError.storage("cannot verify the download of '\(version.name)': \(error.localizedDescription)")
        }
    }
}

import Foundation

/// Gets hosted models the way Firebase ML Model Downloader does (`ModelDownloader`), on top of
/// ``ModelManager``.
///
/// ```swift
/// let conditions = ModelDownloadConditions(allowsCellularAccess: false)
/// ModelDownloader.modelDownloader()
///     .getModel(name: "your_model", downloadType: .localModelUpdateInBackground, conditions: conditions) { result in
///         switch result {
///         case .success(let customModel): let interpreter = try? Interpreter(modelPath: customModel.path)
///         case .failure(let error): print(error)
///         }
///     }
/// ```
///
/// The hub is found as ``ModelManager`` finds it (its ``ModelManager/Configuration``: the
/// `OPENMLKIT_HUB_URL` variable, or the Info.plist key `OpenMLKitHubURL` on Apple platforms);
/// models are verified and stored by the manager, so both APIs see the same models. Completion and
/// progress handlers run on the main actor on Apple platforms and on ``CompletionQueue/queue`` on
/// Linux; every call also has an `async` form. Thread-safe.
public final class ModelDownloader: Sendable {
    /// The manager that downloads, verifies and stores the models.
    public let modelManager: ModelManager

    private static let shared = ModelDownloader(modelManager: .modelManager())

    /// The downloader of the shared ``ModelManager`` (Firebase's `ModelDownloader.modelDownloader()`).
    public static func modelDownloader() -> ModelDownloader { shared }

    /// A downloader over `modelManager` (its own hub and cache; e.g. one per test).
    public init(modelManager: ModelManager) {
        self.modelManager = modelManager
    }

    // MARK: Getting a model

    /// Gets the model `modelName` as `downloadType` says and hands it to `completion`.
    ///
    /// - Parameters:
    ///   - modelName: the model's name on the hub.
    ///   - downloadType: whether a model already on the device answers at once, and whether a newer
    ///     version is then fetched (``ModelDownloadType``).
    ///   - conditions: when a transfer may run (cellular, background).
    ///   - progressHandler: the fraction of the model file transferred, in 0...1, while a transfer
    ///     runs (not called when no transfer is needed).
    ///   - completion: the model on the device, or a ``DownloadError``.
    public func getModel(
        name modelName: String, downloadType: ModelDownloadType, conditions: ModelDownloadConditions,
        progressHandler: ProgressHandler? = nil,
        completion: @escaping ResultCompletionHandler<CustomModel, DownloadError>
    ) {
        Task.detached { [self] in
            let result: Result<CustomModel, DownloadError>
            do {
                result = .success(
                    try await self.model(
                        named: modelName, downloadType: downloadType, conditions: conditions,
                        progressHandler: progressHandler))
            } catch {
                result = .failure(DownloadError(error))
            }
            deliverCompletion { completion(result) }
        }
    }

    /// The model `modelName`, got as `downloadType` says (the `async` form of
    /// ``getModel(name:downloadType:conditions:progressHandler:completion:)``).
    ///
    /// - Throws: ``DownloadError``.
    public func getModel(
        name modelName: String, downloadType: ModelDownloadType,
        conditions: ModelDownloadConditions = ModelDownloadConditions(),
        progressHandler: ProgressHandler? = nil
    ) async throws(DownloadError) -> CustomModel {
        do {
            return try await model(
                named: modelName, downloadType: downloadType, conditions: conditions, progressHandler: progressHandler)
        } catch {
            throw DownloadError(error)
        }
    }

    private func model(
        named name: String, downloadType: ModelDownloadType, conditions: ModelDownloadConditions,
        progressHandler: ProgressHandler?
    ) async throws -> CustomModel {
        guard !name.isEmpty else { throw DownloadError.emptyModelName }
        let remoteModel = CustomRemoteModel(name: name)
        switch downloadType {
        case .localModel:
            if let installed = modelManager.downloadedModel(remoteModel) { return CustomModel(installed) }
        case .localModelUpdateInBackground:
            if let installed = modelManager.downloadedModel(remoteModel) {
                // The update's outcome is announced by the download notifications; the caller
                // already has a model, as Firebase's background update leaves it.
                modelManager.download(remoteModel, conditions: conditions)
                return CustomModel(installed)
            }
        case .latestModel:
            break
        }
        let progress = modelManager.download(remoteModel, conditions: conditions)
        guard let progressHandler else {
            return CustomModel(try await modelManager.downloadModel(remoteModel, conditions: conditions))
        }
        let reporter = Task.detached { await ModelDownloader.report(progress, to: progressHandler) }
        let downloaded: DownloadedModel
        do {
            downloaded = try await modelManager.downloadModel(remoteModel, conditions: conditions)
        } catch {
            reporter.cancel()
            throw error
        }
        reporter.cancel()
        // The last fraction the poller saw may predate the end of the transfer.
        if await reporter.value < 1 { deliverCompletion { progressHandler(1) } }
        return CustomModel(downloaded)
    }

    /// Hands `progress`'s fraction to `handler` whenever it changes, until cancelled; returns the
    /// last fraction handed over.
    private static func report(_ progress: Progress, to handler: @escaping ProgressHandler) async -> Float {
        var last: Float = -1
        while !Task.isCancelled {
            let fraction = progress.totalUnitCount > 0 ? Float(min(1, max(0, progress.fractionCompleted))) : 0
            if fraction != last {
                last = fraction
                deliverCompletion { handler(fraction) }
            }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return last
    }

    // MARK: Models on the device

    /// Every model on the device (Firebase's `listDownloadedModels`).
    public func listDownloadedModels(
        completion: @escaping ResultCompletionHandler<Set<CustomModel>, DownloadedModelError>
    ) {
        let models = Set(modelManager.downloadedModels().map(CustomModel.init))
        deliverCompletion { completion(.success(models)) }
    }

    /// Every model on the device (the `async` form of ``listDownloadedModels(completion:)``).
    public func listDownloadedModels() async throws(DownloadedModelError) -> Set<CustomModel> {
        Set(modelManager.downloadedModels().map(CustomModel.init))
    }

    /// Deletes the model `modelName` from the device (Firebase's `deleteDownloadedModel(name:completion:)`);
    /// ``DownloadedModelError/notFound`` when it is not there.
    public func deleteDownloadedModel(
        name modelName: String, completion: @escaping ResultCompletionHandler<Void, DownloadedModelError>
    ) {
        let result = Result<Void, DownloadedModelError> { () throws(DownloadedModelError) in
            try self.delete(modelName)
        }
        deliverCompletion { completion(result) }
    }

    /// Deletes the model `modelName` from the device (the `async` form of
    /// ``deleteDownloadedModel(name:completion:)``).
    public func deleteDownloadedModel(name modelName: String) async throws(DownloadedModelError) {
        try delete(modelName)
    }

    private func delete(_ name: String) throws(DownloadedModelError) {
        do {
            try modelManager.deleteDownloadedModel(CustomRemoteModel(name: name))
        } catch ModelDownloadError.notDownloaded {
            throw .notFound
        } catch ModelDownloadError.invalidModelName {
            throw .notFound
        } catch let error as ModelDownloadError {
            if case .storage(let message) = error { throw .fileIOError(description: message) }
            throw .internalError(description: error.localizedDescription)
        } catch {
            throw .internalError(description: error.localizedDescription)
        }
    }
}

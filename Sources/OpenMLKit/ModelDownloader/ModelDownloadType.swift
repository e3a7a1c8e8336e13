/// How ``ModelDownloader/getModel(name:downloadType:conditions:progressHandler:completion:)`` gets
/// a model (Firebase ML Model Downloader's `ModelDownloadType`).
public enum ModelDownloadType: Sendable, Equatable, Hashable {
    /// The model on the device if there is one, without asking the hub; otherwise as
    /// ``latestModel``.
    case localModel
    /// The model on the device if there is one, while the hub's current version is downloaded in
    /// the background for the next call; otherwise as ``latestModel``.
    case localModelUpdateInBackground
    /// The hub's current version for this installation: downloaded when the device does not have
    /// it, without a transfer when it does.
    case latestModel
}

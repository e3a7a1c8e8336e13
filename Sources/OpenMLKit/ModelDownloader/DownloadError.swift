import Foundation

/// Why ``ModelDownloader`` could not get a model (Firebase ML Model Downloader's `DownloadError`).
///
/// The underlying ``ModelDownloadError`` is mapped to Firebase's cases; causes Firebase has no case
/// for are ``internalError(description:)`` with the full explanation.
public enum DownloadError: Error, Equatable, Sendable {
    /// The hub has no model by this name.
    case notFound
    /// The hub refused this app's credentials.
    case permissionDenied
    /// The download conditions or the configuration do not allow the download now (no hub
    /// configured, metered network not allowed, background download not allowed).
    case failedPrecondition
    /// The model name is empty.
    case emptyModelName
    /// The model name is not one the hub accepts.
    case invalidArgument
    /// The device has no room for the model.
    case notEnoughSpace
    /// The download URL expired (kept for Firebase's case list; OpenMLKit's hub URLs do not expire).
    case expiredDownloadURL
    /// Any other failure, explained.
    case internalError(description: String)

    /// Firebase's case for an OpenMLKit download error.
    public init(_ error: Error) {
        switch error {
        case let error as DownloadError:
            self = error
        case let error as ModelDownloadError:
            switch error {
            case .modelNotFound: self = .notFound
            case .unauthorized: self = .permissionDenied
            case .hubNotConfigured, .conditionsNotMet: self = .failedPrecondition
            case .invalidModelName: self = .invalidArgument
            case .storage(let message) where message.localizedCaseInsensitiveContains("space"):
                self = .notEnoughSpace
            default: self = .internalError(description: error.localizedDescription)
            }
        default:
            self = .internalError(description: error.localizedDescription)
        }
    }
}

extension DownloadError: LocalizedError {
    /// A sentence saying what went wrong.
    public var errorDescription: String? {
        switch self {
        case .notFound: return "The model hub has no model by this name."
        case .permissionDenied: return "The model hub refused this app's credentials."
        case .failedPrecondition: return "The model cannot be downloaded now (no hub configured, or the download conditions are not met)."
        case .emptyModelName: return "The model name is empty."
        case .invalidArgument: return "The model name is not valid."
        case .notEnoughSpace: return "There is not enough space on the device for the model."
        case .expiredDownloadURL: return "The model's download URL expired."
        case .internalError(let description): return description
        }
    }
}

/// Why ``ModelDownloader`` could not list or delete downloaded models (Firebase's
/// `DownloadedModelError`).
public enum DownloadedModelError: Error, Equatable, Sendable {
    /// No model by this name is on the device.
    case notFound
    /// The model cache could not be read or written.
    case fileIOError(description: String)
    /// Any other failure, explained.
    case internalError(description: String)
}

extension DownloadedModelError: LocalizedError {
    /// A sentence saying what went wrong.
    public var errorDescription: String? {
        switch self {
        case .notFound: return "No downloaded model has this name."
        case .fileIOError(let description): return "The model cache could not be used: \(description)"
        case .internalError(let description): return description
        }
    }
}

import Foundation

/// Why a hosted model could not be listed, downloaded, verified or installed.
public enum ModelDownloadError: Error, Equatable, Sendable {
    /// No hub URL is configured (`ModelManager.Configuration.hubURL` or `OPENMLKIT_HUB_URL`).
    case hubNotConfigured
    /// The name is not one the hub accepts.
    case invalidModelName(String)
    /// The hub could not be reached or the transfer broke off; a partial download is kept for resuming.
    case network(String)
    /// The hub has no model by this name (or it has no versions).
    case modelNotFound(String)
    /// The hub refused the credentials (app key or admin token).
    case unauthorized(String)
    /// The hub answered with an error status.
    case server(status: Int, message: String)
    /// The download conditions forbid downloading now; the message says which.
    case conditionsNotMet(String)
    /// The downloaded bytes do not have the hub's SHA-256; nothing was installed.
    case integrityCheckFailed(name: String, expected: String, actual: String)
    /// The downloaded file has the wrong size; nothing was installed.
    case sizeMismatch(name: String, expected: Int64, actual: Int64)
    /// The downloaded file is not a loadable TensorFlow Lite model; nothing was installed.
    case invalidModelFile(name: String, reason: String)
    /// The local model cache could not be read or written.
    case storage(String)
    /// The download was cancelled; a partial download is kept for resuming.
    case cancelled
    /// The model has not been downloaded.
    case notDownloaded(String)
    /// The hub's answer could not be understood.
    case invalidResponse(String)
    /// The hub did not answer completely in time, or sent too slowly; a partial download is kept.
    case timedOut(String)
    /// The hub redirected a request that may not be redirected there (credentials to another
    /// origin, or any redirect of a request that changes the hub).
    case redirectRefused(String)
    /// The hub sent, or announced, more bytes than it described; the transfer was stopped.
    case oversizedAnswer(String)
    /// Signatures are required (trusted keys are configured) and this model's version has none.
    case signatureMissing(String)
    /// The model's signature is not valid for its name and SHA-256 under any trusted key.
    case signatureInvalid(String)
}

extension ModelDownloadError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .hubNotConfigured:
            return "no model hub is configured (set ModelManager's hubURL or OPENMLKIT_HUB_URL)"
        case .invalidModelName(let name):
            return "'\(name)' is not a valid model name (1–128 of A-Z a-z 0-9 . _ -, starting with a letter or digit, no '..')"
        case .network(let message): return "cannot reach the model hub: \(message)"
        case .modelNotFound(let message): return message
        case .unauthorized(let message): return "the model hub refused the credentials: \(message)"
        case .server(let status, let message): return "the model hub answered \(status): \(message)"
        case .conditionsNotMet(let message): return "download conditions not met: \(message)"
        case .integrityCheckFailed(let name, let expected, let actual):
            return "download of '\(name)' failed verification: SHA-256 is \(actual), the hub says \(expected); kept the previous model"
        case .sizeMismatch(let name, let expected, let actual):
            return "download of '\(name)' has \(actual) bytes, the hub says \(expected); kept the previous model"
        case .invalidModelFile(let name, let reason):
            return "download of '\(name)' is not a valid TensorFlow Lite model (\(reason)); kept the previous model"
        case .storage(let message): return "model cache: \(message)"
        case .cancelled: return "the download was cancelled"
        case .notDownloaded(let name): return "the remote model '\(name)' has not been downloaded"
        case .invalidResponse(let message): return "unexpected answer from the model hub: \(message)"
        case .timedOut(let message): return "the model hub timed out: \(message)"
        case .redirectRefused(let message): return "refused a redirect: \(message)"
        case .oversizedAnswer(let message): return "the model hub sent too much: \(message)"
        case .signatureMissing(let name):
            return "'\(name)' is not signed, and this app only installs models signed by a trusted key; kept the previous model"
        case .signatureInvalid(let name):
            return "'\(name)' has a signature that no trusted key made for this name and SHA-256; kept the previous model"
        }
    }
}

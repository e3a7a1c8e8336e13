import Foundation

/// Why ML Kit's model interpreter could not run, with what and where.
public enum ModelInterpreterError: Error, Equatable, Sendable {
    /// An option is malformed (negative index, empty or non-positive dimensions).
    case invalidOptions(String)
    /// The options do not match the model: the message names the index, what the options say
    /// and what the model takes.
    case formatMismatch(String)
    /// An input given to `ModelInputs` has the wrong size or content.
    case invalidInput(String)
    /// `output(index:)` asked for an output that was not produced.
    case invalidOutputIndex(index: Int, count: Int)
    /// The model could not be loaded or run; the message comes from the runtime.
    case modelFailed(String)
    /// A remote model was used before it was downloaded.
    case modelNotDownloaded(name: String)
    /// An AutoML manifest could not be read.
    case invalidManifest(path: String, reason: String)
}

extension ModelInterpreterError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .invalidOptions(let message): return "Invalid input/output options: \(message)"
        case .formatMismatch(let message): return "Input/output options do not match the model: \(message)"
        case .invalidInput(let message): return "Invalid input: \(message)"
        case .invalidOutputIndex(let index, let count): return "No output at index \(index) (the model has \(count))"
        case .modelFailed(let message): return "The model failed: \(message)"
        case .modelNotDownloaded(let name): return "The remote model '\(name)' has not been downloaded"
        case .invalidManifest(let path, let reason): return "Cannot read the model manifest \(path): \(reason)"
        }
    }
}

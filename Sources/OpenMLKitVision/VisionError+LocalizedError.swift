import Foundation

extension VisionError: LocalizedError {
    /// One line describing the failure, suitable for a CLI `error:` line.
    public var errorDescription: String? {
        switch self {
        case .unreadableFile(let path, let reason):
            return "cannot read image file '\(path)': \(reason)"
        case .unsupportedFormat(let detail):
            return "unsupported image format: \(detail)"
        case .corruptImage(let format, let detail):
            return "corrupt \(format) image: \(detail)"
        case .invalidBuffer(let detail):
            return "invalid pixel buffer: \(detail)"
        case .invalidRegion(let detail):
            return "invalid region: \(detail)"
        case .unsupportedModel(let detail):
            return "unsupported model: \(detail)"
        case .invalidLabels(let detail):
            return "invalid labels: \(detail)"
        case .invalidOptions(let detail):
            return "invalid options: \(detail)"
        }
    }
}

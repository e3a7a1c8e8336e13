import Foundation
import Logging
import NIOConcurrencyHelpers

/// A swift-log handler for the access log: each message is written as it is — one formatted
/// access-log line (text or JSON) — to standard output, without swift-log's own prefix.
///
/// Lines are buffered and written every 100 ms, or at once past 64 KiB, so a busy hub does not
/// make a system call per request; ``flush()`` writes what is pending (the CLI calls it when the
/// server stops). A killed process loses at most the last 100 ms of lines. Any other swift-log
/// handler can take its place (`HubConfiguration.accessLog(to:)`).
public struct AccessLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]

    /// A handler writing to standard output, for `Logger(label:factory:)`.
    public static func standardOutput(label: String) -> AccessLogHandler { AccessLogHandler() }

    public init() {}

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        BufferedStandardOutput.shared.append(event.message.description)
    }

    /// Writes the pending lines now.
    public static func flush() { BufferedStandardOutput.shared.flush() }
}

/// Lines for standard output, written in batches.
final class BufferedStandardOutput: Sendable {
    static let shared = BufferedStandardOutput()

    private let pending = NIOLockedValueBox([UInt8]())

    private init() {
        // The process-wide writer lives as long as the process; so does its flushing task.
        Task.detached { [self] in
            while true {
                try? await Task.sleep(nanoseconds: 100_000_000)
                flush()
            }
        }
    }

    func append(_ line: String) {
        let full = pending.withLockedValue { buffer -> Bool in
            buffer.append(contentsOf: line.utf8)
            buffer.append(0x0A)
            return buffer.count >= 64 * 1024
        }
        if full { flush() }
    }

    func flush() {
        let bytes = pending.withLockedValue { buffer -> [UInt8] in
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer
        }
        guard !bytes.isEmpty else { return }
        FileHandle.standardOutput.write(Data(bytes))
    }
}

extension HubConfiguration {
    /// An access-log sink that sends each line through swift-log at `.info`.
    public static func accessLog(to logger: Logger) -> @Sendable (String) -> Void {
        { line in logger.info("\(line)") }
    }
}

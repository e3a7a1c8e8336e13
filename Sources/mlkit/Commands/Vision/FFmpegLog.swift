import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// ffmpeg's stderr, read on a thread of its own while the frames come through stdout: the
/// `showinfo` filter's line for every frame gives the frame's presentation time, and the last
/// error lines explain a failure.
///
/// ffmpeg runs with `-loglevel level+info`, so every line carries its level (`[error]`, `[info]`...).
/// Only the timestamps of frames not yet taken are kept, and only the last few messages, so a long
/// video does not grow this log.
final class FFmpegLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var times: [Int: Double] = [:]
    private var highestFrame = -1
    private var finished = false
    private var linesMissing = false
    private var messages: [String] = []
    private(set) var errorCount = 0
    private let thread: Thread

    /// Starts reading `handle` (ffmpeg's stderr) until its end.
    init(reading handle: FileHandle) {
        let box = Box()
        thread = Thread {
            // Plain read(2): FileHandle's reading methods trap on a read error instead of throwing.
            let descriptor = handle.fileDescriptor
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            var partial: [UInt8] = []
            while true {
                let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { break }
                partial.append(contentsOf: chunk[0..<got])
                while let newline = partial.firstIndex(of: 0x0A) {
                    box.log?.take(String(decoding: partial[..<newline], as: UTF8.self))
                    partial.removeSubrange(...newline)
                }
            }
            if !partial.isEmpty { box.log?.take(String(decoding: partial, as: UTF8.self)) }
            box.log?.finish()
            _ = handle  // keeps the descriptor open until the end
        }
        box.log = self
        thread.start()
    }

    /// Lets the thread reach the log it starts before `init` returns.
    private final class Box: @unchecked Sendable {
        weak var log: FFmpegLog?
    }

    /// The presentation time of frame `index` (from 0), in seconds; waits up to `timeout` for its
    /// line, which ffmpeg writes before the frame's bytes. Nil when the video gave the frame no time.
    func time(ofFrame index: Int, timeout: Double) -> Double? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while highestFrame < index && !finished && !linesMissing {
            if !condition.wait(until: deadline) {
                // No showinfo line came at all: stop waiting for the next frames' (they would each
                // cost the timeout); those frames get no time.
                linesMissing = true
                break
            }
        }
        // Earlier frames' times are no longer needed.
        for key in times.keys where key <= index - 1 { times[key] = nil }
        return times.removeValue(forKey: index)
    }

    /// Waits until ffmpeg closed its stderr (it has exited or is about to).
    func waitUntilFinished(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !finished {
            if !condition.wait(until: deadline) { return finished }
        }
        return true
    }

    /// The last two error lines ffmpeg wrote (the cause often comes just before the summary), or
    /// failing errors the last warning, without their level tags.
    var lastProblem: String? {
        condition.lock()
        defer { condition.unlock() }
        let errors = messages.filter { $0.hasPrefix("error") || $0.hasPrefix("fatal") || $0.hasPrefix("panic") }
        guard !errors.isEmpty else { return messages.last.map(Self.untagged) }
        return errors.suffix(2).map(Self.untagged).joined(separator: "; ")
    }

    /// Whether some error line contains `text`.
    func reported(_ text: String) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return messages.contains { $0.contains(text) }
    }

    private func take(_ line: String) {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        if line.contains("Parsed_showinfo"), let (index, time) = Self.showinfoFrame(line) {
            times[index] = time
            highestFrame = max(highestFrame, index)
            return
        }
        // "[error] message" or "[h264 @ 0x...] [error] message": keep "error] message" to classify.
        guard let level = ["[error] ", "[fatal] ", "[panic] ", "[warning] "].first(where: line.contains),
            let range = line.range(of: level)
        else { return }
        if level != "[warning] " { errorCount += 1 }
        // "[h264 @ 0x55d0...]" names the component; its address means nothing to a user.
        let source = line[..<range.lowerBound].dropFirst().prefix { $0 != "@" && $0 != "]" }
            .trimmingCharacters(in: .whitespaces)
        let text = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return }
        messages.append(String(level.dropFirst().dropLast(2)) + "] " + (source.isEmpty ? "" : source + ": ") + text)
        if messages.count > 8 { messages.removeFirst() }
    }

    private func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// `n:   3 pts:   3072 pts_time:0.3 ...` → (3, 0.3); `pts_time:NOPTS` gives no time.
    static func showinfoFrame(_ line: String) -> (Int, Double?)? {
        guard let n = line.range(of: " n:"), let ptsTime = line.range(of: "pts_time:") else { return nil }
        let indexText = line[n.upperBound...].drop { $0 == " " }.prefix { $0.isNumber }
        guard let index = Int(indexText) else { return nil }
        let timeText = line[ptsTime.upperBound...].prefix { !$0.isWhitespace }
        return (index, Double(timeText).flatMap { $0.isFinite ? $0 : nil })
    }

    private static func untagged(_ message: String) -> String {
        message.firstIndex(of: "]").map {
            String(message[message.index(after: $0)...]).trimmingCharacters(in: .whitespaces)
        }
            ?? message
    }
}

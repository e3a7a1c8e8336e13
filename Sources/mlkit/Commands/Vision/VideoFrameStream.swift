import Foundation
import OpenMLKitVision

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Video input for `mlkit track`: ffmpeg decodes the file and writes one PPM frame after another
/// to a pipe, read here one frame at a time — no temporary files, memory bounded by a frame or two,
/// the first frame available as soon as ffmpeg has decoded it.
///
/// ffmpeg applies the file's rotation (its display matrix) before writing, so frames — and the boxes
/// found in them — are upright as a player shows them. Each frame's presentation time comes from
/// ffmpeg's `showinfo` filter; frames pass through unchanged (`-vsync passthrough`), neither
/// duplicated nor dropped, so a variable-frame-rate phone video keeps its own timing.
///
/// A read that makes no progress for `stallTimeout` seconds ends with a ``CLIError``, and ffmpeg is
/// ended whenever the stream is closed or released, however the command ends.
final class VideoFrameStream {
    /// One decoded frame.
    struct Frame {
        /// The frame's position in the video, from 0.
        let index: Int
        /// Its presentation time in seconds, when the video gives one.
        let time: Double?
        /// The upright RGB pixels.
        let image: VisionImage
    }

    /// The video's path as the user gave it (for messages).
    let path: String
    /// Problems ffmpeg reported while the video still decoded to the end (damaged frames skipped).
    private(set) var warnings: [String] = []

    private let process = Process()
    private let output = Pipe()
    private let log: FFmpegLog
    private var reader: PPMPipeReader
    private let stallTimeout: Double
    private var decoded = 0
    private var closed = false

    /// Starts ffmpeg on `path`.
    ///
    /// - Throws: ``CLIError`` when the path is not a readable file or ffmpeg is not installed.
    init(path: String, stallTimeout: Double = 30) throws {
        self.path = path
        self.stallTimeout = stallTimeout
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIError("cannot read video '\(path)': no such file")
        }
        guard !isDirectory.boolValue else { throw CLIError("cannot read video '\(path)': it is a directory") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CLIError("cannot read video '\(path)': permission denied")
        }
        guard let ffmpeg = Self.executable("ffmpeg") else {
            throw CLIError(
                "--video needs ffmpeg on the PATH; extract the frames yourself and pass the image files instead")
        }
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = Self.arguments(path, fpsMode: Self.hasFPSMode(ffmpeg))
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        log = FFmpegLog(reading: errors.fileHandleForReading)
        reader = PPMPipeReader(descriptor: output.fileHandleForReading.fileDescriptor, stallTimeout: stallTimeout)
        do {
            try process.run()
        } catch {
            throw CLIError("cannot start ffmpeg (\(ffmpeg)): \(error.localizedDescription)")
        }
    }

    deinit { close() }

    /// ffmpeg's arguments for `path`: the first real video stream (`V` skips cover art), every
    /// frame as it was decoded, upright (autorotation is ffmpeg's default), as 8-bit RGB PPM on stdout.
    static func arguments(_ path: String, fpsMode: Bool) -> [String] {
        // `file:` keeps names that start with '-' or contain ':' from being read as options or
        // protocols; an absolute path keeps `file:` unambiguous.
        let absolute = URL(fileURLWithPath: path).path
        return [
            "-nostdin", "-hide_banner", "-nostats", "-loglevel", "level+info",
            "-i", "file:" + absolute,
            "-map", "0:V:0", "-an", "-sn", "-dn",
            "-vf", "showinfo=checksum=0",
            fpsMode ? "-fps_mode" : "-vsync", "passthrough",
            "-pix_fmt", "rgb24", "-c:v", "ppm", "-f", "image2pipe", "pipe:1",
        ]
    }

    /// The next frame, or nil after the last one.
    ///
    /// - Throws: ``CLIError`` naming the file and the frame when ffmpeg fails, stalls, or the video
    ///   has no video stream; ffmpeg is ended before the error is thrown.
    func next() throws -> Frame? {
        guard !closed else { return nil }
        let pixels: PixelBuffer?
        do {
            pixels = try reader.next()
        } catch {
            close()
            throw describe(error)
        }
        guard let pixels else {
            try finish()
            return nil
        }
        let index = decoded
        decoded += 1
        let time = log.time(ofFrame: index, timeout: min(stallTimeout, 5))
        return Frame(index: index, time: time, image: VisionImage(buffer: pixels))
    }

    /// Ends ffmpeg if it still runs and closes the pipes; safe to call more than once.
    func close() {
        guard !closed else { return }
        closed = true
        // Closing the read end first makes a blocked ffmpeg fail its write (EPIPE) and exit.
        try? output.fileHandleForReading.close()
        if process.isRunning {
            process.terminate()
            if !Self.wait(for: process, seconds: 2) {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        _ = log.waitUntilFinished(timeout: 2)
    }

    /// After the last frame: ffmpeg's exit status decides between the end of the video and an error.
    private func finish() throws {
        closed = true
        try? output.fileHandleForReading.close()
        guard Self.wait(for: process, seconds: stallTimeout) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw CLIError("ffmpeg did not exit within \(Self.seconds(stallTimeout)) after the last frame of '\(path)'")
        }
        _ = log.waitUntilFinished(timeout: 2)
        let problem = lastProblem
        if process.terminationReason == .uncaughtSignal {
            throw CLIError("ffmpeg was killed by signal \(process.terminationStatus) while decoding '\(path)'")
        }
        if process.terminationStatus != 0 {
            // "Stream map '0:V:0' matches no streams" (5.x), "Stream specifier ':V:0' ... matches no
            // streams" (later releases).
            if log.reported("matches no streams") || log.reported("does not contain any stream") {
                throw CLIError("'\(path)' has no video stream")
            }
            let detail = problem ?? "exit status \(process.terminationStatus)"
            if decoded == 0 { throw CLIError("ffmpeg could not decode '\(path)': \(detail)") }
            throw CLIError("ffmpeg stopped decoding '\(path)' at frame \(decoded): \(detail)")
        }
        guard decoded > 0 else {
            throw CLIError("'\(path)' has no video frames" + (problem.map { ": \($0)" } ?? ""))
        }
        if log.errorCount > 0, let problem {
            warnings.append(
                "ffmpeg reported \(log.errorCount) error(s) decoding '\(path)' (damaged frames are skipped): \(problem)"
            )
        }
    }

    /// ffmpeg's last error, without the `file:/absolute/path: ` it starts with (the message names the file).
    private var lastProblem: String? {
        log.lastProblem.map { $0.replacingOccurrences(of: "file:" + URL(fileURLWithPath: path).path + ": ", with: "") }
    }

    private func describe(_ failure: PPMPipeReader.Failure) -> CLIError {
        switch failure {
        case .stalled(let seconds):
            return CLIError(
                "ffmpeg made no progress for \(Self.seconds(seconds)) decoding '\(path)' at frame \(decoded); stopped it"
            )
        case .truncated(let got, let expected):
            let detail = lastProblem.map { ": \($0)" } ?? ""
            return CLIError(
                "ffmpeg's output for '\(path)' ended inside frame \(decoded) (\(got) of \(expected) bytes)\(detail)")
        case .malformed(let detail):
            return CLIError("unexpected ffmpeg output for '\(path)' at frame \(decoded): \(detail)")
        case .system(let code):
            return CLIError("reading ffmpeg's output for '\(path)' failed: \(String(cString: strerror(code)))")
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// Waits up to `seconds` for `process` to exit; false if it still runs.
    private static func wait(for process: Process, seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while process.isRunning {
            if Date() >= deadline { return false }
            usleep(5_000)
        }
        // Lets Foundation record the termination status.
        process.waitUntilExit()
        return true
    }

    /// Whether `ffmpeg` is 5.1 or later, which name `-vsync` `-fps_mode` (and may drop the old name);
    /// a build without a release number (`N-...`, from git) is taken as recent.
    static func hasFPSMode(_ ffmpeg: String) -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: ffmpeg)
        probe.arguments = ["-hide_banner", "-version"]
        let output = Pipe()
        probe.standardOutput = output
        probe.standardError = FileHandle.nullDevice
        probe.standardInput = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return true }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        // "ffmpeg version 5.1.9-0+deb12u1 Copyright ..." or "ffmpeg version n6.1.1 ..."
        guard let range = text.range(of: "ffmpeg version ") else { return true }
        let version = text[range.upperBound...].drop { $0 == "n" }.prefix { $0.isNumber || $0 == "." }
        let numbers = version.split(separator: ".").compactMap { Int($0) }
        guard let major = numbers.first else { return true }
        return (major, numbers.dropFirst().first ?? 0) >= (5, 1)
    }

    /// The path of `name` in a folder of `PATH`, if it is there and executable.
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}

import Foundation

/// Video input for `mlkit track`: frames decoded by ffmpeg into a temporary folder.
enum VideoFrames {
    /// Decodes `video` into PNG frames in a new temporary folder and returns the folder.
    ///
    /// - Throws: ``CLIError`` when ffmpeg is not installed, the file is missing, or decoding fails.
    static func extract(_ video: String) throws -> URL {
        guard FileManager.default.isReadableFile(atPath: video) else { throw CLIError("cannot read video '\(video)'") }
        guard let ffmpeg = executable("ffmpeg") else {
            throw CLIError("--video needs ffmpeg on the PATH; extract the frames yourself and pass the image files instead")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mlkit-track-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-v", "error", "-nostdin", "-i", video, folder.appendingPathComponent("%06d.png").path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            try? FileManager.default.removeItem(at: folder)
            let detail = message.split(separator: "\n").last.map(String.init) ?? "exit status \(process.terminationStatus)"
            throw CLIError("ffmpeg could not decode '\(video)': \(detail)")
        }
        return folder
    }

    /// The frame files in `folder`, in order.
    static func list(_ folder: URL) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") }.sorted()
        guard !names.isEmpty else { throw CLIError("ffmpeg produced no frames") }
        return names.map { folder.appendingPathComponent($0).path }
    }

    /// The path of `name` in a folder of `PATH`, if it is there and executable.
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

import Foundation
import Testing

/// Whether the video tests run: with ffmpeg, and always under CI=true, where its absence fails them.
enum VideoTestTools {
    static let ffmpeg = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/ffmpeg" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static var runs: Bool { ffmpeg != nil || isCI }
}

/// `mlkit track --video` on clips ffmpeg makes at test time: a red square moving over gray, the
/// same clip with rotation metadata, odd sizes and 10-bit pixels, a variable frame rate, and files
/// that are not videos. With CI=true a missing ffmpeg fails these tests instead of skipping them.
@Suite("mlkit track --video", .enabled(if: VideoTestTools.runs, "ffmpeg is not on the PATH: video tests not run"))
struct TrackVideoCLITests {
    static let ffmpeg = VideoTestTools.ffmpeg

    /// The square's frame `n` position at 10 fps: x = 40 + 8n, y = 90, 60 × 60, in a 320 × 240 frame.
    static let moving =
        "color=c=gray:s=320x240:r=10:d=2[bg];color=c=red:s=60x60:r=10:d=2[box];[bg][box]overlay=x='40+80*t':y=90"

    /// Runs ffmpeg with `arguments` in `directory`; fails the test when it fails.
    static func make(_ arguments: [String], in directory: URL) throws {
        let ffmpeg = try #require(ffmpeg, "ffmpeg is not on the PATH although CI=true")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-nostdin", "-v", "error", "-y"] + arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "ffmpeg \(arguments.joined(separator: " ")): \(message)")
    }

    /// Runs mlkit in `directory` with `TMPDIR` set to a fresh folder, and checks it left nothing there.
    static func track(_ arguments: [String], in directory: URL, path: String? = nil) throws -> CLITests.Result {
        let exe = try #require(CLITests.binary, "the mlkit executable was not found next to the tests")
        let scratch = directory.appendingPathComponent("tmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = exe
        process.arguments = ["track"] + arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = scratch.path
        if let path { environment["PATH"] = path }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // stderr on a thread of its own, so that neither pipe can fill up and block mlkit.
        final class Collected: @unchecked Sendable { var data = Data() }
        let stderr = Collected()
        let done = DispatchSemaphore(value: 0)
        Thread {
            stderr.data = err.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }.start()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(left.isEmpty, "mlkit left temporary files behind: \(left)")
        return CLITests.Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr.data, as: UTF8.self))
    }

    /// The JSON lines of a run: frame number, time and the objects' frames as (x, y, w, h).
    static func lines(_ stdout: String) throws -> [(frame: Int, time: Double?, boxes: [[Double]])] {
        try stdout.split(separator: "\n").map { line in
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let objects = try #require(json["objects"] as? [[String: Any]])
            let boxes = try objects.map { object in
                let frame = try #require(object["frame"] as? [String: Any], "\(object)")
                return ["x", "y", "width", "height"].map { (frame[$0] as? NSNumber)?.doubleValue ?? .nan }
            }
            return (try #require(json["frame"] as? Int), (json["time"] as? NSNumber)?.doubleValue, boxes)
        }
    }

    /// The width and height in a PNG's header.
    static func pngSize(_ url: URL) throws -> (Int, Int) {
        let data = try Data(contentsOf: url)
        try #require(data.count > 24 && data.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        let word = { (at: Int) in data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    @Test("a moving square: every frame, in order, with its time; the box follows the square")
    func movingSquare() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.make(["-f", "lavfi", "-i", Self.moving, "-c:v", "mpeg4", "-q:v", "2", "moving.mp4"], in: dir)
        let result = try Self.track(["--video", "moving.mp4", "--json"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try Self.lines(result.stdout)
        #expect(lines.map(\.frame) == Array(0..<20))
        for line in lines {
            let time = try #require(line.time)
            #expect(abs(time - Double(line.frame) / 10) < 0.002, "frame \(line.frame) at \(time) s")
            // The localizer's box should hold the square: its centre within 12 pixels of the square's.
            let box = try #require(line.boxes.first, "frame \(line.frame): no object")
            let (x, y) = (40 + 8 * Double(line.frame) + 30, 120.0)
            #expect(
                abs(box[0] + box[2] / 2 - x) < 12 && abs(box[1] + box[3] / 2 - y) < 12, "frame \(line.frame): \(box)")
        }
        #expect(result.stderr.contains("20 frames: 20 processed, 0 dropped"), "\(result.stderr)")
    }

    @Test("rotation metadata: pictures and boxes are in the upright frame a player shows")
    func rotated() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.make(["-f", "lavfi", "-i", Self.moving, "-c:v", "mpeg4", "-q:v", "2", "plain.mp4"], in: dir)
        try Self.make(["-i", "plain.mp4", "-c", "copy", "-metadata:s:v:0", "rotate=90", "rotated.mp4"], in: dir)
        let pictures = dir.appendingPathComponent("pictures")
        let result = try Self.track(["--video", "rotated.mp4", "--json", "--output-dir", pictures.path], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try Self.lines(result.stdout)
        #expect(lines.count == 20)
        let (width, height) = try Self.pngSize(pictures.appendingPathComponent("frame_0000.png"))
        #expect(width == 240 && height == 320, "a rotated 320x240 clip shows 240x320, got \(width)x\(height)")
        for line in lines {
            // Turned a quarter counterclockwise for display: stored (x, y) is shown at (y, 320 - x).
            let box = try #require(line.boxes.first, "frame \(line.frame): no object")
            let (x, y) = (120.0, 320 - (40 + 8 * Double(line.frame) + 30))
            #expect(
                abs(box[0] + box[2] / 2 - x) < 12 && abs(box[1] + box[3] / 2 - y) < 12, "frame \(line.frame): \(box)")
        }
    }

    @Test("odd sizes, 10-bit and 4:4:4 pixels decode to every frame; names starting with '-' are files")
    func unusualFormats() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.make(
            ["-f", "lavfi", "-i", "testsrc=s=321x239:r=10:d=1", "-c:v", "ffv1", "-pix_fmt", "yuv444p", "odd.mkv"],
            in: dir)
        try Self.make(
            [
                "-f", "lavfi", "-i", "testsrc=s=320x240:r=10:d=1", "-c:v", "ffv1", "-pix_fmt", "yuv420p10le",
                "./-tenbit.mkv",
            ],
            in: dir)
        let odd = dir.appendingPathComponent("odd")
        let first = try Self.track(["--video", "odd.mkv", "--json", "--output-dir", odd.path], in: dir)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try Self.lines(first.stdout).count == 10)
        let (width, height) = try Self.pngSize(odd.appendingPathComponent("frame_0009.png"))
        #expect(width == 321 && height == 239)
        let tenBit = try Self.track(["--video=-tenbit.mkv", "--json"], in: dir)
        #expect(tenBit.status == 0, "\(tenBit.stderr)")
        #expect(try Self.lines(tenBit.stdout).count == 10)
    }

    @Test("variable frame rate: times come from the video; --realtime video waits for them")
    func variableFrameRate() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Frames 0-4 at 0.0-0.4 s, then a gap: frames 5-9 at 1.0-1.4 s.
        try Self.make(
            [
                "-f", "lavfi", "-i", "testsrc=s=160x120:r=10:d=1", "-vf", "setpts='(N+if(gte(N,5),5,0))*0.1/TB'",
                "-c:v", "mpeg4", "vfr.mkv",
            ], in: dir)
        let result = try Self.track(["--video", "vfr.mkv", "--json"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let times = try Self.lines(result.stdout).map { $0.time ?? .nan }
        let expected = [0, 0.1, 0.2, 0.3, 0.4, 1.0, 1.1, 1.2, 1.3, 1.4]
        #expect(times.count == 10)
        #expect(zip(times, expected).allSatisfy { abs($0 - $1) < 0.002 }, "\(times)")
        // Offered at their times, the last frame cannot come before 1.4 s after the first.
        let begin = Date()
        let realtime = try Self.track(["--video", "vfr.mkv", "--realtime", "video"], in: dir)
        let elapsed = Date().timeIntervalSince(begin)
        #expect(realtime.status == 0, "\(realtime.stderr)")
        #expect(realtime.stdout.contains("10 frames: "), "\(realtime.stdout)")
        #expect(elapsed >= 1.4, "\(elapsed) s")
        let images = try CLITests.run(["track", "a.png", "--realtime", "video"])
        #expect(images.status != 0 && images.stderr.contains("--realtime video needs --video"))
    }

    @Test("not a video: audio only, truncated, empty, a folder, a stalled pipe — one clear error each")
    func notVideos() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.make(["-f", "lavfi", "-i", "sine=d=1", "audio.wav"], in: dir)
        let audio = try Self.track(["--video", "audio.wav"], in: dir)
        #expect(audio.status == 1 && audio.stderr.contains("'audio.wav' has no video stream"), "\(audio.stderr)")

        try Self.make(["-f", "lavfi", "-i", "testsrc=s=320x240:r=10:d=2", "-c:v", "mpeg4", "whole.mp4"], in: dir)
        let whole = try Data(contentsOf: dir.appendingPathComponent("whole.mp4"))
        // The index (moov) is written last: the first half holds frames but no way to find them.
        try whole.prefix(whole.count / 2).write(to: dir.appendingPathComponent("truncated.mp4"))
        let truncated = try Self.track(["--video", "truncated.mp4"], in: dir)
        #expect(
            truncated.status == 1 && truncated.stderr.contains("ffmpeg could not decode 'truncated.mp4'"),
            "\(truncated.stderr)")
        #expect(truncated.stderr.split(separator: "\n").count == 1, "\(truncated.stderr)")

        try Data().write(to: dir.appendingPathComponent("empty.mp4"))
        let empty = try Self.track(["--video", "empty.mp4"], in: dir)
        #expect(empty.status == 1 && empty.stderr.contains("ffmpeg could not decode 'empty.mp4'"), "\(empty.stderr)")

        let folder = try Self.track(["--video", "."], in: dir)
        #expect(folder.status == 1 && folder.stderr.contains("it is a directory"), "\(folder.stderr)")
        let missing = try Self.track(["--video", "nothing.mp4"], in: dir)
        #expect(missing.status == 1 && missing.stderr.contains("no such file"), "\(missing.stderr)")

        // A FIFO nobody writes to: ffmpeg waits forever to open it; mlkit gives up after the timeout.
        #expect(mkfifo(dir.appendingPathComponent("stalled").path, 0o600) == 0)
        let stalled = try Self.track(["--video", "stalled", "--video-timeout", "1"], in: dir)
        #expect(
            stalled.status == 1 && stalled.stderr.contains("made no progress for 1 s decoding 'stalled' at frame 0"),
            "\(stalled.stderr)")
    }

    /// A stand-in for ffmpeg: answers `-version`, otherwise runs `body` (a shell script fragment).
    static func fakeFFmpeg(_ body: String, in directory: URL) throws -> String {
        let bin = directory.appendingPathComponent("bin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let script = bin.appendingPathComponent("ffmpeg")
        let text = "#!/bin/sh\ncase \"$*\" in *-version*) echo 'ffmpeg version 6.0'; exit 0;; esac\n" + body + "\n"
        try text.write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return bin.path + ":/usr/bin:/bin"
    }

    @Test("an ffmpeg that stalls, dies or cuts a frame short: the frames before it, then one error with the frame")
    func brokenDecoder() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("not decoded by the stand-in".utf8).write(to: dir.appendingPathComponent("clip.mp4"))
        // One 2x2 PPM frame.
        let frame = "printf 'P6\\n2 2\\n255\\n\\001\\002\\003\\004\\005\\006\\007\\010\\011\\012\\013\\014'"

        let stalls = try Self.fakeFFmpeg(frame + "\nexec sleep 60", in: dir)
        let stalled = try Self.track(["--video", "clip.mp4", "--json", "--video-timeout", "1"], in: dir, path: stalls)
        #expect(stalled.status == 1)
        #expect(
            stalled.stderr.contains("ffmpeg made no progress for 1 s decoding 'clip.mp4' at frame 1"),
            "\(stalled.stderr)")
        #expect(try Self.lines(stalled.stdout).map(\.frame) == [0])

        let dies = try Self.fakeFFmpeg(
            frame + "\necho '[h264 @ 0x1234] [error] Invalid NAL unit size' >&2\nexit 1", in: dir)
        let died = try Self.track(["--video", "clip.mp4", "--json"], in: dir, path: dies)
        #expect(died.status == 1)
        #expect(
            died.stderr.contains("ffmpeg stopped decoding 'clip.mp4' at frame 1: h264: Invalid NAL unit size"),
            "\(died.stderr)")

        let cuts = try Self.fakeFFmpeg("printf 'P6\\n2 2\\n255\\n\\001\\002\\003\\004\\005'\nexit 1", in: dir)
        let cut = try Self.track(["--video", "clip.mp4", "--json"], in: dir, path: cuts)
        #expect(cut.status == 1)
        #expect(cut.stderr.contains("ended inside frame 0 (5 of 12 bytes)"), "\(cut.stderr)")

        let garbles = try Self.fakeFFmpeg("printf 'P5\\n2 2\\n255\\n\\001\\002\\003\\004'", in: dir)
        let garbled = try Self.track(["--video", "clip.mp4", "--json"], in: dir, path: garbles)
        #expect(garbled.status == 1)
        #expect(garbled.stderr.contains("unexpected ffmpeg output for 'clip.mp4' at frame 0"), "\(garbled.stderr)")

        let missing = try Self.track(["--video", "clip.mp4"], in: dir, path: dir.appendingPathComponent("none").path)
        #expect(missing.status == 1 && missing.stderr.contains("--video needs ffmpeg on the PATH"), "\(missing.stderr)")
    }
}

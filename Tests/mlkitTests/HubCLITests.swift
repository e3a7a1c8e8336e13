import Foundation
import Testing

/// `mlkit hub serve` as a real process, with `mlkit hub publish/list` and `mlkit model download`
/// as separate processes: the flow the README shows, including a hub killed mid-download.
@Suite("mlkit hub and model commands", .serialized)
struct HubCLITests {
    /// A `mlkit hub serve` child process whose standard output is collected line by line.
    final class ServeProcess: @unchecked Sendable {
        let process = Process()
        private let lock = NSLock()
        private var buffer = ""

        init(data: URL, port: Int, extra: [String] = []) throws {
            let exe = try #require(CLITests.binary, "the mlkit executable was not found next to the tests")
            process.executableURL = exe
            process.arguments = ["hub", "serve", "--data", data.path, "--port", String(port), "--admin-token", "cli-token"] + extra
            let out = Pipe()
            process.standardOutput = out
            process.standardError = out
            out.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let text = String(decoding: handle.availableData, as: UTF8.self)
                self?.lock.withLock { self?.buffer += text }
            }
            try process.run()
        }

        var output: String { lock.withLock { buffer } }

        /// The output once it satisfies `condition` (the access log is written in batches every
        /// 100 ms), or as it is after 5 s.
        func output(waitingFor condition: (String) -> Bool) -> String {
            for _ in 0..<100 where !condition(output) { Thread.sleep(forTimeInterval: 0.05) }
            return output
        }

        /// Waits for the "listening" line and returns the port it names.
        func waitForPort() throws -> Int {
            for _ in 0..<200 {
                if let line = output.split(separator: "\n").first(where: { $0.contains("listening on http://") }),
                    let address = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
                    let port = address.split(separator: ":").last.flatMap({ Int($0) })
                {
                    return port
                }
                guard process.isRunning else { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            throw CLIError("the hub did not start: \(output)")
        }

        func kill() {
            process.interrupt()
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    struct CLIError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func publishListDownloadPath() throws {
        try #require(CLITests.hasSharedModels, "../shared/models is missing")
        let dir = try CLITests.temporaryDirectory()
        let hub = try ServeProcess(data: dir.appendingPathComponent("hub"), port: 0)
        defer { hub.kill() }
        let url = "http://127.0.0.1:\(try hub.waitForPort())"
        let model = CLITests.sharedModels.appendingPathComponent("mobilenet_v1_0.25_128_quant.tflite").path

        let published = try CLITests.run(["hub", "publish", "birds", model, "--server", url, "--token", "cli-token"])
        #expect(published.status == 0, "\(published.stderr)")
        #expect(published.stdout.hasPrefix("published birds version 1 (525598 bytes, sha256 "))
        let refused = try CLITests.run(["hub", "publish", "birds", model, "--server", url, "--token", "wrong"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: the model hub refused the credentials"))
        let badName = try CLITests.run(["hub", "publish", "../x", model, "--server", url, "--token", "cli-token"])
        #expect(badName.status == 1)
        #expect(badName.stderr.contains("not a valid model name"))

        let list = try CLITests.run(["hub", "list", "--server", url, "--json"])
        #expect(list.status == 0)
        let listing = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any]
        let models = try #require(listing?["models"] as? [[String: Any]])
        #expect(models.first?["name"] as? String == "birds")

        let cache = dir.appendingPathComponent("cache").path
        let download = try CLITests.run(["model", "download", "birds", "--server", url, "--cache", cache])
        #expect(download.status == 0, "\(download.stderr)")
        let path = download.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasSuffix("models/birds/v1.tflite"))
        #expect(FileManager.default.contents(atPath: path) == FileManager.default.contents(atPath: model))
        #expect(download.stderr.contains("verified"))

        let shownPath = try CLITests.run(["model", "path", "birds", "--cache", cache])
        #expect(shownPath.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == path)
        let listed = try CLITests.run(["model", "list", "--cache", cache])
        #expect(listed.stdout.contains("birds  v1  525598 bytes"))
        let missing = try CLITests.run(["model", "path", "nothing", "--cache", cache])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: the remote model 'nothing' has not been downloaded\n")
        #expect(hub.output { $0.contains("GET /v1/models/birds/versions/1/download 200 525598 B") }.contains("download 200 525598 B"))
    }

    @Test func downloadResumesAfterTheHubIsKilled() throws {
        try #require(CLITests.hasSharedModels, "../shared/models is missing")
        let dir = try CLITests.temporaryDirectory()
        let data = dir.appendingPathComponent("hub")
        let cache = dir.appendingPathComponent("cache")
        let model = CLITests.sharedModels.appendingPathComponent("mobilenet_v1_0.25_224_quant_metadata.tflite")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: model.path)[.size] as? NSNumber).int64Value

        // 100 KB/s: the 0.5 MB download takes ~5 s; the hub is killed once a fifth has arrived.
        let first = try ServeProcess(data: data, port: 0, extra: ["--download-rate", "100000"])
        let port = try first.waitForPort()
        let url = "http://127.0.0.1:\(port)"
        #expect(try CLITests.run(["hub", "publish", "m", model.path, "--server", url, "--token", "cli-token"]).status == 0)

        let exe = try #require(CLITests.binary)
        let downloader = Process()
        downloader.executableURL = exe
        downloader.arguments = ["model", "download", "m", "--server", url, "--cache", cache.path]
        let errPipe = Pipe()
        downloader.standardError = errPipe
        downloader.standardOutput = Pipe()
        try downloader.run()
        let partial = cache.appendingPathComponent("models/m/partial.tflite")
        func partialSize() -> Int64 {
            ((try? FileManager.default.attributesOfItem(atPath: partial.path)[.size]) as? NSNumber)?.int64Value ?? 0
        }
        for _ in 0..<200 where partialSize() < 100_000 { Thread.sleep(forTimeInterval: 0.05) }
        first.kill()
        downloader.waitUntilExit()
        let firstError = String(decoding: errPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(downloader.terminationStatus == 1)
        #expect(firstError.contains("error: cannot reach the model hub"), "\(firstError)")
        let kept = partialSize()
        #expect(kept >= 100_000 && kept < size, "kept \(kept) of \(size) bytes")

        // Same data, same port: the next download asks only for the rest.
        let second = try ServeProcess(data: data, port: port, extra: ["--download-rate", "1000000"])
        defer { second.kill() }
        _ = try second.waitForPort()
        let resumed = try CLITests.run(["model", "download", "m", "--server", url, "--cache", cache.path])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let path = resumed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(FileManager.default.contents(atPath: path) == FileManager.default.contents(atPath: model.path))
        let log = second.output { $0.contains("GET /v1/models/m/versions/1/download 206 ") }
        #expect(
            log.contains("GET /v1/models/m/versions/1/download 206 ") && log.contains("range=bytes=\(kept)- "), "\(log)")
    }
}

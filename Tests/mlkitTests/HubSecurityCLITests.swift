import Foundation
import Testing

/// Issue 14 from the command line: one hub per data directory (D1), cache names that cannot
/// escape the cache (D13), and signed models end to end.
@Suite("mlkit hub security", .serialized)
struct HubSecurityCLITests {
    typealias Serve = HubCLITests.ServeProcess

    @Test func secondHubOnOneDataDirectoryExitsTouchingNothing() throws {
        let dir = try CLITests.temporaryDirectory()
        let data = dir.appendingPathComponent("hub")
        let first = try Serve(data: data, port: 0)
        defer { first.kill() }
        _ = try first.waitForPort()
        let inFlight = data.appendingPathComponent("staging/in-flight")
        try Data("upload".utf8).write(to: inFlight)
        let started = Date()
        let second = try CLITests.run(["hub", "serve", "--data", data.path, "--port", "0", "--admin-token", "x"])
        #expect(second.status != 0)
        #expect(Date().timeIntervalSince(started) < 30, "the second hub did not exit at once")
        #expect(second.stderr.contains("in use by another running hub"), "\(second.stderr)")
        #expect(!second.stderr.contains(data.path), "the message shows a server path: \(second.stderr)")
        #expect(FileManager.default.fileExists(atPath: inFlight.path), "the second hub touched the first one's staging")
    }

    @Test func cacheNamesCannotEscapeTheCache() throws {
        let dir = try CLITests.temporaryDirectory()
        let cache = dir.appendingPathComponent("cache")
        let victim = dir.appendingPathComponent("somedir")
        try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: cache.appendingPathComponent("models"), withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: victim.appendingPathComponent("file"))
        for name in ["../../somedir", "../somedir", victim.path, ".", ".."] {
            for command in [["model", "delete", name], ["model", "path", name]] {
                let result = try CLITests.run(command + ["--cache", cache.path])
                #expect(result.status == 1, "\(command) \(name)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
                #expect(result.stderr.contains("not a valid model name"), "\(result.stderr)")
            }
        }
        // A planted symbolic link inside the cache is not followed either.
        try FileManager.default.createSymbolicLink(
            at: cache.appendingPathComponent("models/evil"), withDestinationURL: victim)
        let linked = try CLITests.run(["model", "delete", "evil", "--cache", cache.path])
        #expect(linked.status == 1)
        #expect(linked.stderr.contains("symbolic link"), "\(linked.stderr)")
        #expect(FileManager.default.fileExists(atPath: victim.appendingPathComponent("file").path), "a file outside the cache was deleted")
    }

    @Test func signedModelsEndToEnd() throws {
        try #require(CLITests.hasSharedModels, "../shared/models is missing")
        let dir = try CLITests.temporaryDirectory()
        let key = dir.appendingPathComponent("publisher.key").path
        let otherKey = dir.appendingPathComponent("other.key").path
        let made = try CLITests.run(["hub", "keygen", "--out", key])
        #expect(made.status == 0, "\(made.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(FileManager.default.fileExists(atPath: key + ".pub"))
        #expect(try CLITests.run(["hub", "keygen", "--out", key]).status == 1, "keygen overwrote a key")
        #expect(try CLITests.run(["hub", "keygen", "--out", otherKey]).status == 0)

        let hub = try Serve(data: dir.appendingPathComponent("hub"), port: 0)
        defer { hub.kill() }
        let url = "http://127.0.0.1:\(try hub.waitForPort())"
        let v1 = CLITests.sharedModels.appendingPathComponent("mobilenet_v1_0.25_128_quant.tflite").path
        let v2 = CLITests.sharedModels.appendingPathComponent("mobilenet_v1_0.25_224_quant_metadata.tflite").path
        let cache = dir.appendingPathComponent("cache").path

        let signed = try CLITests.run(["hub", "publish", "birds", v1, "--server", url, "--token", "cli-token", "--sign-key", key])
        #expect(signed.status == 0 && signed.stdout.contains("signed"), "\(signed.stderr)")
        let trusted = try CLITests.run(["model", "download", "birds", "--server", url, "--cache", cache, "--trust", key + ".pub"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        let installed = trusted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // The same signed file under another name is refused: the name is part of what is signed.
        #expect(try CLITests.run(["hub", "publish", "fish", v1, "--server", url, "--token", "cli-token"]).status == 0)
        let unsigned = try CLITests.run(["model", "download", "fish", "--server", url, "--cache", cache, "--trust", key + ".pub"])
        #expect(unsigned.status == 1 && unsigned.stderr.contains("not signed"), "\(unsigned.stderr)")

        // An unsigned update, and one signed by an untrusted key, keep the installed version.
        #expect(try CLITests.run(["hub", "publish", "birds", v2, "--server", url, "--token", "cli-token"]).status == 0)
        let refused = try CLITests.run(["model", "download", "birds", "--server", url, "--cache", cache, "--trust", key + ".pub"])
        #expect(refused.status == 1 && refused.stderr.contains("not signed"), "\(refused.stderr)")
        #expect(
            try CLITests.run(["hub", "publish", "birds", v2, "--server", url, "--token", "cli-token", "--sign-key", otherKey]).status == 0)
        let wrongKey = try CLITests.run(["model", "download", "birds", "--server", url, "--cache", cache, "--trust", key + ".pub"])
        #expect(wrongKey.status == 1 && wrongKey.stderr.contains("no trusted key"), "\(wrongKey.stderr)")
        let path = try CLITests.run(["model", "path", "birds", "--cache", cache])
        #expect(path.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == installed, "the previous model was replaced")
        // Trusting both keys accepts the update.
        let both = try CLITests.run([
            "model", "download", "birds", "--server", url, "--cache", cache, "--trust", key + ".pub", "--trust", otherKey + ".pub",
        ])
        #expect(both.status == 0, "\(both.stderr)")

        // The publisher sees the signatures and the download counts.
        Thread.sleep(forTimeInterval: 2.5)
        let list = try CLITests.run(["hub", "list", "--server", url, "--token", "cli-token"])
        #expect(list.stdout.contains("signed") && list.stdout.contains("1 download"), "\(list.stdout)")
    }
}

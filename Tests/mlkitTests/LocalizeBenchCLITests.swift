import Foundation
import Testing

/// `mlkit localize-bench --dump-candidates`, run as the real binary on a committed photo (no
/// `../shared` needed).
@Suite("mlkit localize-bench --dump-candidates")
struct LocalizeBenchCLITests {
    /// A one-photo annotation set beside a copy of the committed `coffee.jpg` (600×400).
    static func coffeeSet() throws -> URL {
        let dir = try CLITests.temporaryDirectory()
        let photos = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: CLITests.packageRoot.appendingPathComponent("tools/localization-set/photos/coffee.jpg"),
            to: photos.appendingPathComponent("coffee.jpg"))
        let annotations = dir.appendingPathComponent("annotations.json")
        try Data(
            """
            {"photos": [{"image": "photos/coffee.jpg", "kind": "product", "license": "CC0",
              "objects": [{"label": "cup", "box": [100, 50, 400, 300]}]}],
             "single": []}
            """.utf8
        ).write(to: annotations)
        return annotations
    }

    @Test("The dump lists the photo's size and candidates; the reported regions are among them")
    func dumpCandidates() throws {
        let annotations = try Self.coffeeSet()
        let output = annotations.deletingLastPathComponent().appendingPathComponent("candidates.json")
        let result = try CLITests.run([
            "localize-bench", "--annotations", annotations.path, "--dump-candidates", output.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("wrote the candidates of 1 photos"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [[String: Any]])
        let photo = try #require(json.first)
        #expect(json.count == 1)
        #expect(photo["image"] as? String == "photos/coffee.jpg")
        #expect(photo["width"] as? Int == 600 && photo["height"] as? Int == 400)
        func boxes(_ key: String) throws -> [[Double]] { try #require(photo[key] as? [[Double]], "\(key)") }
        let (regions, all, ranked) = (try boxes("regions"), try boxes("all"), try boxes("ranked"))
        #expect((1...5).contains(regions.count))
        #expect(all.count >= regions.count && all.count >= ranked.count && !ranked.isEmpty)
        // The localizer chooses its regions from its candidates, and ranks a subset of them.
        #expect(regions.allSatisfy { all.contains($0) })
        #expect(ranked.allSatisfy { all.contains($0) })
        for box in all {
            #expect(box.count == 5)
            #expect(box[0] >= 0 && box[1] >= 0 && box[2] <= 600 && box[3] <= 400 && box[0] < box[2] && box[1] < box[3])
            #expect((0...1).contains(box[4]))
        }
    }

    @Test("--dump-candidates with a detection model or classifier is an error")
    func dumpNeedsBuiltIn() throws {
        let annotations = try Self.coffeeSet()
        let result = try CLITests.run([
            "localize-bench", "--annotations", annotations.path, "--dump-candidates", "/dev/null", "--model",
            "none.tflite",
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--dump-candidates dumps the built-in localizer"))
    }
}

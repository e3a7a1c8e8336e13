import Foundation
import Testing

@testable import OpenMLKitVision
@testable import VisionEvaluation

/// The localization benchmark's annotated set and scoring (the benchmark itself runs in release
/// builds: `mlkit localize-bench`, called by `.ci/run`).
@Suite("Localization benchmark")
struct LocalizationBenchmarkTests {
    static let annotations = TestImages.packageRoot.appendingPathComponent("tools/localization-set/annotations.json")

    @Test("The committed annotations load, and every committed photo exists with boxes inside it")
    func annotationsLoad() throws {
        let set = try LocalizationSet(path: Self.annotations.path, sharedImages: TestImages.images.path)
        #expect(set.photos.count >= 9)
        #expect(set.single.count >= 16)
        for photo in set.photos where !photo.image.hasPrefix("shared/") {
            let image = try set.load(photo.image)
            for object in photo.objects {
                #expect(object.frame.maxX <= Double(image.width) && object.frame.maxY <= Double(image.height))
            }
            #expect(!photo.license.isEmpty)
        }
    }

    @Test("A malformed annotation file is a typed error naming the file")
    func malformed() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).json")
        try Data(
            #"{"photos": [{"image": "a.jpg", "kind": "x", "license": "y", "objects": [{"label": "z", "box": [5, 5, 1, 1]}]}], "single": []}"#
                .utf8
        )
        .write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: EvaluationError.self) { try LocalizationSet(path: url.path, sharedImages: "/nonexistent") }
        #expect(throws: EvaluationError.self) { try LocalizationSet(path: "/nonexistent/x.json", sharedImages: "/x") }
    }

    @Test("Scoring: one-to-one matches at IoU 0.5, recall over the five most prominent, merged boxes counted")
    func scoring() {
        let objects = (0..<6).map { i in
            LocalizationSet.Object(label: "o\(i)", box: [Double(i) * 100, 0, Double(i) * 100 + 80, 80])
        }
        let photo = LocalizationSet.Photo(image: "x", kind: "test", license: "", objects: objects)
        // Box 0 and a near-duplicate of it, box 5 (the sixth object: matched, not recalled), and a
        // box around objects 1 and 2 (merged, unmatched).
        let boxes = [
            CGRect(x: 0, y: 0, width: 80, height: 80), CGRect(x: 5, y: 5, width: 80, height: 80),
            CGRect(x: 500, y: 0, width: 80, height: 80), CGRect(x: 100, y: 0, width: 180, height: 80),
        ]
        let result = LocalizationBenchmark.score(photo, boxes: boxes, milliseconds: 1)
        #expect(result.prominent == 5)
        #expect(result.recalled == 1)
        #expect(result.matched == 2)
        #expect(result.boxes == 4)
        #expect(result.merged == 1)
        #expect(abs(result.meanBestIoU - (1 + 80.0 * 80 / (180 * 80) * 2) / 5) < 1e-9)
    }

    @Test("Coverage: prominent objects with any of the first N candidates at IoU ≥ 0.5")
    func coverage() {
        let a = CGRect(x: 0, y: 0, width: 80, height: 80)
        let b = CGRect(x: 200, y: 0, width: 80, height: 80)
        let c = CGRect(x: 400, y: 0, width: 80, height: 80)
        // Photo 1: a hit at rank 3 (b), a miss (a: the first candidate overlaps it by IoU 1/3) and c
        // never; photo 2: a hit at rank 1, and no candidates at all for photo 3's object.
        let photos: [(boxes: [CGRect], prominent: [CGRect])] = [
            ([CGRect(x: 40, y: 0, width: 80, height: 80), c.offsetBy(dx: 0, dy: 200), b.insetBy(dx: 5, dy: 5)], [a, b, c]),
            ([a], [a]), ([], [b]),
        ]
        let all = LocalizationBenchmark.coverage(of: photos, limit: nil)
        #expect(all.covered == 2 && all.prominent == 5)
        #expect(abs(all.fraction - 0.4) < 1e-12)
        #expect(abs(all.meanCandidates - 4.0 / 3) < 1e-12)
        let first2 = LocalizationBenchmark.coverage(of: photos, limit: 2)
        #expect(first2.covered == 1 && abs(first2.meanCandidates - 1) < 1e-12)
        #expect(LocalizationBenchmark.coverage(of: photos, limit: 0).covered == 0)
        #expect(LocalizationBenchmark.coverage(of: photos, limit: -1).covered == 0)
        #expect(LocalizationBenchmark.coverage(of: [], limit: nil).fraction == 0)
    }

    @Test("A box around two separate proposals is a group; one around two touching parts is not")
    func groups() {
        let whole = CellBox(minX: 0, minY: 0, maxX: 100, maxY: 50, score: 0.5)
        let left = CellBox(minX: 5, minY: 5, maxX: 40, maxY: 45, score: 0.4)
        let right = CellBox(minX: 60, minY: 5, maxX: 95, maxY: 45, score: 0.4)
        let touching = CellBox(minX: 41, minY: 5, maxX: 80, maxY: 45, score: 0.4)
        #expect(SalientRegions.isGroup(whole, among: [whole, left, right]))
        #expect(!SalientRegions.isGroup(whole, among: [whole, left, touching]))
        #expect(!SalientRegions.isGroup(left, among: [whole, left, right]))
    }
}

/// The built-in localizer on the annotated multi-object photos (the full evaluation with figures is
/// `mlkit localize-bench`; this checks the property a debug build can afford to).
@Suite(
    "Built-in localizer on the annotated set",
    .enabled(if: TestImages.hasShared, "../shared is not beside the checkout"))
struct LocalizationSetTests {
    @Test("Multiple-object mode: colour regions find more objects than the saliency cuts alone; ranking them by segment fit halves the boxes holding two objects")
    func noGroups() throws {
        let set = try LocalizationSet(
            path: LocalizationBenchmarkTests.annotations.path, sharedImages: TestImages.images.path)
        var cutsOnly = SaliencyLocalizer.Configuration()
        cutsOnly.groupsColourRegions = false
        var bySaliency = SaliencyLocalizer.Configuration()
        bySaliency.ranksBySegmentFit = false
        var totals = [(recalled: Int, merged: Int)]()
        for configuration in [cutsOnly, bySaliency, SaliencyLocalizer.Configuration()] {
            let localizer = SaliencyLocalizer(configuration: configuration)
            var (recalled, merged, prominent) = (0, 0, 0)
            // The first 14 photos, on which these settings were chosen and measured; the photos
            // added after them are scored by `mlkit localize-bench` (docs/LOCALIZER.md).
            for photo in set.photos.prefix(14) {
                let boxes = try localizer.regions(in: try set.load(photo.image), maxCount: 5).map(\.frame)
                let result = LocalizationBenchmark.score(photo, boxes: boxes, milliseconds: 0)
                recalled += result.recalled
                merged += result.merged
                prominent += result.prominent
            }
            #expect(prominent == 49)
            totals.append((recalled, merged))
        }
        // Measured (docs/LOCALIZER.md), of 49 objects on 14 photos: the saliency cuts alone 12
        // with 3 boxes holding two objects (none on the first nine photos); colour regions ranked by
        // saliency 19 with 9; ranked by segment fit 20 with 4 (21 with 4 since bands are not ranked).
        #expect(totals[0].recalled >= 11 && totals[0].merged <= 3)
        #expect(totals[1].recalled >= 18 && totals[1].recalled > totals[0].recalled)
        #expect(totals[2].recalled >= 19 && totals[2].recalled > totals[0].recalled)
        #expect(totals[2].merged <= 4 && totals[2].merged < totals[1].merged)
    }
}

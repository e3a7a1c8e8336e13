import Foundation
import Testing

@testable import OpenMLKitVision

/// How well ``SaliencyLocalizer`` finds the objects of the shared photos. The figures in the
/// comments were measured with the default configuration (debug build; the results do not depend
/// on the build mode) and are in docs/LOCALIZER.md; the thresholds leave some margin below them.
@Suite(
    "Saliency localizer on the shared photos",
    .enabled(if: TestImages.hasShared, "../shared is not beside the checkout"))
struct LocalizationPhotoTests {
    let localizer = SaliencyLocalizer()

    @Test("The top region covers the prominent object drawn by eye")
    func handBoxes() throws {
        let names = LocalizationEvaluation.handBoxes.keys.sorted()
        let outcomes = try LocalizationEvaluation.againstHandBoxes(names, localizer: localizer)
        for outcome in outcomes { print(outcome.summary) }
        let ious = outcomes.map(\.topIoU)
        let mean = ious.reduce(0, +) / Double(ious.count)
        let hits = ious.filter { $0 >= 0.5 }.count
        print(String(format: "hand boxes: %d photos, mean top IoU %.3f, %d with IoU ≥ 0.5", ious.count, mean, hits))
        // Measured: 16 photos, mean 0.710, 14 with IoU ≥ 0.5 (misses: owl.jpg 0.40 — textured
        // grass; hot_dog.jpg 0.46 — the white paper tray and receipt are as salient as the food).
        #expect(mean >= 0.62)
        #expect(hits >= 12)
    }

    @Test("The top region matches the COCO SSD box where SSD finds one object")
    func ssdSingleObject() throws {
        let outcomes = try LocalizationEvaluation.againstDetector(
            LocalizationEvaluation.ssdSingleObjectPhotos, localizer: localizer)
        for outcome in outcomes { print(outcome.summary) }
        let single = outcomes.filter { $0.truth.count == 1 }
        #expect(single.count == outcomes.count, "SSD no longer finds exactly one object on every photo")
        let ious = single.map(\.topIoU)
        let mean = ious.reduce(0, +) / Double(max(ious.count, 1))
        let hits = ious.filter { $0 >= 0.5 }.count
        print(
            String(format: "SSD, one object: %d photos, mean top IoU %.3f, %d with IoU ≥ 0.5", ious.count, mean, hits))
        // Measured: 12 photos, mean 0.647, 8 with IoU ≥ 0.5. Two misses are SSD's: dandelion.jpg
        // ("teddy bear" over several flowers) and product_Preset3.jpg ("elephant" twice the size
        // of the boots, which our box covers). Two are ours: owl.jpg (0.40, the grass is as
        // contrasted as the owl) and sunflower.bmp (0.24: the petals touch the border, only the
        // brown disc is cut off from it).
        #expect(mean >= 0.57)
        #expect(hits >= 7)
    }

    @Test("The top five regions recall the separate animals SSD finds")
    func ssdMultiObject() throws {
        // Two of the multi-object photos, to keep the suite fast (SSD is slow in debug builds);
        // the report below covers all seven.
        let outcomes = try LocalizationEvaluation.againstDetector(
            ["cats_and_dogs.jpg", "pets.jpg"], localizer: localizer)
        for outcome in outcomes { print(outcome.summary) }
        let recalled = outcomes.reduce(0) { $0 + $1.recalled }
        let total = outcomes.reduce(0) { $0 + $1.truth.count }
        // Measured: 4 of 6 (the corgi, the poodle and the left cat; one dog of pets.jpg, the
        // other's box takes in its shadow).
        #expect(total == 6)
        #expect(recalled >= 3)
    }

    /// `LOCALIZER_REPORT=1 swift test --filter LocalizationPhotoTests/report`: SSD and our regions
    /// on every photo, and the figures of docs/LOCALIZER.md.
    @Test(
        "Report: every photo against SSD", .enabled(if: ProcessInfo.processInfo.environment["LOCALIZER_REPORT"] != nil))
    func report() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: TestImages.images.path)
            .filter { ["jpg", "jpeg", "png", "bmp"].contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) }
            .sorted()
        let outcomes = try LocalizationEvaluation.againstDetector(names, localizer: localizer)
        for outcome in outcomes { print(outcome.summary) }
        let multi = outcomes.filter { LocalizationEvaluation.multiObjectPhotos.contains($0.name) }
        let recalled = multi.reduce(0) { $0 + $1.recalled }
        let total = multi.reduce(0) { $0 + $1.truth.count }
        print(
            "SSD, several objects (\(multi.count) photos): \(recalled) of \(total) boxes recalled at IoU ≥ 0.5 by our top 5"
        )
        let single = outcomes.filter {
            $0.truth.count == 1 && !LocalizationEvaluation.multiObjectPhotos.contains($0.name)
        }
        print("SSD finds exactly one object on: \(single.map(\.name).joined(separator: ", "))")
    }
}

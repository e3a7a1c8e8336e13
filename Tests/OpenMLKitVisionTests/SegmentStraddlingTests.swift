import Foundation
import Testing
import VisionEvaluation

@testable import OpenMLKitVision

/// ``SegmentStraddling`` (how well a box fits the colour segments) and the localizer's ranking of
/// several regions by it (``SaliencyLocalizer/Configuration/ranksBySegmentFit``).
@Suite("Segment straddling")
struct SegmentStraddlingTests {
    /// A 10×10 grid: segment 1 is the square of columns and rows 2..<6, segment 0 the rest.
    static let labels: [Int] = (0..<100).map { i in (2..<6).contains(i % 10) && (2..<6).contains(i / 10) ? 1 : 0 }

    @Test("A box that fits a segment scores 1; one cutting it in half 0; one reaching into the background in between")
    func fit() {
        let straddling = SegmentStraddling(labels: Self.labels, width: 10)
        #expect(straddling.fit(CellBox(minX: 2, minY: 2, maxX: 6, maxY: 6)) == 1)
        // Half the square inside, half outside: every cell of the box straddles.
        #expect(straddling.fit(CellBox(minX: 2, minY: 2, maxX: 4, maxY: 6)) == 0)
        // 20 background cells inside a 36-cell box (and 64 outside): 1 − 20/36.
        let loose = straddling.fit(CellBox(minX: 1, minY: 1, maxX: 7, maxY: 7))
        #expect(abs(loose - (1 - 20.0 / 36)) < 1e-6)
        // The whole grid holds every segment whole.
        #expect(straddling.fit(CellBox(minX: 0, minY: 0, maxX: 10, maxY: 10)) == 1)
    }

    @Test("Empty boxes, boxes outside the grid and an empty grid give 0; boxes reaching outside are clipped")
    func oddBoxes() {
        let straddling = SegmentStraddling(labels: Self.labels, width: 10)
        #expect(straddling.fit(CellBox(minX: 3, minY: 3, maxX: 3, maxY: 8)) == 0)
        #expect(straddling.fit(CellBox(minX: 12, minY: 0, maxX: 20, maxY: 5)) == 0)
        #expect(straddling.fit(CellBox(minX: 5, minY: 5, maxX: 2, maxY: 2)) == 0)
        #expect(straddling.fit(CellBox(minX: -5, minY: -5, maxX: 15, maxY: 15)) == 1)
        #expect(SegmentStraddling(labels: [], width: 0).fit(CellBox(minX: 0, minY: 0, maxX: 1, maxY: 1)) == 0)
    }

    @Test("Ranking by fit keeps the most prominent region first, reports scores best first, finds the objects, and is deterministic")
    func ranking() throws {
        let objects: [(CGRect, (UInt8, UInt8, UInt8))] = [
            (CGRect(x: 30, y: 40, width: 70, height: 80), (235, 200, 40)),
            (CGRect(x: 100, y: 40, width: 60, height: 80), (40, 190, 60)),  // touches the first
            (CGRect(x: 210, y: 120, width: 70, height: 70), (210, 40, 40)),
        ]
        let pixels = LocalizationTests.scene(width: 320, height: 240, objects: objects, noise: 3)
        let image = try LocalizationTests.image(pixels, width: 320, height: 240)
        var off = SaliencyLocalizer.Configuration()
        off.ranksBySegmentFit = false
        let ranked = SaliencyLocalizer()
        let unranked = SaliencyLocalizer(configuration: off)
        let several = try ranked.regions(in: image, maxCount: 5)
        LocalizationTests.expectWellFormed(several, in: image, maxCount: 5)
        #expect(try ranked.regions(in: image, maxCount: 5) == several)
        #expect(several.first == (try unranked.regions(in: image, maxCount: 5)).first)
        #expect(try ranked.regions(in: image, maxCount: 1) == (try unranked.regions(in: image, maxCount: 1)))
        // The touching squares come out as one region (no saliency valley or clean edge split
        // them at these settings, ranked either way); the separate square as another.
        let pair = objects[0].0.union(objects[1].0)
        for square in [pair, objects[2].0] {
            let best = several.map { LocalizationBenchmark.iou($0.frame, square) }.max() ?? 0
            #expect(best >= 0.8, "\(square): \(best)")
        }
    }
}

import Foundation
import Testing

@testable import OpenMLKitVision

/// ``RegionCandidates``: the built-in localizer's candidates for several objects, reranked by a
/// classifier's confidence (``CustomObjectDetectorOptions/rankingCandidateCount``). Synthetic
/// scenes, no classifier: the confidences are given.
@Suite("Region candidates reranked by confidence")
struct RegionCandidatesTests {
    /// Four separate squares of different colours on a blue background.
    static func scene() throws -> VisionImage {
        let objects: [(CGRect, (UInt8, UInt8, UInt8))] = [
            (CGRect(x: 30, y: 30, width: 80, height: 80), (235, 200, 40)),
            (CGRect(x: 200, y: 40, width: 60, height: 60), (40, 190, 60)),
            (CGRect(x: 60, y: 160, width: 50, height: 50), (210, 40, 40)),
            (CGRect(x: 220, y: 150, width: 70, height: 60), (240, 240, 240)),
        ]
        let pixels = LocalizationTests.scene(width: 320, height: 240, objects: objects, noise: 3)
        return try LocalizationTests.image(pixels, width: 320, height: 240)
    }

    @Test("Equal confidences (or none) give exactly the fit ranking's regions")
    func equalConfidences() throws {
        let image = try Self.scene()
        let localizer = SaliencyLocalizer()
        let plain = try localizer.regions(in: image, maxCount: 5)
        let candidates = try #require(try localizer.candidates(in: image, maxCount: 5))
        let frames = candidates.frames(count: 1000)
        #expect(frames.count >= plain.count && !frames.isEmpty)
        #expect(candidates.frames(count: 3).count == min(3, frames.count))
        #expect(candidates.frames(count: -1).isEmpty)
        #expect(candidates.regions(confidences: []) == plain)
        for value: Float in [0, 0.4, 1] {
            #expect(candidates.regions(confidences: Array(repeating: value, count: frames.count)) == plain, "\(value)")
        }
        // Non-finite or out-of-range confidences are clamped, never trap.
        let odd: [Float] = frames.indices.map { [Float.nan, -3, 7, .infinity][$0 % 4] }
        #expect(candidates.regions(confidences: odd).count <= 5)
    }

    @Test("A confident candidate takes a place after the first; the first region never moves")
    func confidentCandidate() throws {
        let image = try Self.scene()
        let localizer = SaliencyLocalizer()
        let plain = try localizer.regions(in: image, maxCount: 5)
        let first = try #require(plain.first)
        let candidates = try #require(try localizer.candidates(in: image, maxCount: 5))
        let frames = candidates.frames(count: 1000)
        // A candidate the fit ranking did not report, apart from the first region and small
        // (no group split applies to it).
        let area = Double(image.width * image.height)
        let pick = try #require(
            frames.indices.last { i in
                !plain.contains { $0.frame == frames[i] } && !frames[i].intersects(first.frame)
                    && frames[i].width * frames[i].height < 0.2 * area
            })
        var confidences = [Float](repeating: 0, count: frames.count)
        confidences[pick] = 1
        let reranked = candidates.regions(confidences: confidences)
        #expect(reranked.first == first)
        #expect(reranked.contains { $0.frame == frames[pick] })
        #expect(reranked.count <= 5)
    }

    @Test("The candidate regions: every proposal, the ranked ones among them; the regions reported come from them")
    func candidateRegions() throws {
        let image = try Self.scene()
        let localizer = SaliencyLocalizer()
        let several = try localizer.candidateRegions(in: image, maxCount: 5)
        #expect(!several.ranked.isEmpty && several.ranked.count <= several.all.count)
        for region in several.ranked { #expect(several.all.contains { $0.frame == region.frame }, "\(region)") }
        // Nothing spanning the image's width is ranked (a band of background).
        #expect(several.ranked.allSatisfy { $0.frame.width < Double(image.width) })
        let reported = try localizer.regions(in: image, maxCount: 5)
        for region in reported { #expect(several.all.contains { $0.frame == region.frame }, "\(region)") }
        // One region: the saliency cuts alone, unranked.
        let one = try localizer.candidateRegions(in: image, maxCount: 1)
        #expect(one.ranked == one.all && !one.all.isEmpty && one.all.count <= several.all.count)
        #expect(try localizer.candidateRegions(in: image, maxCount: 0) == CandidateRegions(all: [], ranked: []))
    }

    @Test("A box spanning the working image's width is a band: never ranked by fit, however well it fits")
    func bands() {
        // Segment 1 is the band of rows 2..<4 across the whole 10×10 grid, segment 2 the square
        // of columns and rows 5..<8; both boxes fit their segment exactly.
        let labels = (0..<100).map { i -> Int in
            let (x, y) = (i % 10, i / 10)
            return (2..<4).contains(y) ? 1 : (5..<8).contains(x) && (5..<8).contains(y) ? 2 : 0
        }
        let band = CellBox(minX: 0, minY: 2, maxX: 10, maxY: 4, score: 0.5)
        let square = CellBox(minX: 5, minY: 5, maxX: 8, maxY: 8, score: 0.5)
        #expect(FitRanking.isBand(band, width: 10) && !FitRanking.isBand(square, width: 10))
        let ranking = FitRanking(
            candidates: [band, square], first: nil, labels: labels, width: 10, groupMinimumArea: nil,
            configuration: SaliencyLocalizer.Configuration().sanitized)
        #expect(ranking.ranked.map(\.box) == [square])
        #expect(ranking.ranked.first?.fit == 1)
    }

    @Test("No candidates where the fit ranking does not apply: one region, colour regions or fit ranking off")
    func notApplicable() throws {
        let image = try Self.scene()
        #expect(try SaliencyLocalizer().candidates(in: image, maxCount: 1) == nil)
        #expect(try SaliencyLocalizer().candidates(in: image, maxCount: 0) == nil)
        var noFit = SaliencyLocalizer.Configuration()
        noFit.ranksBySegmentFit = false
        #expect(try SaliencyLocalizer(configuration: noFit).candidates(in: image, maxCount: 5) == nil)
        var noColour = SaliencyLocalizer.Configuration()
        noColour.groupsColourRegions = false
        #expect(try SaliencyLocalizer(configuration: noColour).candidates(in: image, maxCount: 5) == nil)
    }
}

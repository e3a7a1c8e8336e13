import Foundation
import Testing

@testable import OpenMLKitVision

/// ``EdgeObjectness`` (the Edge Boxes score of a box) and the group rule built on it
/// (``SaliencyLocalizer/Configuration/splitsEdgeGroups``).
@Suite("Edge objectness")
struct EdgeObjectnessTests {
    /// A yellow square (40 px) and a red square (30 px) apart on a blue background, 160×120 pixels
    /// (one working-image cell per pixel).
    static let squares: [(CGRect, (UInt8, UInt8, UInt8))] = [
        (CGRect(x: 40, y: 30, width: 40, height: 40), (235, 200, 40)),
        (CGRect(x: 100, y: 60, width: 30, height: 30), (210, 40, 40)),
    ]
    /// Boxes (cells) around the first square, around the second, and around both.
    static let first = CellBox(minX: 37, minY: 27, maxX: 83, maxY: 73, score: 0.5)
    static let second = CellBox(minX: 97, minY: 57, maxX: 133, maxY: 93, score: 0.5)
    static let both = CellBox(minX: 37, minY: 27, maxX: 133, maxY: 93, score: 0.5)

    static func edges(_ objects: [(CGRect, (UInt8, UInt8, UInt8))], noise: Int = 2) throws -> EdgeObjectness {
        let pixels = LocalizationTests.scene(width: 160, height: 120, objects: objects, noise: noise)
        var working = try LabImage(
            try LocalizationTests.image(pixels, width: 160, height: 120), workingSize: 160)
        #expect(working.width == 160 && working.height == 120)
        working.smooth(radius: 1)
        return EdgeObjectness(working)
    }

    @Test("A box around a whole object outscores boxes cutting it, shifted off it, or on background alone")
    func wholeObjectScoresHighest() throws {
        let edges = try Self.edges(Self.squares)
        let whole = edges.score(Self.first)
        #expect(whole > 0)
        let cuts = [
            CellBox(minX: 37, minY: 27, maxX: 60, maxY: 73),  // the left half
            CellBox(minX: 37, minY: 27, maxX: 83, maxY: 50),  // the top half
            CellBox(minX: 50, minY: 40, maxX: 95, maxY: 85),  // shifted across its corner
            CellBox(minX: 45, minY: 38, maxX: 75, maxY: 65),  // inside it, border cut all round
        ]
        for box in cuts { #expect(edges.score(box) < whole, "\(box): \(edges.score(box)) vs \(whole)") }
        // Plain background has no edges at all.
        #expect(edges.score(CellBox(minX: 2, minY: 80, maxX: 40, maxY: 118)) == 0)
        // The same image gives the same scores.
        #expect(try Self.edges(Self.squares).score(Self.first) == whole)
    }

    @Test("A uniform image, empty boxes and boxes outside the grid score 0; boxes reaching outside are clipped")
    func oddInputs() throws {
        let flat = try Self.edges([], noise: 0)
        #expect(flat.score(CellBox(minX: 0, minY: 0, maxX: 160, maxY: 120)) == 0)
        let edges = try Self.edges(Self.squares)
        #expect(edges.score(CellBox(minX: 50, minY: 50, maxX: 50, maxY: 90)) == 0)
        #expect(edges.score(CellBox(minX: 170, minY: 0, maxX: 200, maxY: 50)) == 0)
        #expect(edges.score(CellBox(minX: 90, minY: 90, maxX: 10, maxY: 10)) == 0)
        let clipped = edges.score(CellBox(minX: -20, minY: -20, maxX: 180, maxY: 140))
        #expect(clipped == edges.score(CellBox(minX: 0, minY: 0, maxX: 160, maxY: 120)))
        #expect(clipped.isFinite)
    }

    @Test("A box holding two separate objects whose outlines score better than it gives way to them")
    func edgeGroups() throws {
        let edges = try Self.edges(Self.squares)
        let candidates = [Self.both, Self.first, Self.second]
        func ranking(partScore: Float, edges: EdgeObjectness?) -> FitRanking {
            var configuration = SaliencyLocalizer.Configuration()
            configuration.edgeGroupPartScore = partScore
            // One segment everywhere: every box fits equally, so the candidates keep their order.
            return FitRanking(
                candidates: candidates, first: nil, labels: [Int](repeating: 0, count: 160 * 120), width: 160,
                groupMinimumArea: nil, configuration: configuration.sanitized, edges: edges)
        }
        let rule = ranking(partScore: 1, edges: edges)
        #expect(edges.score(Self.first) > edges.score(Self.both) && edges.score(Self.second) > edges.score(Self.both))
        #expect(rule.isEdgeGroup(Self.both, among: candidates))
        #expect(!rule.isEdgeGroup(Self.first, among: candidates))
        #expect(!rule.isEdgeGroup(Self.second, among: candidates))
        let order = [Self.both, Self.first, Self.second]
        #expect(Set(rule.select(order, maxCount: 5).map(\.minX)) == [Self.first.minX, Self.second.minX])
        // Parts required to score ten times the box, or no edges: the box around both stays
        // and holds the squares (contained in it, they are skipped).
        let strict = ranking(partScore: 10, edges: edges)
        #expect(!strict.isEdgeGroup(Self.both, among: candidates))
        #expect(strict.select(order, maxCount: 5) == [Self.both])
        #expect(ranking(partScore: 1, edges: nil).select(order, maxCount: 5) == [Self.both])
    }

    @Test("edgeGroupPartScore is clamped to 0...10, NaN falling back to 1")
    func sanitized() {
        var configuration = SaliencyLocalizer.Configuration()
        #expect(configuration.splitsEdgeGroups && configuration.edgeGroupPartScore == 1)
        configuration.edgeGroupPartScore = .nan
        #expect(configuration.sanitized.edgeGroupPartScore == 1)
        configuration.edgeGroupPartScore = -3
        #expect(configuration.sanitized.edgeGroupPartScore == 0)
        configuration.edgeGroupPartScore = 100
        #expect(configuration.sanitized.edgeGroupPartScore == 10)
    }
}

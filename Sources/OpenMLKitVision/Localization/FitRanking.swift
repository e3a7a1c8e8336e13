/// The proposals for several objects ranked by how well their box fits the colour segments
/// (``SegmentStraddling``), with what their selection needs; the places after the most salient
/// region are filled in this order, or in an order a classifier's confidence refines
/// (``RegionCandidates``).
struct FitRanking {
    /// The most salient region (the one single-object mode reports), kept first.
    let first: CellBox?
    /// The proposals scoring at least ``floor``, best fit first, boxes of the same cells once,
    /// bands spanning the image's width (``isBand(_:width:)``) left out.
    let ranked: [(box: CellBox, fit: Float)]
    /// The smallest group ``SalientRegions/select(_:maxCount:configuration:groupMinimumArea:first:minimumScore:)`` splits.
    let groupMinimumArea: Int?
    /// The lowest saliency score a proposal may have to be ranked.
    let floor: Float
    /// A ``SaliencyLocalizer/Configuration/sanitized`` configuration.
    let configuration: SaliencyLocalizer.Configuration
    /// The Edge Boxes score (``EdgeObjectness``) of each ranked box, keyed by its cells; empty
    /// when ``SaliencyLocalizer/Configuration/splitsEdgeGroups`` is off.
    let edgeScores: [[Int]: Float]

    /// Ranks `candidates` (the saliency cuts and the colour regions) by their fit to the segments
    /// `labels` of a working image `width` cells wide; `edges`, when given, scores the ranked boxes
    /// for the edge group rule (``isEdgeGroup(_:among:)``).
    init(
        candidates: [CellBox], first: CellBox?, labels: [Int], width: Int, groupMinimumArea: Int?,
        configuration: SaliencyLocalizer.Configuration, edges: EdgeObjectness? = nil
    ) {
        let straddling = SegmentStraddling(labels: labels, width: width)
        let floor = min(configuration.minimumScore, SalientRegions.fitRankingMinimumScore)
        // A box spanning the working image's whole width is a band of background (sky, ground, a
        // wall, a table top): it fits its segments well but is no object (measured in
        // docs/LOCALIZER.md). Tall boxes stay: towers, flags and standing people span the height.
        let sorted = candidates.enumerated()
            .filter { $0.element.score >= floor && !Self.isBand($0.element, width: width) }
            .map { (index: $0.offset, box: $0.element, fit: straddling.fit($0.element)) }
            .sorted { ($0.fit, $0.box.area, -$0.index) > ($1.fit, $1.box.area, -$1.index) }
        // The same cells proposed again (one object cut at two levels) would be skipped by the
        // selection anyway (IoU 1 with the first of them); dropping them here keeps a classifier
        // from scoring one crop twice.
        var ranked = [(box: CellBox, fit: Float)]()
        var seen = Set<[Int]>()
        for entry in sorted where seen.insert([entry.box.minX, entry.box.minY, entry.box.maxX, entry.box.maxY]).inserted {
            ranked.append((entry.box, entry.fit))
        }
        self.first = first
        self.ranked = ranked
        self.groupMinimumArea = groupMinimumArea
        self.floor = floor
        self.configuration = configuration
        var edgeScores = [[Int]: Float]()
        if let edges {
            for entry in ranked { edgeScores[Self.key(entry.box)] = edges.score(entry.box) }
        }
        self.edgeScores = edgeScores
    }

    private static func key(_ box: CellBox) -> [Int] { [box.minX, box.minY, box.maxX, box.maxY] }

    /// Whether `box` holds two of `boxes` that lie apart (as ``SalientRegions/isGroup(_:among:)``
    /// asks, at any size) and that each have at least
    /// ``SaliencyLocalizer/Configuration/edgeGroupPartScore`` times its Edge Boxes score: two
    /// objects whose outlines it holds whole, rather than one object and a fragment of it. False
    /// for boxes without a score.
    func isEdgeGroup(_ box: CellBox, among boxes: [CellBox]) -> Bool {
        guard let whole = edgeScores[Self.key(box)] else { return false }
        let parts = boxes.filter { part in
            part.area * 50 >= box.area && part.area * 10 <= box.area * 7
                && Float(box.intersection(part)) >= SalientRegions.containment * Float(part.area)
                && (edgeScores[Self.key(part)].map { $0 >= configuration.edgeGroupPartScore * whole } ?? false)
        }
        return SalientRegions.holdsSeparate(parts, in: box)
    }

    /// Whether `box` spans the whole width of a working image `width` cells wide (a band of
    /// background, never ranked).
    static func isBand(_ box: CellBox, width: Int) -> Bool { box.minX <= 0 && box.maxX >= width }

    /// The regions kept from `order` (the ranked boxes, in the order they compete): the first
    /// region, then distinct ones greedily; reported most salient first after the first, and
    /// those below ``SaliencyLocalizer/Configuration/minimumRelativeScore`` of the best dropped.
    func select(_ order: [CellBox], maxCount: Int) -> [CellBox] {
        let isGroup: ((CellBox) -> Bool)? = edgeScores.isEmpty ? nil : { isEdgeGroup($0, among: order) }
        var kept = SalientRegions.select(
            order, maxCount: maxCount, configuration: configuration, groupMinimumArea: groupMinimumArea,
            first: first, minimumScore: floor, isGroupOfObjects: isGroup)
        let head = first == nil ? 0 : min(1, kept.count)
        kept = Array(kept[..<head]) + kept[head...].sorted { ($0.score, $0.area) > ($1.score, $1.area) }
        let best = kept.reduce(Float(0)) { max($0, $1.score) }
        return kept.filter { $0.score >= configuration.minimumRelativeScore * best }
    }

    /// The ranked boxes reordered by a classifier: the first `confidences.count` (their highest
    /// class confidence, 0...1) by fit × confidence, the rest after them in fit order. Ties keep
    /// the fit order, so equal confidences change nothing.
    func reranked(confidences: [Float]) -> [CellBox] {
        let n = min(confidences.count, ranked.count)
        let combined = (0..<n).map { i -> Float in
            let c = confidences[i]
            return ranked[i].fit * (c.isFinite ? min(max(c, 0), 1) : 0)
        }
        let top = (0..<n).sorted { (combined[$0], -$0) > (combined[$1], -$1) }.map { ranked[$0].box }
        return top + ranked[n...].map(\.box)
    }
}

/// Turns a ``SaliencyMap`` into scored boxes.
///
/// One threshold rarely suits every object of an image (a faint object vanishes at a level that
/// separates two bright ones; a low level lets a bright object leak into its surroundings), so the
/// map is cut at a few levels from half its Otsu threshold up; every connected component of every
/// level, after a morphological opening, proposes a box. A proposal's score is the mean saliency
/// of its cells times the square root of its share of the image's total saliency: salient, and
/// holding much of what is salient in the image. The best proposals are kept greedily, skipping
/// any that overlap a kept one (intersection over union) or that are mostly inside one or contain
/// one: the same object cut at another level, or a part of it. When several regions are asked for,
/// the regions of a hierarchical grouping of colour segments (``RegionHierarchy``) compete with the
/// cuts, scored the same way, and after the most salient region the proposals are ranked by how
/// well their box fits the colour segments (``SegmentStraddling``).
enum SalientRegions {
    /// How many levels the map is cut at.
    static let levelCount = 4
    /// The lowest level, relative to the Otsu threshold (never below the configured minimum).
    static let lowestLevel: Float = 0.5
    /// The highest level that can be cut (a flat map, whose Otsu threshold is 1, gives nothing).
    static let highestLevel: Float = 0.95
    /// A proposal is a part of (or a group around) a kept box when this fraction of the smaller
    /// of the two lies inside the other.
    static let containment: Float = 0.8
    /// With ``SaliencyLocalizer/Configuration/ranksBySegmentFit``, the lowest saliency score a
    /// proposal may have to be ranked by its fit. Measured (recall on the annotated set): 0 → 0.33
    /// (background boxes fit their segments too), 0.01 → 0.37, 0.02 → 0.41, 0.03 → 0.43, 0.05 → 0.37.
    static let fitRankingMinimumScore: Float = 0.02

    /// The boxes of the salient regions of `map`, best first, at most `maxCount`; `configuration`
    /// is a ``SaliencyLocalizer/Configuration/sanitized`` one.
    static func boxes(
        in map: SaliencyMap, working: LabImage? = nil, maxCount: Int, configuration: SaliencyLocalizer.Configuration
    ) -> [CellBox] {
        guard maxCount > 0 else { return [] }
        var candidates: [CellBox]
        var first: CellBox?
        if let working, let several = severalObjects(in: map, working: working, maxCount: maxCount, configuration: configuration) {
            if let ranking = several.ranking {
                return ranking.select(ranking.ranked.map(\.box), maxCount: maxCount)
            }
            first = several.first
            candidates = several.candidates.sorted { ($0.score, $0.area) > ($1.score, $1.area) }
        } else {
            candidates = proposals(in: map, configuration: configuration)
        }
        let kept = select(
            candidates, maxCount: maxCount, configuration: configuration,
            groupMinimumArea: groupMinimumArea(of: map, maxCount: maxCount, configuration: configuration),
            first: first)
        let best = kept.reduce(Float(0)) { max($0, $1.score) }
        return kept.filter { $0.score >= configuration.minimumRelativeScore * best }
    }

    /// The proposals ranked by their fit to the colour segments when `configuration` ranks
    /// `maxCount` regions that way (``SaliencyLocalizer/Configuration/ranksBySegmentFit``); nil otherwise.
    static func fitRanking(
        in map: SaliencyMap, working: LabImage, maxCount: Int, configuration: SaliencyLocalizer.Configuration
    ) -> FitRanking? {
        guard maxCount > 0 else { return nil }
        return severalObjects(in: map, working: working, maxCount: maxCount, configuration: configuration)?.ranking
    }

    /// The smallest region a group split may take apart: one object is the most prominent region
    /// as it is; several are split into separate objects.
    static func groupMinimumArea(of map: SaliencyMap, maxCount: Int, configuration: SaliencyLocalizer.Configuration)
        -> Int?
    {
        maxCount > 1 && configuration.splitsGroups
            ? Int(configuration.groupAreaFraction * Float(map.width * map.height)) : nil
    }

    /// With several regions asked for and colour regions on: the most salient region, every
    /// candidate (saliency cuts, then colour regions) and, with
    /// ``SaliencyLocalizer/Configuration/ranksBySegmentFit``, their ranking by fit; nil otherwise.
    static func severalObjects(
        in map: SaliencyMap, working: LabImage, maxCount: Int, configuration: SaliencyLocalizer.Configuration
    ) -> (first: CellBox?, candidates: [CellBox], ranking: FitRanking?)? {
        guard maxCount > 1, configuration.groupsColourRegions else { return nil }
        let groupMinimumArea = groupMinimumArea(of: map, maxCount: maxCount, configuration: configuration)
        var candidates = proposals(in: map, configuration: configuration)
        // The saliency cuts' best region stays first, so that the most prominent object is the
        // one single-object mode reports; the colour regions compete for the other places.
        let first = select(candidates, maxCount: 1, configuration: configuration, groupMinimumArea: groupMinimumArea)
            .first
        var parameters = RegionHierarchy.Parameters()
        parameters.scale = configuration.segmentationScale
        let labels = RegionHierarchy.segment(working, parameters: parameters)
        candidates += RegionHierarchy.proposals(
            in: working, map: map, minimumArea: minimumArea(of: map, configuration: configuration),
            parameters: parameters, labels: labels)
        guard configuration.ranksBySegmentFit else { return (first, candidates, nil) }
        // After the most salient region, proposals salient enough to be considered are ranked by
        // how well their box fits the colour segments (superpixel straddling): a box around one
        // object rather than one reaching into its neighbour or the background, and objects at the
        // border or in clutter that saliency ranks low. Measured against ranking by saliency, and
        // against the two taking turns, in docs/LOCALIZER.md.
        // Boxes holding two objects whose outlines they hold whole are skipped in favour of the
        // objects (Edge Boxes scores, measured in docs/LOCALIZER.md).
        let ranking = FitRanking(
            candidates: candidates, first: first, labels: labels, width: working.width,
            groupMinimumArea: groupMinimumArea, configuration: configuration,
            edges: configuration.splitsEdgeGroups ? EdgeObjectness(working) : nil)
        return (first, candidates, ranking)
    }

    /// The smallest region in cells (``SaliencyLocalizer/Configuration/minimumAreaFraction``, at least 1).
    static func minimumArea(of map: SaliencyMap, configuration: SaliencyLocalizer.Configuration) -> Int {
        max(1, Int((Float(map.width * map.height) * configuration.minimumAreaFraction).rounded(.up)))
    }

    /// Every component of every level as a scored box, best first (before selection).
    static func proposals(in map: SaliencyMap, configuration: SaliencyLocalizer.Configuration) -> [CellBox] {
        let (w, h) = (map.width, map.height)
        guard w * h > 0 else { return [] }
        let totalMass = map.values.reduce(Double(0)) { $0 + Double($1) }
        guard totalMass > 0, totalMass.isFinite else { return [] }
        let low = max(configuration.minimumThreshold, lowestLevel * GridFilters.otsuThreshold(map.values))
        guard low < highestLevel else { return [] }
        let minimumArea = minimumArea(of: map, configuration: configuration)

        var proposals = [CellBox]()
        for step in 0..<levelCount {
            let level = low + (highestLevel - low) * Float(step) / Float(levelCount)
            var mask = map.values.map { $0 >= level }
            // Opening removes specks and cuts one-cell bridges between neighbouring objects.
            mask = GridFilters.dilate(GridFilters.erode(mask, width: w, height: h), width: w, height: h)
            for component in GridFilters.connectedComponents(mask, width: w, height: h)
            where component.count >= minimumArea {
                var box = CellBox(minX: w, minY: h, maxX: 0, maxY: 0)
                var mass: Double = 0
                for i in component {
                    let (x, y) = (i % w, i / w)
                    box.minX = min(box.minX, x)
                    box.minY = min(box.minY, y)
                    box.maxX = max(box.maxX, x + 1)
                    box.maxY = max(box.maxY, y + 1)
                    mass += Double(map.values[i])
                }
                let score = mass / Double(component.count) * (mass / totalMass).squareRoot()
                box.score = score.isFinite ? Float(min(max(score, 0), 1)) : 0
                proposals.append(box)
            }
        }
        proposals.sort { ($0.score, $0.area) > ($1.score, $1.area) }
        return proposals
    }

    /// The best of `proposals` (sorted best first), greedily, skipping overlapping and nested ones
    /// and, when `groupMinimumArea` is given, any box of at least that many cells that holds two
    /// separate proposals (see ``isGroup(_:among:)``); `first`, when given, is kept before them.
    /// Proposals scoring below `minimumScore` (the configuration's unless given) are ignored, and
    /// so are those `isGroupOfObjects` (when given) calls a group.
    static func select(
        _ proposals: [CellBox], maxCount: Int, configuration: SaliencyLocalizer.Configuration,
        groupMinimumArea: Int? = nil, first: CellBox? = nil, minimumScore: Float? = nil,
        isGroupOfObjects: ((CellBox) -> Bool)? = nil
    ) -> [CellBox] {
        guard maxCount > 0 else { return [] }
        var kept = first.map { [$0] } ?? []
        if kept.count >= maxCount { return kept }
        let floor = minimumScore ?? configuration.minimumScore
        let usable = proposals.filter { $0.score >= floor }
        for proposal in usable
        where !(groupMinimumArea.map { proposal.area >= $0 } == true && isGroup(proposal, among: usable))
            && isGroupOfObjects?(proposal) != true
        {
            let distinct = kept.allSatisfy {
                $0.overlap(proposal) <= configuration.overlapThreshold
                    && Float($0.intersection(proposal)) < containment * Float(min($0.area, proposal.area))
            }
            if distinct {
                kept.append(proposal)
                if kept.count == maxCount { break }
            }
        }
        return kept
    }

    /// Whether `box` holds two proposals that lie apart (their boxes, widened by a gap, do not
    /// touch): a box around two separate objects rather than one object, which the levels above
    /// it split. Parts of one object (a head and a body cut apart at a higher level) touch, so
    /// they do not count.
    static func isGroup(_ box: CellBox, among proposals: [CellBox]) -> Bool {
        let parts = proposals.filter {
            $0.area * 50 >= box.area && $0.area * 10 <= box.area * 7
                && Float(box.intersection($0)) >= containment * Float($0.area)
        }
        return holdsSeparate(parts, in: box)
    }

    /// Whether two of `parts` (boxes inside `box`) lie apart: widened by 1/20 of the box's short
    /// side (at least one cell), they do not touch.
    static func holdsSeparate(_ parts: [CellBox], in box: CellBox) -> Bool {
        let gap = max(1, min(box.maxX - box.minX, box.maxY - box.minY) / 20)
        for (i, a) in parts.enumerated() {
            let wide = CellBox(minX: a.minX - gap, minY: a.minY - gap, maxX: a.maxX + gap, maxY: a.maxY + gap)
            for b in parts[(i + 1)...] where wide.intersection(b) == 0 { return true }
        }
        return false
    }
}

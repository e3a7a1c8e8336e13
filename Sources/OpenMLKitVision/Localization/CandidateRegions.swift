import Foundation

/// Every region the built-in localizer chooses its objects from, for diagnostics: how many objects
/// its proposals hold at all, whatever its ranking makes of them
/// (``SaliencyLocalizer/candidateRegions(in:maxCount:)``, `mlkit localize-bench --candidate-bound`).
public struct CandidateRegions: Equatable, Sendable {
    /// Every proposal (saliency cuts and, for several regions, colour regions), most salient first.
    public let all: [LocalizedRegion]
    /// The proposals the places after the first are filled from, in the order they compete (for
    /// several regions with the fit ranking: best fit first, after the saliency floor and the
    /// band rule); ``all`` where that ranking does not apply.
    public let ranked: [LocalizedRegion]

    /// Candidates as given.
    public init(all: [LocalizedRegion], ranked: [LocalizedRegion]) {
        self.all = all
        self.ranked = ranked
    }
}

extension SaliencyLocalizer {
    /// The candidate regions behind ``regions(in:maxCount:)`` for `maxCount` regions of `image`,
    /// frames in upright pixels; empty when `maxCount` ≤ 0. Costs about one call of
    /// ``regions(in:maxCount:)``.
    ///
    /// - Throws: as ``regions(in:maxCount:)``.
    public func candidateRegions(in image: VisionImage, maxCount: Int) throws -> CandidateRegions {
        guard maxCount > 0 else { return CandidateRegions(all: [], ranked: []) }
        let analysis = try saliency(of: image)
        let (map, configuration) = (analysis.map, analysis.configuration)
        var all = SalientRegions.proposals(in: map, configuration: configuration)
        var ranked = all
        if let several = SalientRegions.severalObjects(
            in: map, working: analysis.working, maxCount: maxCount, configuration: configuration)
        {
            all = several.candidates.sorted { ($0.score, $0.area) > ($1.score, $1.area) }
            ranked = several.ranking?.ranked.map(\.box) ?? all
        }
        return CandidateRegions(all: all.map(analysis.region(of:)), ranked: ranked.map(analysis.region(of:)))
    }
}

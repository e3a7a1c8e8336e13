import Foundation

/// The built-in localizer's candidates for several objects, before the places after the first
/// are filled, so that a classifier can score the best-fitting ones and rerank them
/// (``CustomObjectDetectorOptions/rankingCandidateCount``).
///
/// Ranking by the classifier's confidence times the candidate's fit to the colour segments
/// recalled more of the annotated objects than the fit alone (`docs/LOCALIZER.md`); class
/// confidence alone is no objectness (a classifier is confident on parts and background tiles),
/// so it only refines the fit ranking, and the most salient region stays first.
struct RegionCandidates {
    /// The image's analysis (to map cells to pixels).
    let analysis: SaliencyLocalizer.Analysis
    /// The candidates and their selection.
    let ranking: FitRanking
    /// The most regions asked for.
    let maxCount: Int

    /// The frames (upright pixels) of the `count` best-fitting candidates, best first.
    func frames(count: Int) -> [CGRect] {
        ranking.ranked.prefix(max(0, count)).map { analysis.region(of: $0.box).frame }
    }

    /// The regions when the first `confidences.count` candidates of ``frames(count:)`` have these
    /// classifier confidences (highest class probability, 0...1): at most ``maxCount``, the most
    /// salient region first.
    func regions(confidences: [Float]) -> [LocalizedRegion] {
        ranking.select(ranking.reranked(confidences: confidences), maxCount: maxCount).map(analysis.region(of:))
    }
}

extension SaliencyLocalizer {
    /// The candidates a classifier may rerank for `maxCount` regions of `image`; nil when these
    /// settings do not rank several regions by their fit (one region, colour regions or
    /// ``Configuration/ranksBySegmentFit`` off), where ``regions(in:maxCount:)`` stands as it is.
    ///
    /// - Throws: as ``regions(in:maxCount:)``.
    func candidates(in image: VisionImage, maxCount: Int) throws -> RegionCandidates? {
        let analysis = try saliency(of: image)
        guard
            let ranking = SalientRegions.fitRanking(
                in: analysis.map, working: analysis.working, maxCount: maxCount, configuration: analysis.configuration)
        else { return nil }
        return RegionCandidates(analysis: analysis, ranking: ranking, maxCount: maxCount)
    }
}

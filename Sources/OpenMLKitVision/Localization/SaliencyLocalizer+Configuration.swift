extension SaliencyLocalizer {
    /// The tunables of ``SaliencyLocalizer``. The defaults were chosen on the photos in
    /// `../shared/images` (see `docs/LOCALIZER.md` for the figures); every value is usable, out of
    /// range or non-finite ones being clamped or replaced by the default.
    ///
    /// Colour differences are CIE 1976 ΔE (Euclidean distance in L\*a\*b\*); sizes are in cells of
    /// the working image, one cell being the average of a block of image pixels.
    public struct Configuration: Equatable, Sendable {
        /// Long side of the working image in cells, 16...1024 (smaller images are used at their own
        /// size). Default 160: objects down to ~1/20 of the image side, a few ms per image; 96
        /// takes half the time and costs 0.05 of mean IoU on the evaluation photos.
        public var workingSize: Int = 160

        /// Radius in cells, 0...8, of the box filter applied to the working image before the cues,
        /// which keeps fine texture (grass, fur, noise) from reading as contrast. Default 1.
        public var smoothingRadius: Int = 1

        /// Weight (≥ 0) of the boundary-connectivity cue: the minimum barrier distance from the
        /// image border, the colour "hill" any path from the border must climb to reach a cell.
        /// Default 1.
        public var barrierWeight: Float = 1

        /// Weight (≥ 0) of the border-contrast cue: colour distance to the border's dominant
        /// colours, combined over the four sides so that an object touching one or two sides still
        /// stands out. Default 0.5 (it also lights up background patches that none of the sides
        /// shows, so it assists the barrier cue rather than equals it).
        public var borderContrastWeight: Float = 0.5

        /// Weight (≥ 0) of the global contrast cue: distance of each cell's colour to the image's
        /// mean colour. Default 0: it moved mean IoU on the evaluation photos by less than 0.02.
        public var globalContrastWeight: Float = 0

        /// Strength, 0...1, of the centre prior: saliency is multiplied by `1 − strength · r²`,
        /// `r` being the distance from the centre relative to the half-diagonal. Default 0.3.
        public var centerPrior: Float = 0.3

        /// The colour difference (ΔE, > 0) that counts as fully salient. The map is divided by the
        /// larger of this and its own 99th percentile, so weak contrasts stay weak: this is what
        /// makes a uniform or nearly uniform image give no regions. Default 20.
        public var contrastScale: Float = 20

        /// The lowest saliency, 0...1, a cell may have to belong to a region, whatever the
        /// adaptive threshold says. Default 0.25.
        public var minimumThreshold: Float = 0.25

        /// Smallest region, as a fraction (0...1) of the image area. Default 0.004 (a 40×30 box
        /// in a 640×480 image).
        public var minimumAreaFraction: Float = 0.004

        /// A region overlapping a better one by more than this intersection over union (0...1) is
        /// dropped. Default 0.5.
        public var overlapThreshold: Float = 0.5

        /// Regions scoring below this (0...1) are dropped. Default 0.05 (with ``ranksBySegmentFit``
        /// the regions after the first may score down to 0.02).
        public var minimumScore: Float = 0.05

        /// Whether, when several regions are asked for, a large region holding two separate ones
        /// gives way to them (no box holds two objects; see `docs/LOCALIZER.md`). Default true.
        public var splitsGroups = true

        /// The smallest region, as a fraction (0...1) of the image area, that ``splitsGroups``
        /// may split. Default 0.3 (smaller regions are kept whole: splitting them cost more objects
        /// than it found on single photos); ``ObjectDetector`` in stream mode uses 0.1, where the
        /// tracker's confirmation rule removes the fragments that splitting adds.
        public var groupAreaFraction: Float = 0.3

        /// Whether, when several regions are asked for, the regions of a hierarchical grouping of
        /// colour segments (selective search) are proposed as well as the saliency cuts, scored by
        /// the same saliency map. Default true; ``ObjectDetector`` in stream mode turns it off
        /// (over video it added more false boxes than objects, see `docs/LOCALIZER.md`).
        public var groupsColourRegions = true

        /// The scale of the colour segmentation behind ``groupsColourRegions`` (Felzenszwalb's
        /// `k`, in ΔE × working-image cells, 1...10 000): larger gives larger first segments.
        /// Default 20.
        public var segmentationScale: Float = 20

        /// Whether, with ``groupsColourRegions``, the proposals after the most salient region are
        /// ranked by how well their box fits the colour segments (superpixel straddling) rather than
        /// by saliency; proposals scoring below 0.02 (or ``minimumScore`` if lower), and boxes spanning
        /// the image's whole width (bands of background), are not considered.
        /// Default true: on the annotated set it halved the boxes holding two objects at about the
        /// same recall (see `docs/LOCALIZER.md`).
        public var ranksBySegmentFit = true

        /// Whether, with ``ranksBySegmentFit``, a box of any size that holds two separate
        /// candidates (their boxes, widened a little, do not touch) each scoring at least
        /// ``edgeGroupPartScore`` times its Edge Boxes objectness is skipped in favour of them:
        /// the outlines of two objects, held whole, rather than one object. Default true (see
        /// `docs/LOCALIZER.md`).
        public var splitsEdgeGroups = true

        /// With ``splitsEdgeGroups``, the Edge Boxes score each of the two separate candidates
        /// inside a box must reach, as a multiple (0...10) of the box's own, for the box to be a
        /// group. Default 1 (both look at least as much like whole objects as the box): on the
        /// annotated set 17 → 15 boxes holding two objects at the same recall; 0.5 gives 12 at one
        /// or two objects fewer recalled (`docs/LOCALIZER.md`).
        public var edgeGroupPartScore: Float = 1

        /// Regions scoring below this fraction (0...1) of the best region's score are dropped.
        /// Default 0 (none); ``ObjectDetector`` in stream mode uses 0.6: weak regions next to a
        /// strong one were mostly background over video.
        public var minimumRelativeScore: Float = 0

        /// The defaults.
        public init() {}

        /// Every value brought into its documented range; non-finite values become the default.
        var sanitized: Configuration {
            let defaults = Configuration()
            func clamp(_ value: Float, _ range: ClosedRange<Float>, _ fallback: Float) -> Float {
                value.isFinite ? min(max(value, range.lowerBound), range.upperBound) : fallback
            }
            var c = self
            c.workingSize = min(max(workingSize, 16), 1024)
            c.smoothingRadius = min(max(smoothingRadius, 0), 8)
            c.barrierWeight = clamp(barrierWeight, 0...1e6, defaults.barrierWeight)
            c.borderContrastWeight = clamp(
                borderContrastWeight, 0...1e6, defaults.borderContrastWeight)
            c.globalContrastWeight = clamp(
                globalContrastWeight, 0...1e6, defaults.globalContrastWeight)
            c.centerPrior = clamp(centerPrior, 0...1, defaults.centerPrior)
            c.contrastScale = clamp(contrastScale, 1e-3...Float.greatestFiniteMagnitude, defaults.contrastScale)
            c.minimumThreshold = clamp(minimumThreshold, 0...1, defaults.minimumThreshold)
            c.minimumAreaFraction = clamp(minimumAreaFraction, 0...1, defaults.minimumAreaFraction)
            c.overlapThreshold = clamp(overlapThreshold, 0...1, defaults.overlapThreshold)
            c.minimumScore = clamp(minimumScore, 0...1, defaults.minimumScore)
            c.groupAreaFraction = clamp(groupAreaFraction, 0...1, defaults.groupAreaFraction)
            c.segmentationScale = clamp(segmentationScale, 1...10_000, defaults.segmentationScale)
            c.minimumRelativeScore = clamp(minimumRelativeScore, 0...1, defaults.minimumRelativeScore)
            c.edgeGroupPartScore = clamp(edgeGroupPartScore, 0...10, defaults.edgeGroupPartScore)
            return c
        }
    }
}

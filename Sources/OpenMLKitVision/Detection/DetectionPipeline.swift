import Foundation
import OpenMLKit

/// The stages behind an ``ObjectDetector``: localize, classify each object's crop, track.
///
/// Built once from the options; not thread-safe (the detector serialises calls).
final class DetectionPipeline {
    /// Where objects come from.
    enum Source {
        /// Class-agnostic regions (the built-in localizer, or a detection model in front of a classifier).
        case localizer(ObjectLocalizer)
        /// A detection model whose own classes label the objects.
        case labelledModel(DetectionModel)
    }

    let source: Source
    let mode: DetectorMode
    /// The custom classifier (classification enabled).
    let classifier: ImageLabeler?
    /// The most objects per image.
    let maxObjects: Int
    /// The most labels per object, and their minimum confidence, when classifying.
    let maxLabels: Int
    let labelThreshold: Float
    /// Minimum localizer score of a region (nil: whatever the localizer returns).
    let regionThreshold: Float?
    /// Assigns tracking IDs in stream mode.
    let tracker: ObjectTracker?
    /// How many of the built-in localizer's candidates the classifier scores to rank several
    /// objects in single-image mode (``CustomObjectDetectorOptions/rankingCandidateCount``; 0: none).
    let rankingCandidateCount: Int
    /// The motion cue of the built-in localizer in stream mode (nil otherwise): regions moving
    /// against the background of the frames seen so far (``MotionRegions``).
    let motion: MotionRegions?

    /// How many raw labels a track's smoothing keeps per frame: enough that a class just below the
    /// cut can still rise into the reported ones.
    private var smoothingDepth: Int { max(20, 2 * maxLabels) }

    /// A pipeline for a detection model or the built-in localizer, labelled by the model (if any).
    init(options: ObjectDetectorOptions) throws {
        if options.localModel != nil {
            let model = try DetectionModel(options: options)
            source = .labelledModel(model)
            regionThreshold = nil
            maxObjects = options.maxResultCount ?? Int.max
        } else {
            source = .localizer(SaliencyLocalizer(configuration: Self.localizer(.init(), mode: options.detectorMode)))
            regionThreshold = options.scoreThreshold
            // ML Kit's rule: the most prominent object only, unless multiple objects are enabled.
            maxObjects =
                options.maxResultCount
                ?? (options.shouldEnableMultipleObjects ? CustomObjectDetectorOptions.maximumObjectCount : 1)
        }
        guard maxObjects >= 0 else {
            throw VisionError.invalidOptions(detail: "maxResultCount must not be negative, got \(maxObjects)")
        }
        mode = options.detectorMode
        classifier = nil
        maxLabels = Int.max
        labelThreshold = 0
        tracker = options.detectorMode == .stream ? ObjectTracker() : nil
        rankingCandidateCount = 0
        motion = Self.motionCue(for: source, mode: options.detectorMode)
    }

    /// A pipeline that localizes class-agnostic objects and classifies them with a custom model.
    init(options: CustomObjectDetectorOptions) throws {
        try options.validate()
        let threshold = try options.checkedConfidenceThreshold()
        if let detector = try options.localizerModel() {
            let detection = ObjectDetectorOptions(localModel: detector)
            detection.detectorMode = options.detectorMode
            detection.threadCount = options.threadCount
            detection.resizeMethod = options.resizeMethod
            source = .localizer(try DetectionModel(options: detection))
        } else {
            source = .localizer(
                SaliencyLocalizer(
                    configuration: Self.localizer(options.localizerConfiguration, mode: options.detectorMode)))
        }
        // The classifier is loaded and checked even with classification off, so that a wrong model
        // is reported when the detector is created rather than when classification is turned on.
        let model = try options.classifierModel()
        let labelerOptions = CustomImageLabelerOptions(localModel: model)
        labelerOptions.confidenceThreshold = threshold.map { NSNumber(value: $0) }
        labelerOptions.maxResultCount = options.maxPerObjectLabelCount
        labelerOptions.labelsPath = options.labelsPath
        labelerOptions.threadCount = options.threadCount
        labelerOptions.resizeMethod = options.resizeMethod
        let labeler = try ImageLabeler(options: labelerOptions)
        try CustomObjectDetectorOptions.checkCompatibility(of: labeler, path: model.modelPath)
        classifier = options.shouldEnableClassification ? labeler : nil
        labelThreshold = labeler.confidenceThreshold
        maxLabels = options.maxPerObjectLabelCount
        maxObjects = options.shouldEnableMultipleObjects ? CustomObjectDetectorOptions.maximumObjectCount : 1
        regionThreshold = nil
        mode = options.detectorMode
        // The detector's own threshold filters the smoothed labels; the tracker keeps them all.
        var tracking = options.trackerConfiguration
        tracking.minimumLabelConfidence = 0
        tracker = options.detectorMode == .stream ? ObjectTracker(configuration: tracking) : nil
        rankingCandidateCount = options.rankingCandidateCount
        motion = Self.motionCue(for: source, mode: options.detectorMode)
    }

    /// A motion cue for the built-in localizer in stream mode; nil for a detection model or a
    /// single image (which has no motion, so single-image results do not depend on it).
    static func motionCue(for source: Source, mode: DetectorMode) -> MotionRegions? {
        guard mode == .stream, case .localizer(let localizer) = source, localizer is SaliencyLocalizer else {
            return nil
        }
        return MotionRegions()
    }

    /// The built-in localizer's configuration for `mode`. Stream mode, where the tracker reports
    /// only confirmed objects, splits groups covering half the picture or more, proposes no colour
    /// regions and drops regions scoring below 0.6 of the best one: the settings that gave the best
    /// MOTA on `mlkit track-bench` (see `docs/LOCALIZER.md`; the salient regions are what stream
    /// mode reports when nothing moves, so the group area was chosen on the *pan* sequences).
    static func localizer(_ configuration: SaliencyLocalizer.Configuration, mode: DetectorMode)
        -> SaliencyLocalizer.Configuration
    {
        var configuration = configuration
        if mode == .stream {
            configuration.splitsGroups = true
            configuration.groupAreaFraction = 0.5
            configuration.groupsColourRegions = false
            configuration.minimumRelativeScore = 0.6
        }
        return configuration
    }

    /// The objects in `image`: most prominent first in single-image mode, with tracking IDs (and
    /// labels smoothed over each track) in stream mode.
    func results(in image: VisionImage) throws -> [DetectedObject] {
        let bounds = CGRect(x: 0, y: 0, width: image.width, height: image.height)
        var found: [(frame: CGRect, score: Float, labels: [ObjectLabel])]
        var classified = [(frame: CGRect, scores: [Float])]()
        // Whether the regions are the motion cue's (their tracks are confirmed sooner).
        var moving = false
        switch source {
        case .labelledModel(let model):
            found = try model.results(in: image).prefix(maxObjects).map {
                ($0.frame, $0.labels.first?.confidence ?? 0, $0.labels)
            }
        case .localizer(let localizer):
            let regions: [LocalizedRegion]
            if let motion, let saliency = localizer as? SaliencyLocalizer {
                (regions, moving) = try Self.streamRegions(
                    in: image, saliency: saliency, motion: motion, maxCount: maxObjects)
            } else if let ranked = try classifierRankedRegions(in: image, localizer: localizer) {
                regions = ranked.regions
                classified = ranked.classified
            } else {
                regions = try localizer.regions(in: image, maxCount: maxObjects)
            }
            found =
                regions
                .filter { $0.score >= (regionThreshold ?? -.infinity) }
                .map { ($0.frame.intersection(bounds), $0.score, []) }
                .filter { !$0.frame.isNull && $0.frame.width > 0 && $0.frame.height > 0 }
        }
        if let classifier {
            for i in found.indices {
                // A region the ranking classified already keeps those scores (same crop, same scores).
                let scores =
                    try classified.first { $0.frame == found[i].frame }?.scores
                    ?? classifier.scores(in: image, region: found[i].frame)
                let depth = tracker == nil ? maxLabels : smoothingDepth
                found[i].labels = classifier.ranked(
                    scores, threshold: tracker == nil ? labelThreshold : 0, limit: depth)
            }
        }
        guard let tracker else {
            return found.map { DetectedObject(frame: $0.frame, trackingID: nil, labels: $0.labels) }
        }
        let observations = found.map {
            TrackerObservation(
                frame: $0.frame, score: $0.score, appearance: try? AppearanceDescriptor(image: image, region: $0.frame),
                isMoving: moving)
        }
        let assignments = tracker.update(observations, imageSize: bounds.size)
        // Labels are smoothed over tentative tracks too, so that a track has its history when it is
        // confirmed; only confirmed tracks are reported (most false boxes are never confirmed).
        return assignments.compactMap { assignment -> DetectedObject? in
            var labels = found[assignment.observationIndex].labels
            if classifier != nil {
                labels = tracker.smoothedLabels(labels, forTrack: assignment.trackingID)
                    .filter { $0.confidence >= labelThreshold }
                labels = Array(labels.prefix(maxLabels))
            }
            // The tracker's smoothed box, kept inside the image (its own observation if it left it).
            let smoothed = assignment.frame.intersection(bounds)
            guard assignment.isConfirmed else { return nil }
            return DetectedObject(
                frame: smoothed.isNull || smoothed.isEmpty ? found[assignment.observationIndex].frame : smoothed,
                trackingID: assignment.trackingID, labels: labels)
        }
    }

    /// The built-in localizer's regions of several objects ranked with the classifier's help, and
    /// the classifier's scores of the crops it classified (frames clipped to the image); nil where
    /// that does not apply: no classifier, stream mode (a classification per candidate and frame
    /// would be too slow for video; the tracker carries objects between frames), one object, a
    /// detection model as localizer, or localizer settings without the fit ranking.
    ///
    /// The ``rankingCandidateCount`` best-fitting candidates are classified and the places after
    /// the most salient region (which stays first) go by fit × the classifier's highest class
    /// confidence (measured in docs/LOCALIZER.md).
    private func classifierRankedRegions(in image: VisionImage, localizer: ObjectLocalizer) throws
        -> (regions: [LocalizedRegion], classified: [(frame: CGRect, scores: [Float])])?
    {
        guard let classifier, tracker == nil, maxObjects > 1, rankingCandidateCount > 0,
            let saliency = localizer as? SaliencyLocalizer,
            let candidates = try saliency.candidates(in: image, maxCount: maxObjects)
        else { return nil }
        let bounds = CGRect(x: 0, y: 0, width: image.width, height: image.height)
        var classified = [(frame: CGRect, scores: [Float])]()
        var confidences = [Float]()
        for frame in candidates.frames(count: rankingCandidateCount) {
            let clipped = frame.intersection(bounds)
            guard !clipped.isNull, clipped.width > 0, clipped.height > 0 else {
                confidences.append(0)
                continue
            }
            let scores = try classifier.scores(in: image, region: clipped)
            classified.append((clipped, scores))
            confidences.append(scores.max() ?? 0)
        }
        return (candidates.regions(confidences: confidences), classified)
    }

    /// The built-in localizer's regions of one stream frame: the regions moving against the
    /// background of the frames before it, or the salient regions when nothing moves (or the camera
    /// moved too much for the motion cue); `moving` says which (the tracker confirms moving
    /// regions' tracks sooner).
    private static func streamRegions(
        in image: VisionImage, saliency: SaliencyLocalizer, motion: MotionRegions, maxCount: Int
    ) throws -> (regions: [LocalizedRegion], moving: Bool) {
        let analysis = try saliency.saliency(of: image)
        let moving = motion.boxes(in: analysis.working)
        // Measured against showing both (moving first, then the salient regions overlapping none):
        // the salient regions next to moving objects were mostly background (docs/LOCALIZER.md).
        guard moving.isEmpty else { return (moving.prefix(max(maxCount, 0)).map(analysis.region(of:)), true) }
        return (analysis.regions(maxCount: maxCount), false)
    }

    /// Starts a new stream: forgets tracks (IDs are not reused) and zeroes a model's state.
    func reset() throws {
        tracker?.reset()
        motion?.reset()
        switch source {
        case .labelledModel(let model): try model.resetState()
        case .localizer(let localizer): try (localizer as? DetectionModel)?.resetState()
        }
    }
}

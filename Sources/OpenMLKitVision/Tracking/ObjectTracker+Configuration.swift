import Foundation

extension ObjectTracker {
    /// The tracker's tunables. The defaults were chosen on the oracle tracking benchmark
    /// (`mlkit track-bench --detector oracle`, see docs/TRACKING.md); lengths are in frames, and
    /// distances and noise levels are fractions of the object's size (the geometric mean of its
    /// box's width and height), so they hold at any resolution.
    public struct Configuration: Sendable {
        /// Consecutive frames a confirmed track may go unobserved (occluded, missed by the
        /// localizer, out of the picture) and still be re-identified; after that it is retired and
        /// its identifier and label history are dropped.
        public var maxMissedFrames = 60
        /// Consecutive unobserved frames after which a track that was never confirmed is retired
        /// (most such tracks are a localizer's one-off false positives).
        public var maxMissedFramesTentative = 2
        /// Observations needed within ``confirmationWindow`` frames before a track counts as
        /// confirmed (it is then reported in stream mode, may be re-identified and keeps its
        /// identifier through ``maxMissedFrames``); 1 confirms every track at once. 4 in 6 frames
        /// was chosen with the built-in localizer on `mlkit track-bench` (docs/LOCALIZER.md).
        public var confirmationHits = 4
        /// The frames, counting back from the current one, in which a tentative track must have
        /// been paired ``confirmationHits`` times to be confirmed (SORT's and ByteTrack's
        /// `min_hits` over a window, 1...64); a false box that flickers in and out is not confirmed.
        public var confirmationWindow = 6
        /// ``confirmationHits`` for an observation a motion cue found (``TrackerObservation/isMoving``):
        /// a region that moves against a still background is rarely a false box, so it is confirmed
        /// sooner, within ``movingConfirmationWindow`` frames (docs/LOCALIZER.md).
        public var movingConfirmationHits = 2
        /// ``confirmationWindow`` for an observation a motion cue found.
        public var movingConfirmationWindow = 3
        /// An unpaired observation scoring below this starts no track (ByteTrack's two-stage
        /// association: weak observations may continue an existing track, not begin one); it gets
        /// an identifier of its own and is not confirmed. 0 lets every observation start a track;
        /// the default 0.2 suits scores in 0...1 (the built-in localizer's, a model's confidences).
        public var newTrackMinimumScore: Float = 0.2
        /// A track's observation is reported as confirmed only while the track's score, averaged
        /// over time (`0.7 · old + 0.3 · this frame's`), is at least this: a region found every
        /// frame but always weakly (background) is tracked but not reported. Default 0.2, for
        /// scores in 0...1; 0 reports every confirmed track.
        public var minimumReportedScore: Float = 0.2
        /// Whether an observation that covers two or more confirmed tracks lying apart (a box
        /// around several tracked objects that touch or overlap) is ignored rather than paired or
        /// started as a track: the tracked objects coast through it on their predictions.
        public var ignoresGroups = true
        /// Frames a lost track is still associated by its motion prediction; lost longer, it can
        /// only be found again by re-identification.
        public var maxCoastFrames = 8

        /// A track and an observation may be paired when the observation's box overlaps the
        /// track's predicted box by at least this intersection over union…
        public var minimumIoU = 0.2
        /// …or when its squared Mahalanobis distance from the prediction (centre and size, 4
        /// degrees of freedom) is at most this; 9.49 is the χ² 95 % quantile, which lets a fast or
        /// briefly coasting object be followed without overlap.
        public var mahalanobisGate = 9.49
        /// The weight of appearance dissimilarity in the pairing cost, 0...1 (the rest is motion).
        public var appearanceWeight = 0.5
        /// Pairs whose appearance similarity is below this are refused, unless the boxes overlap
        /// by an IoU of at least 0.5 (then motion is trusted over appearance).
        public var minimumAppearanceSimilarity: Float = 0.7

        /// A lost track is re-identified by an observation whose appearance similarity is at
        /// least this…
        public var reidentificationSimilarity: Float = 0.65
        /// …and whose centre lies within this many object sizes of where the track was last seen
        /// (moved with the camera) or of where it is predicted (clamped to the picture: an object
        /// that left comes back over the same edge)…
        public var reidentificationRadius = 1.5
        /// …plus this many sizes for every frame it has been lost.
        public var reidentificationRadiusGrowth = 0.25

        /// Whether to estimate a shift common to all tracks (the camera panning or shaking) from
        /// their observations before pairing, and apply it to every track, lost ones included.
        public var estimatesCameraMotion = true

        /// Whether ``TrackAssignment/frame`` is the motion filter's estimate (less jitter) rather
        /// than the observation's own box.
        public var smoothsFrames = true
        /// Standard deviation of a box's unexplained movement per frame (motion-filter process noise).
        public var positionNoise = 0.05
        /// Standard deviation of a box's change of velocity per frame.
        public var velocityNoise = 0.04
        /// Standard deviation of the localizer's error in each of centre x, centre y, width, height.
        public var measurementNoise = 0.06
        /// Standard deviation of a new track's unknown velocity.
        public var initialVelocityNoise = 0.3

        /// The weight of the past in the label average: each frame, every class's smoothed
        /// confidence becomes `decay · old + (1 − decay) · this frame's confidence` (0 when the
        /// class is absent this frame). 0.8 means a label must dominate for about 3 frames to
        /// overtake one that dominated before.
        public var labelDecay: Float = 0.8
        /// Smoothed labels below this confidence are not returned.
        public var minimumLabelConfidence: Float = 0.05

        /// Observations per frame that are tracked; beyond this the lowest-scoring ones get a
        /// one-off identifier (bounds the cost of pairing, which grows with the cube of the count).
        public var maxObservations = 100
        /// Tracks kept at most; beyond this the longest-lost ones are retired first.
        public var maxTracks = 300

        /// The defaults described above.
        public init() {}

        /// The motion filter's noise levels.
        var noise: BoxKalmanFilter.Noise {
            BoxKalmanFilter.Noise(
                position: positionNoise, velocity: velocityNoise, measurement: measurementNoise,
                initialVelocity: initialVelocityNoise)
        }
    }
}

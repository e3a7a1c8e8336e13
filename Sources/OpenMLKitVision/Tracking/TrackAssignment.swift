import Foundation

/// The tracker's answer for one observation: which track it belongs to and the box to report.
public struct TrackAssignment: Equatable, Sendable {
    /// The index of the observation in the array given to ``ObjectTracker/update(_:imageSize:)``.
    public let observationIndex: Int
    /// The track's identifier: stable over the track's life and never reused by the same tracker
    /// (a counter starting at 1, also across ``ObjectTracker/reset()``).
    public let trackingID: Int
    /// The box to report, in upright image pixels: the motion filter's estimate when
    /// ``ObjectTracker/Configuration/smoothsFrames`` is on, else the observation's own frame.
    public let frame: CGRect
    /// Frames since the track was created: 0 on its first frame.
    public let age: Int
    /// Whether the observation belongs to a confirmed track (paired in
    /// ``ObjectTracker/Configuration/confirmationHits`` of the last
    /// ``ObjectTracker/Configuration/confirmationWindow`` frames), or to any track in a stream's
    /// first `confirmationHits − 1` frames, when nothing can be confirmed yet — in both cases only
    /// while the track's smoothed score is at least
    /// ``ObjectTracker/Configuration/minimumReportedScore``. False for a track's
    /// first sightings and for observations that got an identifier of their own (untrackable, or too
    /// weak to start a track). Stream-mode detection reports only confirmed objects: most of a
    /// localizer's false boxes are never confirmed.
    public let isConfirmed: Bool

    /// An assignment with the given values.
    public init(observationIndex: Int, trackingID: Int, frame: CGRect, age: Int, isConfirmed: Bool = true) {
        self.observationIndex = observationIndex
        self.trackingID = trackingID
        self.frame = frame
        self.age = age
        self.isConfirmed = isConfirmed
    }
}

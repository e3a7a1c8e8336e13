import Foundation

/// One object a localizer found in one frame: the tracker's input.
public struct TrackerObservation: Sendable {
    /// Where the object is, in upright image pixels (origin top left).
    public var frame: CGRect
    /// The localizer's confidence, 0...1; when the tracker must drop observations (more than
    /// ``ObjectTracker/Configuration/maxObservations``), it keeps the highest-scoring ones.
    public var score: Float
    /// The region's appearance; without it the tracker associates by motion alone and cannot
    /// re-identify an object that was lost.
    public var appearance: AppearanceDescriptor?
    /// Whether a motion cue found it (a region moving against a still background): a track of
    /// such observations is confirmed after ``ObjectTracker/Configuration/movingConfirmationHits``
    /// rather than ``ObjectTracker/Configuration/confirmationHits``.
    public var isMoving = false

    /// An observation with the given frame, score and (optional) appearance.
    public init(frame: CGRect, score: Float, appearance: AppearanceDescriptor? = nil, isMoving: Bool = false) {
        self.frame = frame
        self.score = score
        self.appearance = appearance
        self.isMoving = isMoving
    }
}

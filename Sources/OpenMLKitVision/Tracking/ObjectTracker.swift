import Foundation

/// Gives the objects a localizer finds in consecutive video frames identifiers that follow them
/// from frame to frame (ML Kit's stream-mode tracking IDs).
///
/// Each track has a constant-velocity Kalman filter on its box's centre and size. Every frame:
/// 1. every track's box is predicted one frame ahead;
/// 2. a shift common to the tracks (the camera panning) is estimated from the observations by
///    voting, and applied to all tracks (``Configuration/estimatesCameraMotion``);
/// 3. tracks seen within the last ``Configuration/maxCoastFrames`` frames are paired with the
///    observations by an optimal (Hungarian) assignment whose cost mixes motion (IoU with the
///    prediction and Mahalanobis distance) with appearance dissimilarity, within gates;
/// 4. lost confirmed tracks are re-identified among the remaining observations by appearance, near
///    where they were last seen or predicted;
/// 5. paired tracks are corrected by their observation; the rest coast on their prediction and are
///    retired after ``Configuration/maxMissedFrames``; unpaired observations start new tracks
///    when they score at least ``Configuration/newTrackMinimumScore``.
///
/// Identifiers come from a counter that starts at 1 and only increases, also across ``reset()``,
/// so an identifier is never given to two objects. Observations that cannot be tracked (a frame
/// that is NaN, infinite, or has less than a pixel inside the image, or beyond
/// ``Configuration/maxObservations``, or too weak to start a track) still get an identifier, used
/// for that observation only.
///
/// A new track is tentative until it has been paired in ``Configuration/confirmationHits`` of the
/// last ``Configuration/confirmationWindow`` frames; ``TrackAssignment/isConfirmed`` says which
/// observations belong to confirmed tracks, and stream-mode detection reports only those (SORT's
/// and ByteTrack's rule: a localizer's one-off false boxes never become objects).
///
/// Thread-safety: calls are serialised on an internal lock, so the tracker may be shared, but
/// frames must be given in order from one stream; a caller that interleaves streams must use one
/// tracker per stream.
public final class ObjectTracker: @unchecked Sendable {
    /// The tunables in effect.
    public let configuration: Configuration

    var tracks: [Track] = []
    private var labelHistories: [Int: LabelHistory] = [:]
    private var nextID = 1
    /// Frames processed since creation (not reset by ``reset()``; keys label updates to frames).
    private var frameNumber = 0
    /// Frames processed since creation or the last ``reset()``.
    private var streamFrameNumber = 0
    private let lock = NSLock()
    /// A box covered by more than this fraction by another observation or an unobserved track's
    /// prediction gives its track no appearance sample (measured on the oracle benchmark: 0.25
    /// beat 0.05 and 0.15 by a few identity switches in 72 sequences).
    static let occludedFraction = 0.25
    /// A track's predicted box counts as inside an observation (see ``isGroup(_:)``) when this
    /// fraction of it is covered.
    static let groupCoverage = 0.6
    /// The weight of a new observation's score in a track's smoothed score
    /// (``Configuration/minimumReportedScore``).
    static let scoreWeight: Float = 0.3

    /// A tracker with the given tunables.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// The number of tracks currently held (live and recently lost).
    public var trackCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return tracks.count
    }

    /// Associates one frame's observations with tracks; returns one assignment per observation, in observation order.
    ///
    /// - Parameters:
    ///   - observations: this frame's objects, frames in upright image pixels.
    ///   - imageSize: the upright image's size; boxes are clipped to it. A size that is not finite
    ///     and positive is ignored (boxes are then used unclipped).
    public func update(_ observations: [TrackerObservation], imageSize: CGSize) -> [TrackAssignment] {
        lock.lock()
        defer { lock.unlock() }
        frameNumber += 1
        streamFrameNumber += 1
        let bounds: CGRect? =
            imageSize.width.isFinite && imageSize.height.isFinite && imageSize.width > 0 && imageSize.height > 0
            ? CGRect(origin: .zero, size: imageSize) : nil

        // Usable observations, best-scoring first when there are too many.
        var usable = [(index: Int, box: CGRect, appearance: AppearanceDescriptor?)]()
        for (index, observation) in observations.enumerated() {
            if let box = BoxGeometry.sanitized(observation.frame, in: bounds, minimumSide: 1) {
                usable.append((index, box, observation.appearance))
            }
        }
        if usable.count > max(configuration.maxObservations, 0) {
            let score = { (i: Int) -> Float in observations[i].score.isFinite ? observations[i].score : -1 }
            usable.sort { score($0.index) != score($1.index) ? score($0.index) > score($1.index) : $0.index < $1.index }
            usable = Array(usable.prefix(max(configuration.maxObservations, 0)))
            usable.sort { $0.index < $1.index }
        }
        for t in tracks.indices {
            tracks[t].filter.predict()
            tracks[t].recentHits <<= 1
        }
        if configuration.estimatesCameraMotion, let shift = estimateCameraShift(observations: usable.map(\.box)) {
            for t in tracks.indices {
                tracks[t].filter.shift(dx: shift.dx, dy: shift.dy)
                tracks[t].anchor = tracks[t].anchor.offsetBy(dx: shift.dx, dy: shift.dy)
            }
        }
        if configuration.ignoresGroups {
            usable.removeAll { isGroup($0.box) }
        }
        let boxes = usable.map(\.box)
        let appearances = usable.map(\.appearance)

        var trackOf = [Int?](repeating: nil, count: usable.count)
        var reidentified = Set<Int>()
        let motionPairs = associateByMotion(boxes: boxes, appearances: appearances)
        for (t, o) in motionPairs { trackOf[o] = t }
        let matchedTracks = Set(motionPairs.map(\.track))
        let reidPairs = reidentify(
            boxes: boxes, appearances: appearances, bounds: bounds,
            excludingTracks: matchedTracks, excludingObservations: Set(motionPairs.map(\.observation)))
        for (t, o) in reidPairs {
            trackOf[o] = t
            reidentified.insert(t)
        }

        // Correct the paired tracks. An appearance sample is kept only when the box is clear of
        // the other observations and of the other tracks' predicted boxes (an object hidden by
        // this one, or hiding it, may go unobserved): an occluded view would teach the track the
        // wrong look, and re-identification would then find the wrong object.
        let paired = Set(trackOf.compactMap { $0 })
        let occluders =
            boxes
            + tracks.indices.filter { !paired.contains($0) && tracks[$0].missed < configuration.maxCoastFrames }
            .map { tracks[$0].filter.box }
        var assignedTrack = [Int: Int]()  // usable index → track id
        for (o, t) in trackOf.enumerated() {
            guard let t else { continue }
            if reidentified.contains(t) {
                // The old motion state says nothing about where a re-found object is going.
                tracks[t].filter = BoxKalmanFilter(box: boxes[o], noise: configuration.noise)
            } else {
                tracks[t].filter.update(boxes[o])
            }
            tracks[t].hits += 1
            let score = observations[usable[o].index].score
            tracks[t].scoreAverage =
                (1 - Self.scoreWeight) * tracks[t].scoreAverage + Self.scoreWeight * (score.isFinite ? score : 0)
            tracks[t].recentHits |= 1
            let (needed, window) = confirmation(moving: observations[usable[o].index].isMoving)
            if tracks[t].hits(inLast: max(window, needed)) >= needed {
                tracks[t].isConfirmed = true
            }
            tracks[t].missed = 0
            tracks[t].anchor = boxes[o]
            if let appearance = appearances[o],
                !occluders.indices.contains(where: {
                    $0 != o && BoxGeometry.coverage(of: boxes[o], by: occluders[$0]) > Self.occludedFraction
                })
            {
                tracks[t].remember(appearance)
            }
            assignedTrack[o] = tracks[t].id
        }
        for t in tracks.indices where !paired.contains(t) { tracks[t].missed += 1 }

        // New tracks for the unpaired observations that score high enough (ByteTrack's rule: a
        // weak observation may continue a track but not start one).
        var newTracks = [Track]()
        for o in usable.indices where trackOf[o] == nil {
            let score = observations[usable[o].index].score
            guard score >= configuration.newTrackMinimumScore || configuration.newTrackMinimumScore <= 0 else {
                continue
            }
            var track = Track(
                id: nextID, frame: frameNumber, box: boxes[o], appearance: appearances[o], noise: configuration.noise)
            track.isConfirmed = confirmation(moving: observations[usable[o].index].isMoving).hits <= 1
            track.scoreAverage = score.isFinite ? score : 0
            nextID += 1
            assignedTrack[o] = track.id
            newTracks.append(track)
        }
        retireTracks()
        tracks += newTracks

        let byID = Dictionary(uniqueKeysWithValues: tracks.map { ($0.id, $0) })
        // Nothing can be confirmed in a stream's first frames: report every track then (SORT's rule).
        let warmingUp = streamFrameNumber < configuration.confirmationHits
        var assignments = [TrackAssignment]()
        assignments.reserveCapacity(observations.count)
        var usablePosition = [Int: Int]()
        for (position, entry) in usable.enumerated() { usablePosition[entry.index] = position }
        for index in observations.indices {
            if let o = usablePosition[index], let id = assignedTrack[o], let track = byID[id] {
                var frame = configuration.smoothsFrames ? track.filter.box : boxes[o]
                if let bounds { frame = frame.intersection(bounds) }
                if frame.isNull || frame.width <= 0 || frame.height <= 0 { frame = boxes[o] }
                assignments.append(
                    TrackAssignment(
                        observationIndex: index, trackingID: id, frame: frame, age: frameNumber - track.createdFrame,
                        isConfirmed: (track.isConfirmed || warmingUp)
                            && track.scoreAverage >= configuration.minimumReportedScore))
            } else {
                // Untrackable: an identifier of its own, never seen again.
                let box = BoxGeometry.sanitized(observations[index].frame, in: bounds, minimumSide: 0) ?? .zero
                assignments.append(
                    TrackAssignment(observationIndex: index, trackingID: nextID, frame: box, age: 0, isConfirmed: false)
                )
                nextID += 1
            }
        }
        if tracks.count > max(configuration.maxTracks, 1) {
            // Keep the most recently seen; among equals, the longest-lived.
            tracks.sort { $0.missed != $1.missed ? $0.missed < $1.missed : $0.createdFrame < $1.createdFrame }
            for track in tracks[max(configuration.maxTracks, 1)...] { labelHistories[track.id] = nil }
            tracks.removeLast(tracks.count - max(configuration.maxTracks, 1))
        }
        return assignments
    }

    /// Label smoothing over a track's life: feed this frame's labels of a track, get the smoothed ones (best first) back.
    ///
    /// Call it once per track per frame, after ``update(_:imageSize:)``; a second call for the same
    /// track in the same frame replaces the first call's labels. Smoothed confidences are the
    /// decayed averages described at ``Configuration/labelDecay``; labels whose average is below
    /// ``Configuration/minimumLabelConfidence`` are left out. For an identifier that is not a live
    /// track (a one-off or retired one) the labels are returned ranked, and nothing is remembered.
    public func smoothedLabels(_ labels: [ObjectLabel], forTrack trackingID: Int) -> [ObjectLabel] {
        lock.lock()
        defer { lock.unlock() }
        guard tracks.contains(where: { $0.id == trackingID }) else {
            return labels.sorted {
                $0.confidence != $1.confidence ? $0.confidence > $1.confidence : $0.index < $1.index
            }
        }
        var history = labelHistories[trackingID] ?? LabelHistory()
        history.add(labels, frame: frameNumber, decay: configuration.labelDecay)
        labelHistories[trackingID] = history
        return history.ranked(minimum: configuration.minimumLabelConfidence)
    }

    /// Forgets all tracks (a new stream); IDs keep increasing, never reused.
    public func reset() {
        lock.lock()
        defer { lock.unlock() }
        tracks.removeAll()
        labelHistories.removeAll()
        streamFrameNumber = 0
    }

    /// Whether `box` covers most of two or more confirmed, recently seen tracks' predicted boxes
    /// whose centres lie outside each other's boxes: one box around several tracked objects (they
    /// touch or overlap, and the localizer saw them as one region), not an object of its own.
    func isGroup(_ box: CGRect) -> Bool {
        let inside = tracks.filter {
            $0.isConfirmed && $0.missed <= configuration.maxCoastFrames
                && BoxGeometry.coverage(of: $0.filter.box, by: box) >= Self.groupCoverage
        }.map { $0.filter.box }
        for (i, a) in inside.enumerated() {
            for b in inside[(i + 1)...]
            where !a.contains(CGPoint(x: b.midX, y: b.midY)) && !b.contains(CGPoint(x: a.midX, y: a.midY)) {
                return true
            }
        }
        return false
    }

    /// Drops tracks lost for too long, with their label histories.
    /// The observations needed, and the frames they must fall in, to confirm a track paired with
    /// an observation (a motion cue's or another localizer's).
    private func confirmation(moving: Bool) -> (hits: Int, window: Int) {
        moving
            ? (configuration.movingConfirmationHits, configuration.movingConfirmationWindow)
            : (configuration.confirmationHits, configuration.confirmationWindow)
    }

    private func retireTracks() {
        tracks.removeAll { track in
            let limit = track.isConfirmed ? configuration.maxMissedFrames : configuration.maxMissedFramesTentative
            if track.missed > limit {
                labelHistories[track.id] = nil
                return true
            }
            return false
        }
    }
}

import Foundation

/// One object the tracker follows: its identifier, motion filter, appearance and bookkeeping.
struct Track: Sendable {
    /// Appearance samples kept per track; re-identification compares against the best of them, so
    /// an object seen from a slightly different crop than last time is still recognised.
    static let gallerySize = 8

    let id: Int
    /// The frame number (tracker-wide) the track was created in.
    let createdFrame: Int
    var filter: BoxKalmanFilter
    /// Observations paired with the track so far.
    var hits = 1
    /// Which of the recent frames paired an observation with the track: bit 0 is the latest frame,
    /// bit k the frame k frames before it.
    var recentHits: UInt64 = 1
    /// Whether the track has been confirmed (see ``ObjectTracker/Configuration/confirmationHits``);
    /// once confirmed, it stays so.
    var isConfirmed = false
    /// The observations' scores averaged over time (`0.7 · old + 0.3 · new`; non-finite scores count as 0).
    var scoreAverage: Float = 0
    /// Consecutive frames without an observation.
    var missed = 0
    /// The last observed box, moved along with estimated camera shifts since.
    var anchor: CGRect
    /// Recent appearance samples, oldest first.
    var gallery: [AppearanceDescriptor] = []

    init(id: Int, frame: Int, box: CGRect, appearance: AppearanceDescriptor?, noise: BoxKalmanFilter.Noise) {
        self.id = id
        createdFrame = frame
        filter = BoxKalmanFilter(box: box, noise: noise)
        anchor = box
        if let appearance { gallery = [appearance] }
    }

    /// Pairs seen in the last `window` frames (this one included).
    func hits(inLast window: Int) -> Int {
        let window = min(max(window, 1), 64)
        let mask: UInt64 = window == 64 ? .max : (1 << UInt64(window)) - 1
        return (recentHits & mask).nonzeroBitCount
    }

    /// The best similarity of `appearance` to the samples (nil when either side has none).
    func similarity(to appearance: AppearanceDescriptor?) -> Float? {
        guard let appearance, !gallery.isEmpty else { return nil }
        return gallery.reduce(Float(0)) { max($0, $1.similarity(to: appearance)) }
    }

    /// Adds an appearance sample, dropping the oldest when the gallery is full.
    mutating func remember(_ appearance: AppearanceDescriptor) {
        if gallery.count >= Track.gallerySize { gallery.removeFirst() }
        gallery.append(appearance)
    }
}

import Foundation
import OpenMLKitVision

/// A simulated localizer plus ``ObjectTracker``: the ground truth of a generated frame made noisy
/// (jittered boxes, missed objects, false alarms), tracked like a real detector's output.
///
/// It isolates the tracker from the localizer: its figures say how well the tracker associates
/// boxes of known quality, and are what the tracker's defaults were tuned on. Deterministic for a
/// given seed and sequence of frames. Not thread-safe.
public final class OracleDetector {
    /// How the simulated localizer errs.
    public struct Noise: Sendable {
        /// Standard deviation of each box edge's error, as a fraction of the box's width (left,
        /// right) or height (top, bottom).
        public var jitter = 0.04
        /// Probability that a visible object is not reported in a frame.
        public var dropRate = 0.06
        /// Probability per object and frame that it starts being missed for ``burstLength`` frames.
        public var burstRate = 0.015
        /// Length of a burst of misses, in frames.
        public var burstLength = 4
        /// Expected false alarms per frame (boxes where there is no object).
        public var falsePositiveRate = 0.25
        /// Objects less visible than this (hidden behind another, mostly outside) are not reported.
        public var minimumVisibility = 0.5
        /// Whether appearance descriptors are computed for the boxes (the tracker's re-identification needs them).
        public var computesAppearance = true

        /// The defaults above.
        public init() {}
    }

    /// The noise in effect.
    public let noise: Noise
    /// The tracker fed with the noisy boxes.
    public let tracker: ObjectTracker
    private let seed: UInt64
    private var random: SeededGenerator
    /// Frames left in each object's current burst of misses.
    private var burst: [Int: Int] = [:]
    /// The ground-truth identifier behind each observation of the last frame (nil: a false alarm);
    /// lets tests build the ideal tracker's output from the same noisy boxes.
    private(set) var lastSources: [Int?] = []

    /// An oracle with the given noise, random seed and tracker tunables.
    public init(noise: Noise = .init(), seed: UInt64 = 1, configuration: ObjectTracker.Configuration = .init()) {
        self.noise = noise
        self.seed = seed
        random = SeededGenerator(seed: seed)
        tracker = ObjectTracker(configuration: configuration)
    }

    /// The simulated localizer's observations of `frame`.
    public func observations(for frame: SyntheticFrame) -> [TrackerObservation] {
        let (width, height) = (Double(frame.image.width), Double(frame.image.height))
        let picture = CGRect(x: 0, y: 0, width: width, height: height)
        var boxes = [(CGRect, Float)]()
        var sources = [Int?]()
        for object in frame.objects {
            if let left = burst[object.id], left > 0 {
                burst[object.id] = left - 1
                continue
            }
            if random.chance(noise.burstRate) {
                burst[object.id] = max(noise.burstLength - 1, 0)
                continue
            }
            guard object.visibility >= noise.minimumVisibility, !random.chance(noise.dropRate) else { continue }
            let f = object.frame
            let (w, h) = (Double(f.width), Double(f.height))
            let x0 = Double(f.minX) + noise.jitter * w * random.gaussian()
            let x1 = Double(f.maxX) + noise.jitter * w * random.gaussian()
            let y0 = Double(f.minY) + noise.jitter * h * random.gaussian()
            let y1 = Double(f.maxY) + noise.jitter * h * random.gaussian()
            let box = CGRect(x: min(x0, x1), y: min(y0, y1), width: abs(x1 - x0), height: abs(y1 - y0))
                .intersection(picture)
            guard !box.isNull, box.width >= 2, box.height >= 2 else { continue }
            boxes.append((box, Float(random.uniform(0.5...0.95))))
            sources.append(object.id)
        }
        // False alarms: a Poisson-like count from repeated trials.
        var expected = noise.falsePositiveRate
        while expected > 0 {
            if random.chance(min(expected, 1)) {
                let side = random.uniform(0.12...0.3) * height
                let w = side * random.uniform(0.7...1.4)
                let box = CGRect(
                    x: random.uniform(0...max(width - w, 0)), y: random.uniform(0...max(height - side, 0)),
                    width: w, height: side)
                boxes.append((box, Float(random.uniform(0.3...0.6))))
                sources.append(nil)
            }
            expected -= 1
        }
        lastSources = sources
        return boxes.map { box, score in
            let appearance = noise.computesAppearance ? try? AppearanceDescriptor(image: frame.image, region: box) : nil
            return TrackerObservation(frame: box, score: score, appearance: appearance)
        }
    }

    /// The tracked objects of `frame`: its noisy observations through the tracker, with their
    /// tracking identifiers (labels are left empty); like stream-mode detection, only those of
    /// confirmed tracks (``TrackAssignment/isConfirmed``).
    public func detect(_ frame: SyntheticFrame) -> [DetectedObject] {
        let assignments = tracker.update(
            observations(for: frame), imageSize: CGSize(width: frame.image.width, height: frame.image.height))
        return assignments.filter(\.isConfirmed).map {
            DetectedObject(frame: $0.frame, trackingID: $0.trackingID, labels: [])
        }
    }

    /// Starts a new stream: forgets the tracks and the bursts of misses, and restarts the noise
    /// from the seed mixed with `stream` (so a sequence sees the same noise however many ran before it).
    public func reset(stream: Int = 0) {
        tracker.reset()
        burst.removeAll()
        random = SeededGenerator(seed: seed &+ UInt64(truncatingIfNeeded: stream) &* 0x9E37_79B9)
    }
}

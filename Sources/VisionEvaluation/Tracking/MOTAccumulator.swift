import Foundation
import OpenMLKitVision

/// Scores one sequence of tracker output against ground truth, frame by frame (CLEAR-MOT), and
/// keeps the trajectories for the identity measures (IDF1), computed by ``metrics()``.
///
/// Each frame:
/// 1. a ground-truth object still matched, in the previous frame, to a hypothesis with the same
///    identifier keeps that match when their IoU is still ≥ the threshold;
/// 2. the remaining objects and hypotheses are matched by a minimum-cost (Hungarian) assignment on
///    1 − IoU among pairs with IoU ≥ the threshold (most matches first, then best overlap);
/// 3. a match whose hypothesis identifier differs from the one the object was last matched to (in
///    any earlier frame) is an ID switch;
/// 4. unmatched hypotheses that overlap an ignored ground-truth box (IoU ≥ threshold) are dropped;
///    the others are false positives; unmatched objects are misses.
///
/// Identifiers need only be unique within the sequence; a hypothesis identifier that appears twice
/// in one frame is scored as two boxes.
public struct MOTAccumulator: Sendable {
    /// The IoU a ground-truth box and a hypothesis need to match (0.5 in the MOT benchmarks).
    public let iouThreshold: Double

    private var totals = MOTMetrics()
    /// Hypothesis identifier each object was matched to in the previous frame.
    private var previousMatch: [Int: Int] = [:]
    /// Hypothesis identifier each object was last matched to, in any frame.
    private var lastMatch: [Int: Int] = [:]
    /// Per object: frames present and frames matched (for mostly tracked / lost).
    private var presence: [Int: (frames: Int, matched: Int)] = [:]
    /// Boxes counted per hypothesis identifier (IDF1's trajectory lengths).
    private var hypothesisLength: [Int: Int] = [:]
    /// Frames in which object g and hypothesis h overlap by at least the threshold, keyed (g, h).
    private var coincidences: [Pair: Int] = [:]

    private struct Pair: Hashable, Sendable {
        let truth: Int
        let hypothesis: Int
    }

    /// An empty accumulator.
    public init(iouThreshold: Double = 0.5) {
        self.iouThreshold = iouThreshold
    }

    /// Scores one frame.
    public mutating func addFrame(groundTruth: [MOTBox], hypotheses: [MOTBox]) {
        totals.frames += 1
        let truth = groundTruth.filter { !$0.isIgnored }
        let ignored = groundTruth.filter(\.isIgnored)
        var truthMatch = [Int?](repeating: nil, count: truth.count)
        var hypothesisUsed = [Bool](repeating: false, count: hypotheses.count)

        // 1. Correspondences carried over from the previous frame.
        for (g, object) in truth.enumerated() {
            guard let id = previousMatch[object.id] else { continue }
            let candidate = hypotheses.indices.filter { !hypothesisUsed[$0] && hypotheses[$0].id == id }
                .max {
                    BoxGeometry.iou(object.frame, hypotheses[$0].frame)
                        < BoxGeometry.iou(object.frame, hypotheses[$1].frame)
                }
            if let h = candidate, BoxGeometry.iou(object.frame, hypotheses[h].frame) >= iouThreshold {
                truthMatch[g] = h
                hypothesisUsed[h] = true
            }
        }
        // 2. Optimal assignment for the rest.
        let openTruth = truth.indices.filter { truthMatch[$0] == nil }
        let openHypotheses = hypotheses.indices.filter { !hypothesisUsed[$0] }
        let pairs = HungarianSolver.solve(
            rows: openTruth.count, columns: openHypotheses.count,
            cost: { 1 - BoxGeometry.iou(truth[openTruth[$0]].frame, hypotheses[openHypotheses[$1]].frame) },
            allowed: {
                BoxGeometry.iou(truth[openTruth[$0]].frame, hypotheses[openHypotheses[$1]].frame) >= iouThreshold
            })
        for pair in pairs {
            truthMatch[openTruth[pair.row]] = openHypotheses[pair.column]
            hypothesisUsed[openHypotheses[pair.column]] = true
        }

        // 3. Matches, switches and misses.
        var currentMatch = [Int: Int]()
        for (g, object) in truth.enumerated() {
            var record = presence[object.id] ?? (0, 0)
            record.frames += 1
            if let h = truthMatch[g] {
                let id = hypotheses[h].id
                totals.matches += 1
                totals.iouSum += BoxGeometry.iou(object.frame, hypotheses[h].frame)
                if let last = lastMatch[object.id], last != id { totals.idSwitches += 1 }
                lastMatch[object.id] = id
                currentMatch[object.id] = id
                record.matched += 1
            } else {
                totals.misses += 1
            }
            presence[object.id] = record
        }
        previousMatch = currentMatch

        // 4. Hypotheses left over: on ignored objects they do not count at all.
        var counted = [Bool](repeating: true, count: hypotheses.count)
        let leftover = hypotheses.indices.filter { !hypothesisUsed[$0] }
        let onIgnored = HungarianSolver.solve(
            rows: ignored.count, columns: leftover.count,
            cost: { 1 - BoxGeometry.iou(ignored[$0].frame, hypotheses[leftover[$1]].frame) },
            allowed: { BoxGeometry.iou(ignored[$0].frame, hypotheses[leftover[$1]].frame) >= iouThreshold })
        for pair in onIgnored { counted[leftover[pair.column]] = false }
        totals.falsePositives += leftover.filter { counted[$0] }.count
        totals.groundTruthBoxes += truth.count
        totals.hypothesisBoxes += counted.filter { $0 }.count

        // Identity bookkeeping: every counted hypothesis box, and every overlapping (object,
        // hypothesis identifier) pair once per frame.
        var seen = Set<Pair>()
        for (h, hypothesis) in hypotheses.enumerated() where counted[h] {
            hypothesisLength[hypothesis.id, default: 0] += 1
            for object in truth where BoxGeometry.iou(object.frame, hypothesis.frame) >= iouThreshold {
                let pair = Pair(truth: object.id, hypothesis: hypothesis.id)
                if seen.insert(pair).inserted { coincidences[pair, default: 0] += 1 }
            }
        }
    }

    /// The figures of the frames added so far (one sequence).
    public func metrics() -> MOTMetrics {
        var result = totals
        result.sequences = 1
        result.groundTruthTracks = presence.count
        for (_, record) in presence {
            let fraction = Double(record.matched) / Double(max(record.frames, 1))
            if fraction >= 0.8 {
                result.mostlyTracked += 1
            } else if fraction <= 0.2 {
                result.mostlyLost += 1
            } else {
                result.partiallyTracked += 1
            }
        }
        // IDF1: pairing trajectories one to one so as to maximise the frames they share (IDTP).
        // Unpaired frames are IDFN (ground truth) or IDFP (hypotheses).
        let objects = presence.keys.sorted()
        let tracks = hypothesisLength.keys.sorted()
        let rowOf = Dictionary(uniqueKeysWithValues: objects.enumerated().map { ($1, $0) })
        let columnOf = Dictionary(uniqueKeysWithValues: tracks.enumerated().map { ($1, $0) })
        var shared = [Int](repeating: 0, count: objects.count * tracks.count)
        for (pair, count) in coincidences {
            if let r = rowOf[pair.truth], let c = columnOf[pair.hypothesis] { shared[r * tracks.count + c] = count }
        }
        // Every pair is allowed (a pair sharing nothing costs 0, as leaving both unpaired does), so
        // the solver maximises shared frames rather than the number of pairs.
        let pairing = HungarianSolver.solve(
            rows: objects.count, columns: tracks.count, cost: { -Double(shared[$0 * tracks.count + $1]) },
            allowed: { _, _ in true })
        let idtp = pairing.reduce(0) { $0 + shared[$1.row * tracks.count + $1.column] }
        result.idTruePositives = idtp
        result.idFalseNegatives = totals.groundTruthBoxes - idtp
        result.idFalsePositives = totals.hypothesisBoxes - idtp
        return result
    }
}

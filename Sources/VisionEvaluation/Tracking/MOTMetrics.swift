import Foundation
import OpenMLKitVision

/// The standard multi-object-tracking figures of one or more sequences: CLEAR-MOT (MOTA, MOTP, ID
/// switches) and the identity measures (IDF1, IDP, IDR).
///
/// Counts are stored; the ratios are computed from them, so figures of several sequences combine
/// exactly with ``combined(_:)``. Build them with ``MOTAccumulator``.
///
/// Definitions (Bernardin & Stiefelhagen 2008; Ristani et al. 2016), for ground truth (GT) and
/// hypotheses matched when their IoU is at least the threshold (0.5):
/// - MOTA = 1 − (misses + false positives + ID switches) / GT boxes;
/// - MOTP = mean IoU of the matched pairs (higher is better);
/// - IDF1 = 2 · IDTP / (2 · IDTP + IDFP + IDFN), with IDTP the frames in which GT trajectories and
///   the hypothesis trajectories globally assigned to them (one to one, maximising IDTP) match;
/// - precision = matches / hypotheses, recall = matches / GT boxes;
/// - mostly tracked / lost: GT trajectories matched in ≥ 80 % / ≤ 20 % of their frames.
public struct MOTMetrics: Equatable, Sendable {
    /// Sequences evaluated.
    public var sequences = 0
    /// Frames evaluated.
    public var frames = 0
    /// Ground-truth boxes counted (ignored ones excluded).
    public var groundTruthBoxes = 0
    /// Hypothesis boxes counted (those on ignored ground truth excluded).
    public var hypothesisBoxes = 0
    /// Distinct ground-truth objects (per sequence, summed).
    public var groundTruthTracks = 0
    /// Ground-truth boxes matched to a hypothesis.
    public var matches = 0
    /// Hypotheses matched to no ground truth.
    public var falsePositives = 0
    /// Ground-truth boxes matched to no hypothesis.
    public var misses = 0
    /// Times a ground-truth object was matched to a different hypothesis identifier than the last
    /// time it was matched.
    public var idSwitches = 0
    /// Sum of the IoU of all matches (MOTP's numerator).
    public var iouSum = 0.0
    /// Identity true positives.
    public var idTruePositives = 0
    /// Identity false positives (hypothesis boxes not credited to their assigned object).
    public var idFalsePositives = 0
    /// Identity false negatives (ground-truth boxes not credited to their assigned hypothesis).
    public var idFalseNegatives = 0
    /// Ground-truth trajectories matched in at least 80 % of their frames.
    public var mostlyTracked = 0
    /// Ground-truth trajectories matched in more than 20 % and less than 80 % of their frames.
    public var partiallyTracked = 0
    /// Ground-truth trajectories matched in at most 20 % of their frames.
    public var mostlyLost = 0

    /// Empty figures (no frames).
    public init() {}

    /// Multiple object tracking accuracy: 1 − (misses + FP + ID switches) / GT boxes; may be
    /// negative. Without ground truth: 1 when there are no errors, else 0.
    public var mota: Double {
        let errors = Double(misses + falsePositives + idSwitches)
        guard groundTruthBoxes > 0 else { return errors == 0 ? 1 : 0 }
        return 1 - errors / Double(groundTruthBoxes)
    }

    /// Multiple object tracking precision: the mean IoU of the matched pairs (0 without matches).
    public var motp: Double { matches > 0 ? iouSum / Double(matches) : 0 }

    /// The identity F1 score, 0...1 (1 also when there is nothing to track and nothing reported).
    public var idf1: Double {
        Self.ratio(2 * idTruePositives, 2 * idTruePositives + idFalsePositives + idFalseNegatives)
    }

    /// Identity precision: IDTP / (IDTP + IDFP).
    public var idPrecision: Double { Self.ratio(idTruePositives, idTruePositives + idFalsePositives) }

    /// Identity recall: IDTP / (IDTP + IDFN).
    public var idRecall: Double { Self.ratio(idTruePositives, idTruePositives + idFalseNegatives) }

    /// Detection precision: matches / hypotheses.
    public var precision: Double { Self.ratio(matches, matches + falsePositives) }

    /// Detection recall: matches / ground-truth boxes.
    public var recall: Double { Self.ratio(matches, matches + misses) }

    /// The figures of all `parts` together (counts summed; ratios follow).
    public static func combined(_ parts: [MOTMetrics]) -> MOTMetrics {
        var total = MOTMetrics()
        for p in parts {
            total.sequences += p.sequences
            total.frames += p.frames
            total.groundTruthBoxes += p.groundTruthBoxes
            total.hypothesisBoxes += p.hypothesisBoxes
            total.groundTruthTracks += p.groundTruthTracks
            total.matches += p.matches
            total.falsePositives += p.falsePositives
            total.misses += p.misses
            total.idSwitches += p.idSwitches
            total.iouSum += p.iouSum
            total.idTruePositives += p.idTruePositives
            total.idFalsePositives += p.idFalsePositives
            total.idFalseNegatives += p.idFalseNegatives
            total.mostlyTracked += p.mostlyTracked
            total.partiallyTracked += p.partiallyTracked
            total.mostlyLost += p.mostlyLost
        }
        return total
    }

    private static func ratio(_ a: Int, _ b: Int) -> Double { b > 0 ? Double(a) / Double(b) : 1 }
}

extension MOTMetrics: Encodable {
    private enum Keys: String, CodingKey {
        case sequences, frames, groundTruthBoxes, hypothesisBoxes, groundTruthTracks, matches, falsePositives
        case misses, idSwitches, idTruePositives, idFalsePositives, idFalseNegatives
        case mostlyTracked, partiallyTracked, mostlyLost
        case mota, motp, idf1, idPrecision, idRecall, precision, recall
    }

    /// Encodes the counts and the derived figures (MOTA, MOTP, IDF1, ...) as one flat object.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(sequences, forKey: .sequences)
        try c.encode(frames, forKey: .frames)
        try c.encode(groundTruthBoxes, forKey: .groundTruthBoxes)
        try c.encode(hypothesisBoxes, forKey: .hypothesisBoxes)
        try c.encode(groundTruthTracks, forKey: .groundTruthTracks)
        try c.encode(matches, forKey: .matches)
        try c.encode(falsePositives, forKey: .falsePositives)
        try c.encode(misses, forKey: .misses)
        try c.encode(idSwitches, forKey: .idSwitches)
        try c.encode(idTruePositives, forKey: .idTruePositives)
        try c.encode(idFalsePositives, forKey: .idFalsePositives)
        try c.encode(idFalseNegatives, forKey: .idFalseNegatives)
        try c.encode(mostlyTracked, forKey: .mostlyTracked)
        try c.encode(partiallyTracked, forKey: .partiallyTracked)
        try c.encode(mostlyLost, forKey: .mostlyLost)
        try c.encode(mota, forKey: .mota)
        try c.encode(motp, forKey: .motp)
        try c.encode(idf1, forKey: .idf1)
        try c.encode(idPrecision, forKey: .idPrecision)
        try c.encode(idRecall, forKey: .idRecall)
        try c.encode(precision, forKey: .precision)
        try c.encode(recall, forKey: .recall)
    }
}

/// The exponentially decayed average of one track's per-class label confidences.
///
/// Every frame each known class's average becomes `decay · average + (1 − decay) · confidence`, with
/// confidence 0 for classes absent that frame. The averages are divided by the total weight given
/// so far (`1 − decayⁿ` after n frames), so a young track's labels are not biased towards zero.
struct LabelHistory: Sendable {
    private struct Entry: Sendable {
        var text: String
        var sum: Float
    }

    private var entries: [Int: Entry] = [:]
    private var weight: Float = 0
    /// The frame of the last ``add(_:frame:decay:)`` and the state before it, so that a second call
    /// in the same frame replaces that frame's contribution instead of counting twice.
    private var lastFrame = -1
    private var beforeLast: ([Int: Entry], Float) = ([:], 0)

    /// Folds in the labels one frame gave the track.
    mutating func add(_ labels: [ObjectLabel], frame: Int, decay: Float) {
        if frame == lastFrame {
            (entries, weight) = beforeLast
        } else {
            beforeLast = (entries, weight)
            lastFrame = frame
        }
        let d = decay.isFinite ? min(max(decay, 0), 1) : 0.8
        for key in Array(entries.keys) { entries[key]!.sum *= d }
        weight = weight * d + (1 - d)
        // Several labels of one class in one frame count once, at their best confidence.
        var best = [Int: ObjectLabel]()
        for label in labels where label.confidence.isFinite {
            if let seen = best[label.index], seen.confidence >= label.confidence { continue }
            best[label.index] = label
        }
        for (index, label) in best {
            let value = (1 - d) * min(max(label.confidence, 0), 1)
            if var entry = entries[index] {
                entry.sum += value
                entry.text = label.text
                entries[index] = entry
            } else {
                entries[index] = Entry(text: label.text, sum: value)
            }
        }
        // Forget classes whose weight has decayed to nothing (keeps the table small on long tracks).
        entries = entries.filter { $0.value.sum > 1e-4 * weight }
    }

    /// The smoothed labels with confidence ≥ `minimum`, best first (ties: lower class index first).
    func ranked(minimum: Float) -> [ObjectLabel] {
        guard weight > 0 else { return [] }
        return entries.map { ObjectLabel(text: $0.value.text, index: $0.key, confidence: $0.value.sum / weight) }
            .filter { $0.confidence >= minimum }
            .sorted { $0.confidence != $1.confidence ? $0.confidence > $1.confidence : $0.index < $1.index }
    }
}

import Foundation

/// The pairing stages of ``ObjectTracker/update(_:imageSize:)``: camera shift, motion pairing and
/// re-identification. All of them run with the tracker's lock held.
extension ObjectTracker {
    /// Pairs tracks seen recently with observations by their predicted boxes and appearance.
    ///
    /// Cost of a pair: `(1 − w) · motion + w · (1 − similarity)` with `w` the appearance weight
    /// (motion alone without appearance), where `motion = ½ (1 − IoU) + ½ min(1, d² / gate)` mixes
    /// overlap with the Mahalanobis distance `d²`, so that a fast object without overlap still has a
    /// graded cost. Unconfirmed tracks cost a little more, and so does every frame a track has been
    /// coasting, so that established, recently seen tracks win ties.
    func associateByMotion(boxes: [CGRect], appearances: [AppearanceDescriptor?])
        -> [(track: Int, observation: Int)]
    {
        let candidates = tracks.indices.filter { tracks[$0].missed <= configuration.maxCoastFrames }
        guard !candidates.isEmpty, !boxes.isEmpty else { return [] }
        let columns = boxes.count
        var cost = [Double](repeating: 0, count: candidates.count * columns)
        var allowed = [Bool](repeating: false, count: candidates.count * columns)
        let gate = max(configuration.mahalanobisGate, 1e-6)
        let weight = min(max(configuration.appearanceWeight, 0), 1)
        for (row, t) in candidates.enumerated() {
            let track = tracks[t]
            let predicted = track.filter.box
            for o in 0..<columns {
                let iou = BoxGeometry.iou(predicted, boxes[o])
                let distance = track.filter.mahalanobis(boxes[o])
                guard iou >= configuration.minimumIoU || distance <= gate else { continue }
                var value = 0.5 * (1 - iou) + 0.5 * min(distance / gate, 1)
                if let similarity = track.similarity(to: appearances[o]) {
                    if similarity < configuration.minimumAppearanceSimilarity && iou < 0.5 { continue }
                    value = (1 - weight) * value + weight * Double(1 - similarity)
                }
                if !track.isConfirmed { value += 0.05 }
                value += 0.02 * Double(track.missed)
                cost[row * columns + o] = value
                allowed[row * columns + o] = true
            }
        }
        return HungarianSolver.solve(
            rows: candidates.count, columns: columns, cost: { cost[$0 * columns + $1] },
            allowed: { allowed[$0 * columns + $1] }
        ).map { (track: candidates[$0.row], observation: $0.column) }
    }

    /// Pairs lost confirmed tracks with the observations left over, by appearance, near where each
    /// track was last seen (moved with the camera) or is predicted, both clamped to the picture.
    func reidentify(
        boxes: [CGRect], appearances: [AppearanceDescriptor?], bounds: CGRect?,
        excludingTracks: Set<Int>, excludingObservations: Set<Int>
    ) -> [(track: Int, observation: Int)] {
        let candidates = tracks.indices.filter {
            !excludingTracks.contains($0) && tracks[$0].isConfirmed && !tracks[$0].gallery.isEmpty
        }
        let observations = boxes.indices.filter { !excludingObservations.contains($0) && appearances[$0] != nil }
        guard !candidates.isEmpty, !observations.isEmpty else { return [] }
        func clamp(_ x: Double, _ y: Double) -> (Double, Double) {
            guard let bounds else { return (x, y) }
            return (
                min(max(x, Double(bounds.minX)), Double(bounds.maxX)),
                min(max(y, Double(bounds.minY)), Double(bounds.maxY))
            )
        }
        let columns = observations.count
        var cost = [Double](repeating: 0, count: candidates.count * columns)
        var allowed = [Bool](repeating: false, count: candidates.count * columns)
        for (row, t) in candidates.enumerated() {
            let track = tracks[t]
            let size = max(BoxGeometry.scale(track.anchor), 1)
            let radius =
                size
                * (configuration.reidentificationRadius
                    + configuration.reidentificationRadiusGrowth * Double(track.missed + 1))
            let last = clamp(Double(track.anchor.midX), Double(track.anchor.midY))
            let predicted = clamp(track.filter.x.value, track.filter.y.value)
            for (column, o) in observations.enumerated() {
                let box = boxes[o]
                let ratio = BoxGeometry.scale(box) / size
                guard ratio > 0.5, ratio < 2 else { continue }
                let (cx, cy) = (Double(box.midX), Double(box.midY))
                let distance = min(hypot(cx - last.0, cy - last.1), hypot(cx - predicted.0, cy - predicted.1))
                guard distance <= radius, let similarity = track.similarity(to: appearances[o]),
                    similarity >= configuration.reidentificationSimilarity
                else { continue }
                cost[row * columns + column] = Double(1 - similarity) + 0.1 * distance / radius
                allowed[row * columns + column] = true
            }
        }
        return HungarianSolver.solve(
            rows: candidates.count, columns: columns, cost: { cost[$0 * columns + $1] },
            allowed: { allowed[$0 * columns + $1] }
        ).map { (track: candidates[$0.row], observation: observations[$0.column]) }
    }

    /// The shift (beyond each track's own predicted motion) that most tracks seen in the last frame
    /// agree on, or nil when there is no such agreement or it is negligible.
    ///
    /// Each pairing of a track with an observation proposes a shift; a proposal's support is the
    /// number of tracks that have an observation of similar size within a quarter of their size of
    /// where the shift puts them. The best-supported proposal wins when at least three tracks and
    /// half of all of them support it, and more than support no shift at all; it is then refined to
    /// the mean displacement of its supporters. Three, because with two tracks a common shift cannot
    /// be told from two objects crossing (each track's observation is where the other's shift puts
    /// it): accepting two supporters swapped identities in the crossing scenario.
    func estimateCameraShift(observations boxes: [CGRect]) -> (dx: Double, dy: Double)? {
        // Bounded work: the vote is quadratic in the number of pairs.
        let reference = Array(
            tracks.filter { $0.missed == 0 && $0.hits >= 2 }.sorted { $0.hits > $1.hits }.prefix(12))
        let observed = Array(boxes.prefix(40))
        guard reference.count >= 2, observed.count >= 2 else { return nil }
        let predicted = reference.map { $0.filter.box }
        let sizes = predicted.map { max(BoxGeometry.scale($0), 1) }

        func compatible(_ t: Int, _ o: Int) -> Bool {
            let ratio = BoxGeometry.scale(observed[o]) / sizes[t]
            return ratio > 0.67 && ratio < 1.5
        }
        /// Supporters of shift (dx, dy) with their displacements.
        func support(_ dx: Double, _ dy: Double) -> (count: Int, sx: Double, sy: Double, residual: Double) {
            var count = 0
            var (sx, sy, residual) = (0.0, 0.0, 0.0)
            for t in predicted.indices {
                var best: (distance: Double, ox: Double, oy: Double)?
                for o in observed.indices where compatible(t, o) {
                    let ox = Double(observed[o].midX - predicted[t].midX)
                    let oy = Double(observed[o].midY - predicted[t].midY)
                    let distance = hypot(ox - dx, oy - dy)
                    if distance <= 0.25 * sizes[t], distance < (best?.distance ?? .infinity) {
                        best = (distance, ox, oy)
                    }
                }
                if let best {
                    count += 1
                    sx += best.ox
                    sy += best.oy
                    residual += best.distance / sizes[t]
                }
            }
            return (count, sx, sy, residual)
        }

        var winner: (count: Int, sx: Double, sy: Double, residual: Double)?
        for t in predicted.indices {
            for o in observed.indices where compatible(t, o) {
                let dx = Double(observed[o].midX - predicted[t].midX)
                let dy = Double(observed[o].midY - predicted[t].midY)
                guard hypot(dx, dy) <= 3 * sizes[t] else { continue }
                let s = support(dx, dy)
                if let w = winner, s.count < w.count || (s.count == w.count && s.residual >= w.residual) { continue }
                winner = s
            }
        }
        guard let winner, winner.count >= 3, 2 * winner.count >= reference.count,
            winner.count > support(0, 0).count
        else { return nil }
        let dx = winner.sx / Double(winner.count)
        let dy = winner.sy / Double(winner.count)
        let typical = sizes.sorted()[sizes.count / 2]
        guard hypot(dx, dy) > 0.05 * typical, dx.isFinite, dy.isFinite else { return nil }
        return (dx, dy)
    }
}

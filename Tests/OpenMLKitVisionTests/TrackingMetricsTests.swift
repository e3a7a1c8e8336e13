import Foundation
import Testing

@testable import OpenMLKitVision
@testable import VisionEvaluation

/// CLEAR-MOT and IDF1 on hand-made cases whose answers are worked out in the comments, and the
/// Hungarian solver against brute force.
@Suite("Tracking metrics")
struct TrackingMetricsTests {
    /// Two objects moving right 10 px per frame, 40 px apart vertically... far enough never to overlap.
    static func truth(frame f: Int) -> [MOTBox] {
        [
            MOTBox(id: 1, frame: CGRect(x: 10 + 10 * f, y: 10, width: 40, height: 40)),
            MOTBox(id: 2, frame: CGRect(x: 10 + 10 * f, y: 100, width: 40, height: 40)),
        ]
    }

    func score(frames: Int, hypotheses: (Int) -> [MOTBox], truth: (Int) -> [MOTBox] = truth) -> MOTMetrics {
        var accumulator = MOTAccumulator()
        for f in 0..<frames { accumulator.addFrame(groundTruth: truth(f), hypotheses: hypotheses(f)) }
        return accumulator.metrics()
    }

    @Test("Perfect tracking: MOTA 1, MOTP 1, IDF1 1, no switches")
    func perfect() {
        let m = score(frames: 10) { f in Self.truth(frame: f).map { MOTBox(id: $0.id + 100, frame: $0.frame) } }
        #expect(m.mota == 1)
        #expect(abs(m.motp - 1) < 1e-12)
        #expect(m.idf1 == 1)
        #expect(m.idSwitches == 0 && m.falsePositives == 0 && m.misses == 0)
        #expect(m.groundTruthBoxes == 20 && m.matches == 20 && m.groundTruthTracks == 2)
        #expect(m.mostlyTracked == 2 && m.mostlyLost == 0)
        #expect(m.precision == 1 && m.recall == 1)
    }

    @Test("Identifiers swapped at frame 5 of 10: 2 switches, MOTA 0.9, IDF1 0.5")
    func swapped() {
        // Each object is matched to hypothesis A for 5 frames and B for 5: the best one-to-one
        // pairing of trajectories credits 5 + 5 of the 20 boxes, so IDF1 = 2·10 / (2·10 + 10 + 10).
        let m = score(frames: 10) { f in
            Self.truth(frame: f).map { MOTBox(id: f < 5 ? $0.id : 3 - $0.id, frame: $0.frame) }
        }
        #expect(m.idSwitches == 2)
        #expect(abs(m.mota - 0.9) < 1e-12)
        #expect(m.idTruePositives == 10 && m.idFalsePositives == 10 && m.idFalseNegatives == 10)
        #expect(abs(m.idf1 - 0.5) < 1e-12)
    }

    @Test("A missing hypothesis is a miss; an extra box is a false positive")
    func missAndFalsePositive() {
        let missing = score(frames: 10) { f in
            Self.truth(frame: f).filter { !(f == 4 && $0.id == 2) }
        }
        #expect(missing.misses == 1 && missing.falsePositives == 0 && missing.idSwitches == 0)
        #expect(abs(missing.mota - (1 - 1.0 / 20)) < 1e-12)
        #expect(missing.matches == 19)
        // IDTP 19, IDFN 1, IDFP 0.
        #expect(abs(missing.idf1 - 38.0 / 39) < 1e-12)

        let extra = score(frames: 10) { f in
            Self.truth(frame: f) + (f == 7 ? [MOTBox(id: 9, frame: CGRect(x: 200, y: 200, width: 30, height: 30))] : [])
        }
        #expect(extra.falsePositives == 1 && extra.misses == 0 && extra.idSwitches == 0)
        #expect(abs(extra.mota - (1 - 1.0 / 20)) < 1e-12)
        #expect(abs(extra.precision - 20.0 / 21) < 1e-12)
    }

    @Test("A box overlapping less than IoU 0.5 is both a miss and a false positive")
    func poorOverlap() {
        // 40×40 box shifted by 20 px: IoU = 800 / 2400 = 1/3.
        let m = score(frames: 1) { f in
            [MOTBox(id: 1, frame: CGRect(x: 30, y: 10, width: 40, height: 40))]
                + Array(Self.truth(frame: f).dropFirst())
        }
        #expect(m.misses == 1 && m.falsePositives == 1 && m.matches == 1)
    }

    @Test("Ignored ground truth: no miss when not found, no false positive when found")
    func ignored() {
        let truth = { (f: Int) -> [MOTBox] in
            [MOTBox(id: 1, frame: CGRect(x: 10, y: 10, width: 40, height: 40), isIgnored: f % 2 == 0)]
        }
        // Hypothesis only in the even (ignored) frames: nothing counts there; odd frames are misses.
        let m = score(
            frames: 4,
            hypotheses: { f in f % 2 == 0 ? [MOTBox(id: 5, frame: CGRect(x: 11, y: 10, width: 40, height: 40))] : [] },
            truth: truth)
        #expect(m.groundTruthBoxes == 2 && m.misses == 2 && m.falsePositives == 0 && m.hypothesisBoxes == 0)
    }

    @Test("A match still valid is kept even when another hypothesis overlaps better")
    func keepsCorrespondence() {
        let object = CGRect(x: 0, y: 0, width: 100, height: 100)
        let m = score(
            frames: 3,
            hypotheses: { f in
                // Hypothesis 7 (IoU 0.7) from the start; from frame 1 on, hypothesis 8 is exact.
                [MOTBox(id: 7, frame: CGRect(x: 0, y: 0, width: 100, height: 70))]
                    + (f >= 1 ? [MOTBox(id: 8, frame: object)] : [])
            }, truth: { _ in [MOTBox(id: 1, frame: object)] })
        #expect(m.idSwitches == 0)
        #expect(m.falsePositives == 2)
    }

    @Test("Same identifier after a gap is no switch; a new one is")
    func gaps() {
        let same = score(frames: 6) { f in f == 2 || f == 3 ? [] : [MOTBox(id: 4, frame: Self.truth(frame: f)[0].frame)]
        }
        let new = score(frames: 6) { f in
            f == 2 || f == 3 ? [] : [MOTBox(id: f < 2 ? 4 : 5, frame: Self.truth(frame: f)[0].frame)]
        }
        // Object 2 is never found in either: 6 misses of its own.
        #expect(same.idSwitches == 0 && same.misses == 2 + 6)
        #expect(new.idSwitches == 1 && new.misses == 2 + 6)
        #expect(new.partiallyTracked == 1 && new.mostlyLost == 1)
    }

    @Test("Combined figures add the counts of the parts")
    func combined() {
        let a = score(frames: 10) { f in Self.truth(frame: f) }
        let b = score(frames: 10) { f in
            Self.truth(frame: f).map { MOTBox(id: f < 5 ? $0.id : 3 - $0.id, frame: $0.frame) }
        }
        let total = MOTMetrics.combined([a, b])
        #expect(total.sequences == 2 && total.frames == 20 && total.groundTruthBoxes == 40 && total.idSwitches == 2)
        #expect(abs(total.mota - 0.95) < 1e-12)
        #expect(abs(total.idf1 - 60.0 / 80) < 1e-12)
    }

    @Test("The Hungarian solver finds the brute-force optimum, gates included")
    func hungarianMatchesBruteForce() {
        var random = SeededGenerator(seed: 42)
        for _ in 0..<200 {
            let rows = Int.random(in: 1...5, using: &random)
            let columns = Int.random(in: 1...5, using: &random)
            let cost = (0..<(rows * columns)).map { _ in Double.random(in: 0...1, using: &random) }
            let allowed = (0..<(rows * columns)).map { _ in random.chance(0.7) }
            let pairs = HungarianSolver.solve(
                rows: rows, columns: columns, cost: { cost[$0 * columns + $1] }, allowed: { allowed[$0 * columns + $1] }
            )
            #expect(pairs.allSatisfy { allowed[$0.row * columns + $0.column] })
            #expect(Set(pairs.map(\.row)).count == pairs.count && Set(pairs.map(\.column)).count == pairs.count)
            // Brute force: most pairs first, then least cost.
            var best = (count: -1, cost: Double.infinity)
            func search(_ row: Int, _ used: Set<Int>, _ count: Int, _ sum: Double) {
                if row == rows {
                    if count > best.count || (count == best.count && sum < best.cost - 1e-12) { best = (count, sum) }
                    return
                }
                search(row + 1, used, count, sum)
                for c in 0..<columns where !used.contains(c) && allowed[row * columns + c] {
                    search(row + 1, used.union([c]), count + 1, sum + cost[row * columns + c])
                }
            }
            search(0, [], 0, 0)
            let found = pairs.reduce(0) { $0 + cost[$1.row * columns + $1.column] }
            #expect(pairs.count == best.count)
            #expect(abs(found - best.cost) < 1e-9)
        }
    }

    @Test("The solver survives empty and non-finite input")
    func hungarianOddInput() {
        #expect(HungarianSolver.solve(rows: 0, columns: 3, cost: { _, _ in 0 }, allowed: { _, _ in true }).isEmpty)
        let pairs = HungarianSolver.solve(
            rows: 2, columns: 2, cost: { r, c in r == c ? .nan : 1 }, allowed: { _, _ in true })
        #expect(pairs.count == 2 && pairs.allSatisfy { $0.row != $0.column })
    }
}

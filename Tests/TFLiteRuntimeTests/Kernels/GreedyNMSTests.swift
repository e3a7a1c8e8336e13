import Foundation
import Testing

@testable import TFLiteRuntime

/// The heap-ordered, vectorized greedy NMS against the sort-then-suppress loop it replaced, on random boxes with
/// ties, empty and inverted boxes, NaN corners and thresholds at the edges.
struct GreedyNMSTests {
    /// The previous scalar implementation, kept as the reference.
    private func reference(
        scores: [Float], boxes: [Float], scoreThreshold: Float, iouThreshold: Float, maxDetections: Int
    ) -> [Int] {
        var keepIndices = [Int]()
        var keepScores = [Float]()
        for (i, s) in scores.enumerated() where s >= scoreThreshold {
            keepIndices.append(i)
            keepScores.append(s)
        }
        let order = Array(keepScores.indices).sorted {
            keepScores[$0] > keepScores[$1] || (keepScores[$0] == keepScores[$1] && $0 < $1)
        }
        let kept = keepIndices.count
        let outputSize = min(kept, maxDetections)
        var selected = [Int]()
        var active = [Bool](repeating: true, count: kept)
        var activeCount = kept
        for i in 0..<kept {
            if activeCount == 0 || selected.count >= outputSize { break }
            guard active[i] else { continue }
            let bi = keepIndices[order[i]]
            selected.append(bi)
            active[i] = false
            activeCount -= 1
            for j in (i + 1)..<max(kept, i + 1) where active[j] {
                if DetectionPostProcess.iou(boxes, bi, keepIndices[order[j]]) > iouThreshold {
                    active[j] = false
                    activeCount -= 1
                }
            }
        }
        return selected
    }

    private struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5, 6, 7])
    func matchesThePairwiseLoop(seed: UInt64) {
        var g = Generator(state: seed)
        for count in [0, 1, 7, 8, 9, 31, 200, 1000] {
            // Few distinct scores (ties), boxes on a coarse grid (equal and touching corners).
            let scores = (0..<count).map { _ in Float(Int.random(in: 0...20, using: &g)) / 20 }
            var boxes = [Float]()
            for _ in 0..<count {
                let y = Float(Int.random(in: 0...20, using: &g)) / 10, x = Float(Int.random(in: 0...20, using: &g)) / 10
                var h = Float(Int.random(in: 0...10, using: &g)) / 10, w = Float(Int.random(in: 0...10, using: &g)) / 10
                switch Int.random(in: 0..<20, using: &g) {
                case 0: h = -h  // inverted: negative area
                case 1: w = 0  // empty
                case 2: h = .nan
                default: break
                }
                boxes += [y, x, y + h, x + w]
            }
            for iou: Float in [0.3, 0.5, 1, -0.1] {
                for maxDetections in [1, 10, 100_000] {
                    for threshold: Float in [0, 0.5] {
                        let got = DetectionPostProcess.nmsSingleClass(
                            scores: scores, boxes: boxes, scoreThreshold: threshold, iouThreshold: iou,
                            maxDetections: maxDetections)
                        let want = reference(
                            scores: scores, boxes: boxes, scoreThreshold: threshold, iouThreshold: iou,
                            maxDetections: maxDetections)
                        #expect(got == want, "count \(count) iou \(iou) max \(maxDetections) threshold \(threshold)")
                    }
                }
            }
        }
    }

    @Test func keysOrderByDecreasingScoreThenIndexAndTreatSignedZerosAsEqual() {
        let values: [Float] = [0, -0.0, 1, -1, 1, .infinity, -.infinity, 0.5, -0.0, 1e-30, -1e-30]
        let order = values.enumerated().map { GreedyNMS.key(score: $0.element, index: $0.offset) }.sorted()
            .map { Int($0 & 0xFFFF_FFFF) }
        #expect(order == [5, 2, 4, 7, 9, 0, 1, 8, 10, 3, 6])
    }
}

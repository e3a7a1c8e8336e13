import Foundation

/// NON_MAX_SUPPRESSION_V4 and NON_MAX_SUPPRESSION_V5 (soft-NMS with a Gaussian `soft_nms_sigma`), float32.
///
/// Inputs: boxes `[N, 4]` (y1, x1, y2, x2 in either corner order), scores `[N]`, max_output_size
/// (int32 scalar), iou_threshold, score_threshold and, for V5, soft_nms_sigma (float32 scalars).
/// Outputs: selected indices (int32 `[max_output_size]`), V5 also their scores (float32), then the
/// number of valid selections (int32 scalar); unused slots are zero. No options.
///
/// The selection loop is LiteRT's: candidates above the score threshold wait in a max-heap (the
/// same sift order as libstdc++'s `std::priority_queue`, so ties pop in the same order); a
/// candidate still above the threshold is pushed back after being selected or softly suppressed,
/// and is then compared again only with selections made since — a zero-area box (IoU 0 with
/// everything, itself included) can therefore be selected repeatedly, as in LiteRT.
final class NonMaxSuppressionKernel: OpKernel {
    private let soft: Bool

    init(_ node: Node, soft: Bool) throws {
        self.soft = soft
        try node.expect(inputs: soft ? 6 : 5, outputs: soft ? 3 : 2)
    }

    func prepare(_ node: Node) throws {
        let boxes = try node.input(0)
        let scores = try node.input(1)
        try node.expect(boxes, type: .float32, role: "boxes")
        try node.expect(scores, type: .float32, role: "scores")
        guard boxes.rank == 2, boxes.dim(1) == 4 else {
            throw node.error("boxes must have shape [N, 4], has \(boxes.shape)")
        }
        guard scores.rank == 1, scores.dim(0) == boxes.dim(0) else {
            throw node.error("scores \(scores.shape) do not match \(boxes.dim(0)) boxes")
        }
        let maxOutput = try node.input(2)
        try node.expect(maxOutput, type: .int32, role: "max_output_size")
        guard maxOutput.elementCount == 1 else { throw node.error("max_output_size must be a scalar") }
        for (i, role) in [(3, "iou_threshold"), (4, "score_threshold"), (5, "soft_nms_sigma")] where i < (soft ? 6 : 5)
        {
            let t = try node.input(i)
            try node.expect(t, type: .float32, role: role)
            guard t.elementCount == 1 else { throw node.error("\(role) must be a scalar") }
        }
        guard node.knowsValues(of: maxOutput) else {
            node.markOutputsDynamic()
            return
        }
        let count = try outputCount(node)
        try node.setOutput(0, type: .int32, shape: [count])
        if soft { try node.setOutput(1, type: .float32, shape: [count]) }
        try node.setOutput(soft ? 2 : 1, type: .int32, shape: [])
    }

    private func outputCount(_ node: Node) throws -> Int {
        let values = try node.elementwiseBuffer(try node.input(2), Int32.self, role: "max_output_size")
        guard values[0] >= 0 else { throw node.error("max_output_size \(values[0]) is negative") }
        return Int(values[0])
    }

    private func scalar(_ node: Node, _ i: Int, _ role: String) throws -> Float {
        try node.elementwiseBuffer(try node.input(i), Float.self, role: role)[0]
    }

    private struct Candidate {
        var index: Int
        var score: Float
        var suppressBegin: Int
    }

    func eval(_ node: Node) throws {
        let boxes = try node.elementwiseBuffer(try node.input(0), Float.self, role: "boxes")
        let scores = try node.elementwiseBuffer(try node.input(1), Float.self, role: "scores")
        let maxOutput = try outputCount(node)
        let iouThreshold = try scalar(node, 3, "iou_threshold")
        let scoreThreshold = try scalar(node, 4, "score_threshold")
        let sigma = soft ? try scalar(node, 5, "soft_nms_sigma") : 0
        guard iouThreshold >= 0, iouThreshold <= 1 else {
            throw node.error("iou_threshold \(iouThreshold) is outside [0, 1]")
        }
        guard sigma >= 0 else { throw node.error("soft_nms_sigma \(sigma) is negative") }
        let indices = try node.elementwiseBuffer(try node.output(0), Int32.self, role: "selected indices")
        let selectedScores =
            soft ? try node.elementwiseBuffer(try node.output(1), Float.self, role: "selected scores") : nil
        let valid = try node.elementwiseBuffer(try node.output(soft ? 2 : 1), Int32.self, role: "valid outputs")
        guard indices.count == maxOutput, selectedScores.map({ $0.count == maxOutput }) ?? true, valid.count == 1 else {
            throw node.error("outputs are not sized for max_output_size \(maxOutput)")
        }
        for i in indices.indices { indices[i] = 0 }
        if let s = selectedScores { for i in s.indices { s[i] = 0 } }

        var heap = [Candidate]()
        for i in 0..<scores.count where scores[i] > scoreThreshold {
            heap.append(Candidate(index: i, score: scores[i], suppressBegin: 0))
            Self.siftUp(&heap, hole: heap.count - 1, top: 0, value: heap[heap.count - 1])
        }
        let outputs = min(heap.count, maxOutput)
        let scale: Float = sigma > 0 ? -0.5 / sigma : 0
        var selected = 0
        while selected < outputs, !heap.isEmpty {
            var candidate = Self.pop(&heap)
            let original = candidate.score
            var hardSuppress = false
            var j = selected - 1
            while j >= candidate.suppressBegin {
                let iou = Self.iou(boxes, candidate.index, Int(indices[j]))
                if iou >= iouThreshold {
                    hardSuppress = true
                    break
                }
                if sigma > 0 { candidate.score = candidate.score * Foundation.exp(scale * iou * iou) }
                if candidate.score <= scoreThreshold { break }
                j -= 1
            }
            candidate.suppressBegin = selected
            if !hardSuppress {
                if candidate.score == original {
                    indices[selected] = Int32(candidate.index)
                    selectedScores?[selected] = candidate.score
                    selected += 1
                }
                if candidate.score > scoreThreshold {
                    heap.append(candidate)
                    Self.siftUp(&heap, hole: heap.count - 1, top: 0, value: candidate)
                }
            }
        }
        valid[0] = Int32(selected)
    }

    private static func iou(_ boxes: UnsafeMutableBufferPointer<Float>, _ i: Int, _ j: Int) -> Float {
        let a = 4 * i
        let b = 4 * j
        let ay0 = min(boxes[a], boxes[a + 2])
        let ay1 = max(boxes[a], boxes[a + 2])
        let ax0 = min(boxes[a + 1], boxes[a + 3])
        let ax1 = max(boxes[a + 1], boxes[a + 3])
        let by0 = min(boxes[b], boxes[b + 2])
        let by1 = max(boxes[b], boxes[b + 2])
        let bx0 = min(boxes[b + 1], boxes[b + 3])
        let bx1 = max(boxes[b + 1], boxes[b + 3])
        let areaA = (ay1 - ay0) * (ax1 - ax0)
        let areaB = (by1 - by0) * (bx1 - bx0)
        if areaA <= 0 || areaB <= 0 { return 0 }
        let intersection = max(min(ay1, by1) - max(ay0, by0), 0) * max(min(ax1, bx1) - max(ax0, bx0), 0)
        let union = areaA + areaB - intersection
        return union == 0 ? 0 : intersection / union
    }

    /// libstdc++'s `__push_heap`: moves `value` up from `hole` while its parent scores lower.
    private static func siftUp(_ heap: inout [Candidate], hole start: Int, top: Int, value: Candidate) {
        var hole = start
        var parent = (hole - 1) / 2
        while hole > top, heap[parent].score < value.score {
            heap[hole] = heap[parent]
            hole = parent
            parent = (hole - 1) / 2
        }
        heap[hole] = value
    }

    /// libstdc++'s `pop_heap` + `pop_back`: the top leaves, the last element re-enters through
    /// `__adjust_heap` (hole walked down to a leaf along the larger child, then sifted up).
    private static func pop(_ heap: inout [Candidate]) -> Candidate {
        let top = heap[0]
        let last = heap.removeLast()
        let length = heap.count
        guard length > 0 else { return top }
        var hole = 0
        var child = 0
        while child < (length - 1) / 2 {
            child = 2 * (child + 1)
            if heap[child].score < heap[child - 1].score { child -= 1 }
            heap[hole] = heap[child]
            hole = child
        }
        if length & 1 == 0, child == (length - 2) / 2 {
            child = 2 * (child + 1)
            heap[hole] = heap[child - 1]
            hole = child - 1
        }
        siftUp(&heap, hole: hole, top: 0, value: last)
        return top
    }
}

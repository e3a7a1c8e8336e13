import Foundation

/// Options of `TFLite_Detection_PostProcess`, read from the node's FlexBuffer map.
struct DetectionOptions: Equatable {
    var maxDetections: Int
    var maxClassesPerDetection: Int
    /// Regular NMS only; 100 when the map has no such key.
    var detectionsPerClass: Int
    var useRegularNMS: Bool
    var scoreThreshold: Float
    var iouThreshold: Float
    var numClasses: Int
    /// Box decoding scales: y, x, h, w.
    var yScale: Float, xScale: Float, hScale: Float, wScale: Float

    static let defaultDetectionsPerClass = 100

    /// Reads the options the way LiteRT's `Init` does (absent keys read as 0 / false).
    init(flexBuffer bytes: UnsafeRawBufferPointer, what: String) throws {
        let map = try FlexBuffer(bytes: bytes, what: what).root()
        guard map.type == .map else {
            throw FlexBufferError.invalid(what: "\(what) root", offset: map.position, detail: "expected a map, found \(map.type)")
        }
        func int(_ key: String) throws -> Int { Int(try map.lookup(key).asInt32()) }
        func float(_ key: String) throws -> Float { try map.lookup(key).asFloat() }
        maxDetections = try int("max_detections")
        maxClassesPerDetection = try int("max_classes_per_detection")
        let perClass = try map.lookup("detections_per_class")
        detectionsPerClass = perClass.isNull ? Self.defaultDetectionsPerClass : Int(try perClass.asInt32())
        let regular = try map.lookup("use_regular_nms")
        useRegularNMS = regular.isNull ? false : try regular.asBool()
        scoreThreshold = try float("nms_score_threshold")
        iouThreshold = try float("nms_iou_threshold")
        numClasses = try int("num_classes")
        yScale = try float("y_scale")
        xScale = try float("x_scale")
        hScale = try float("h_scale")
        wScale = try float("w_scale")
    }

    init(
        maxDetections: Int, maxClassesPerDetection: Int = 1, detectionsPerClass: Int = 100, useRegularNMS: Bool = false,
        scoreThreshold: Float, iouThreshold: Float, numClasses: Int, yScale: Float = 10, xScale: Float = 10,
        hScale: Float = 5, wScale: Float = 5
    ) {
        self.maxDetections = maxDetections
        self.maxClassesPerDetection = maxClassesPerDetection
        self.detectionsPerClass = detectionsPerClass
        self.useRegularNMS = useRegularNMS
        self.scoreThreshold = scoreThreshold
        self.iouThreshold = iouThreshold
        self.numClasses = numClasses
        self.yScale = yScale
        self.xScale = xScale
        self.hScale = hScale
        self.wScale = wScale
    }
}

/// The arithmetic of `TFLite_Detection_PostProcess`, following LiteRT's kernel step by step so the
/// results (including the order of tied scores) are identical.
enum DetectionPostProcess {
    struct Failure: Error { let message: String }

    /// Decodes center-size encodings (y, x, h, w per box; `stride` values per box) against anchors
    /// (y, x, h, w) into corners (ymin, xmin, ymax, xmax), in double precision as LiteRT does; in
    /// ranges of boxes over up to `threads` threads (each box is decoded alone, so the split does not
    /// change any value).
    static func decode(
        encodings: UnsafeBufferPointer<Float>, stride: Int, anchors: UnsafeBufferPointer<Float>, count: Int,
        options o: DetectionOptions, threads: Int = 1
    ) -> [Float] {
        var boxes = [Float](repeating: 0, count: count * 4)
        boxes.withUnsafeMutableBufferPointer { boxes in
            decode(encodings: encodings, stride: stride, anchors: anchors, count: count, options: o, threads: threads, into: boxes)
        }
        return boxes
    }

    /// `decode` into `boxes` (at least `count * 4` values).
    static func decode(
        encodings: UnsafeBufferPointer<Float>, stride: Int, anchors: UnsafeBufferPointer<Float>, count: Int,
        options o: DetectionOptions, threads: Int, into output: UnsafeMutableBufferPointer<Float>
    ) {
        precondition(output.count >= count * 4, "decode: output too small")
        guard let boxes = output.baseAddress else { return }
        let ys = Double(o.yScale), xs = Double(o.xScale), hs = Double(o.hScale), ws = Double(o.wScale)
        parallelFor(count, threads: threads, minimumPerThread: DetectionPostProcessKernel.minimumBoxesPerThread) { range in
            for i in range {
                let e = i * stride, a = i * 4
                let y = Double(encodings[e]), x = Double(encodings[e + 1])
                let h = Double(encodings[e + 2]), w = Double(encodings[e + 3])
                let ay = Double(anchors[a]), ax = Double(anchors[a + 1])
                let ah = Double(anchors[a + 2]), aw = Double(anchors[a + 3])
                let yc = Float(y / ys * ah + ay)
                let xc = Float(x / xs * aw + ax)
                let hh = Float(0.5 * exp(h / hs) * ah)
                let hw = Float(0.5 * exp(w / ws) * aw)
                boxes[4 * i] = yc - hh
                boxes[4 * i + 1] = xc - hw
                boxes[4 * i + 2] = yc + hh
                boxes[4 * i + 3] = xc + hw
            }
        }
    }

    /// Intersection over union of boxes `i` and `j` (0 when either has no area).
    static func iou(_ boxes: [Float], _ i: Int, _ j: Int) -> Float {
        let bi = 4 * i, bj = 4 * j
        let areaI = (boxes[bi + 2] - boxes[bi]) * (boxes[bi + 3] - boxes[bi + 1])
        let areaJ = (boxes[bj + 2] - boxes[bj]) * (boxes[bj + 3] - boxes[bj + 1])
        if areaI <= 0 || areaJ <= 0 { return 0 }
        let ymin = max(boxes[bi], boxes[bj])
        let xmin = max(boxes[bi + 1], boxes[bj + 1])
        let ymax = min(boxes[bi + 2], boxes[bj + 2])
        let xmax = min(boxes[bi + 3], boxes[bj + 3])
        let inter = max(ymax - ymin, 0) * max(xmax - xmin, 0)
        return inter / (areaI + areaJ - inter)
    }

    /// Throws unless every box has ymin <= ymax and xmin <= xmax (LiteRT's `ValidateBoxes`).
    static func validate(_ boxes: [Float]) throws {
        for i in 0..<(boxes.count / 4) where boxes[4 * i] > boxes[4 * i + 2] || boxes[4 * i + 1] > boxes[4 * i + 3] {
            throw Failure(message: "decoded box \(i) has min > max (invalid encodings or anchors)")
        }
    }

    /// Greedy NMS on one score per box: boxes scoring at least the threshold, in decreasing score
    /// (stable: ties keep box order), each suppressing later boxes with IoU above the threshold.
    static func nmsSingleClass(
        scores: [Float], boxes: [Float], scoreThreshold: Float, iouThreshold: Float, maxDetections: Int
    ) -> [Int] {
        GreedyNMS.select(
            scores: scores, boxes: boxes, scoreThreshold: scoreThreshold, iouThreshold: iouThreshold,
            maxDetections: maxDetections)
    }

    /// The first `k` indices of `values` in decreasing order, as LiteRT's `DecreasingPartialArgSort`:
    /// the first maximum for k == 1, otherwise libstdc++'s `std::partial_sort` (heap select + heap
    /// sort), reproduced so that ties come out in the same order.
    static func decreasingPartialArgSort(_ values: UnsafeBufferPointer<Float>, k: Int) -> [Int] {
        let n = values.count
        if k == 1 {
            var best = 0
            for i in 1..<max(n, 1) where values[i] > values[best] { best = i }
            return [best]
        }
        var idx = Array(0..<n)
        let k = min(k, n)
        let comp: (Int, Int) -> Bool = { values[$0] > values[$1] }
        func pushHeap(_ hole: Int, _ top: Int, _ value: Int) {
            var hole = hole
            var parent = (hole - 1) / 2
            while hole > top && comp(idx[parent], value) {
                idx[hole] = idx[parent]
                hole = parent
                parent = (hole - 1) / 2
            }
            idx[hole] = value
        }
        func adjustHeap(_ start: Int, _ len: Int, _ value: Int) {
            var hole = start
            let top = start
            var second = start
            while second < (len - 1) / 2 {
                second = 2 * (second + 1)
                if comp(idx[second], idx[second - 1]) { second -= 1 }
                idx[hole] = idx[second]
                hole = second
            }
            if len & 1 == 0 && second == (len - 2) / 2 {
                second = 2 * (second + 1)
                idx[hole] = idx[second - 1]
                hole = second - 1
            }
            pushHeap(hole, top, value)
        }
        func popHeap(_ len: Int, _ result: Int) {
            let value = idx[result]
            idx[result] = idx[0]
            adjustHeap(0, len, value)
        }
        // make_heap on [0, k)
        if k >= 2 {
            var parent = (k - 2) / 2
            while true {
                adjustHeap(parent, k, idx[parent])
                if parent == 0 { break }
                parent -= 1
            }
        }
        var i = k
        while i < n {
            if comp(idx[i], idx[0]) { popHeap(k, i) }
            i += 1
        }
        var last = k
        while last > 1 {
            last -= 1
            popHeap(last, last)
        }
        return Array(idx[0..<k])
    }

    struct Detections {
        var boxes: [Float]
        var classes: [Float]
        var scores: [Float]
        var count: Int
    }

    /// Fast NMS: each box competes with its best class score; its top classes are reported.
    /// Slots past the detections are zero (LiteRT leaves them untouched). `firstMaxima`, when given
    /// (one class per box), holds each box's first best class, which `decreasingPartialArgSort` would find.
    static func fastNMS(
        scores: UnsafeBufferPointer<Float>, classesWithBackground: Int, boxes: [Float], options o: DetectionOptions,
        firstMaxima: [Int]? = nil, threads: Int = 1
    ) throws -> Detections {
        let numBoxes = boxes.count / 4
        let labelOffset = classesWithBackground - o.numClasses
        let perAnchor = min(o.maxClassesPerDetection, o.numClasses)
        let maxima = perAnchor == 1 && firstMaxima?.count == numBoxes ? firstMaxima : nil
        var maxScores = [Float](repeating: 0, count: numBoxes)
        var classIndices = [Int](repeating: 0, count: numBoxes * perAnchor)
        // Each box's best classes and score, boxes in ranges over threads (each row stands alone).
        maxScores.withUnsafeMutableBufferPointer { maxScores in
            classIndices.withUnsafeMutableBufferPointer { classIndices in
                guard let best = maxScores.baseAddress, let classes = classIndices.baseAddress else { return }
                parallelFor(numBoxes, threads: threads, minimumPerThread: DetectionPostProcessKernel.minimumBoxesPerThread) {
                    range in
                    for row in range {
                        let start = row * classesWithBackground + labelOffset
                        if let maxima {
                            classes[row] = maxima[row]
                            best[row] = scores[start + maxima[row]]
                            continue
                        }
                        let rowScores = UnsafeBufferPointer(rebasing: scores[start..<(start + o.numClasses)])
                        let sorted = decreasingPartialArgSort(rowScores, k: perAnchor)
                        for c in 0..<perAnchor { classes[row * perAnchor + c] = sorted[c] }
                        best[row] = rowScores[sorted[0]]
                    }
                }
            }
        }
        let selected = nmsSingleClass(
            scores: maxScores, boxes: boxes, scoreThreshold: o.scoreThreshold, iouThreshold: o.iouThreshold,
            maxDetections: o.maxDetections)
        let slots = o.maxDetections * o.maxClassesPerDetection
        var out = Detections(
            boxes: [Float](repeating: 0, count: slots * 4), classes: [Float](repeating: 0, count: slots),
            scores: [Float](repeating: 0, count: slots), count: selected.count)
        for (n, box) in selected.enumerated() {
            let start = box * classesWithBackground + labelOffset
            for c in 0..<perAnchor {
                let slot = o.maxClassesPerDetection * n + c
                let cls = classIndices[box * perAnchor + c]
                for k in 0..<4 { out.boxes[4 * slot + k] = boxes[4 * box + k] }
                out.classes[slot] = Float(cls)
                out.scores[slot] = scores[start + cls]
            }
        }
        return out
    }

    /// Regular NMS: NMS per class, then the best `max_detections` across classes, merged class by
    /// class as LiteRT's single-threaded path does (on equal scores the earlier class comes first).
    static func regularNMS(
        scores: UnsafeBufferPointer<Float>, classesWithBackground: Int, boxes: [Float], options o: DetectionOptions
    ) throws -> Detections {
        let numBoxes = boxes.count / 4
        let labelOffset = classesWithBackground - o.numClasses
        let perClass = min(o.detectionsPerClass, o.maxDetections)
        guard perClass > 0 else { throw Failure(message: "detections per class must be positive") }
        var merged: [(index: Int, score: Float)] = []
        var classScores = [Float](repeating: 0, count: numBoxes)
        for col in 0..<o.numClasses {
            for row in 0..<numBoxes { classScores[row] = scores[row * classesWithBackground + col + labelOffset] }
            let selected = nmsSingleClass(
                scores: classScores, boxes: boxes, scoreThreshold: o.scoreThreshold, iouThreshold: o.iouThreshold,
                maxDetections: perClass)
            if selected.isEmpty { continue }
            let fresh = selected.map { (index: $0 * classesWithBackground + col + labelOffset, score: classScores[$0]) }
            // Merge the new class's run into the kept list; on equal scores the earlier class stays
            // first (checked against LiteRT 2.21 on real models with regular NMS).
            var result: [(index: Int, score: Float)] = []
            result.reserveCapacity(merged.count + fresh.count)
            var a = 0, b = 0
            while a < merged.count && b < fresh.count {
                if fresh[b].score > merged[a].score {
                    result.append(fresh[b]); b += 1
                } else {
                    result.append(merged[a]); a += 1
                }
            }
            result.append(contentsOf: merged[a...])
            result.append(contentsOf: fresh[b...])
            merged = Array(result.prefix(o.maxDetections))
        }
        let slots = o.maxDetections
        var out = Detections(
            boxes: [Float](repeating: 0, count: slots * 4), classes: [Float](repeating: 0, count: slots),
            scores: [Float](repeating: 0, count: slots), count: merged.count)
        for (n, entry) in merged.enumerated() {
            let anchor = entry.index / classesWithBackground
            let cls = entry.index - anchor * classesWithBackground - labelOffset
            for k in 0..<4 { out.boxes[4 * n + k] = boxes[4 * anchor + k] }
            out.classes[n] = Float(cls)
            out.scores[n] = entry.score
        }
        return out
    }
}

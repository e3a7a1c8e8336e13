/// `TFLite_Detection_PostProcess`: decodes SSD box encodings against anchors and runs non-max
/// suppression, writing boxes [1, M, 4] (ymin, xmin, ymax, xmax), classes [1, M], scores [1, M] and
/// the detection count [1], all float32, with M = max_detections × max_classes_per_detection.
///
/// Inputs are box encodings [1, N, ≥4], class scores [1, N, C or C+1 with background] and anchors
/// [N, 4], float32 or uint8 (int8 is accepted too and dequantized the same way).
final class DetectionPostProcessKernel: OpKernel {
    let options: DetectionOptions
    /// The inputs as floats, the decoded boxes and each box's best class, kept from one invoke to the
    /// next: fresh arrays of these sizes (up to megabytes) came back from the system zeroed on every
    /// invoke, and the page faults cost as much as the work.
    private var encodingValues = [Float](), anchorValues = [Float](), scoreValues = [Float]()
    private var decodedBoxes = [Float](), bestClasses = [Int]()

    init(_ node: Node) throws {
        do {
            options = try DetectionOptions(flexBuffer: node.customOptions, what: "node \(node.index) custom options")
        } catch let e as FlexBufferError {
            throw node.error("cannot read options: \(e)")
        }
        let o = options
        guard o.maxDetections >= 0 else { throw node.error("max_detections \(o.maxDetections) is negative") }
        guard o.maxClassesPerDetection > 0 else {
            throw node.error("max_classes_per_detection must be positive, is \(o.maxClassesPerDetection)")
        }
        guard o.numClasses > 0 else { throw node.error("num_classes must be positive, is \(o.numClasses)") }
        guard o.iouThreshold > 0, o.iouThreshold <= 1 else {
            throw node.error("nms_iou_threshold \(o.iouThreshold) must be in (0, 1]")
        }
        if o.useRegularNMS {
            guard min(o.detectionsPerClass, o.maxDetections) > 0 || o.maxDetections == 0 else {
                throw node.error("detections_per_class must be positive, is \(o.detectionsPerClass)")
            }
        }
    }

    private var slotCount: Int {
        let (m, overflow) = options.maxDetections.multipliedReportingOverflow(by: options.maxClassesPerDetection)
        return overflow ? -1 : m
    }

    func prepare(_ node: Node) throws {
        try node.expect(inputs: 3, outputs: 4)
        let boxes = try node.input(0), scores = try node.input(1), anchors = try node.input(2)
        guard boxes.rank == 3 else { throw node.error("box encodings must have rank 3, have shape \(boxes.shape)") }
        guard scores.rank == 3 else { throw node.error("class predictions must have rank 3, have shape \(scores.shape)") }
        guard anchors.rank == 2 else { throw node.error("anchors must have rank 2, have shape \(anchors.shape)") }
        let m = slotCount
        guard m >= 0, m <= Model.maxTensorBytes / 16 else { throw node.error("max_detections × max_classes_per_detection is too large") }
        try node.setOutput(0, type: .float32, shape: [1, m, 4])
        try node.setOutput(1, type: .float32, shape: [1, m])
        try node.setOutput(2, type: .float32, shape: [1, m])
        try node.setOutput(3, type: .float32, shape: [1])
    }

    /// Boxes per thread below which the per-box passes (dequantizing, decoding, finding each box's
    /// best class) stay on one thread: an SSD head has 2,000 to 65,000 boxes, a pass a few µs per 1,000.
    static let minimumBoxesPerThread = 2048

    /// Values of a float or 8-bit quantized tensor as floats, `(q - zero_point) * scale` in float,
    /// into `values`.
    private static func dequantize(_ t: RuntimeTensor, into values: inout [Float], role: String, _ node: Node) throws {
        // Values per box of this tensor, so the split is by boxes as in the other passes.
        let perBox = t.rank > 0 ? max(1, t.dim(t.rank - 1)) : 1
        let threads = node.threadCount
        switch t.type {
        case .float32:
            let floats = t.floats
            resize(&values, floats.count)
            for i in 0..<floats.count { values[i] = floats[i] }
        case .uint8:
            dequantize(UnsafeBufferPointer(t.buffer(UInt8.self)), zeroPoint: Float(t.zeroPoint), scale: t.scale, perBox: perBox, threads: threads, into: &values)
        case .int8:
            dequantize(UnsafeBufferPointer(t.buffer(Int8.self)), zeroPoint: Float(t.zeroPoint), scale: t.scale, perBox: perBox, threads: threads, into: &values)
        default:
            throw node.error("\(role) has type \(t.type.name); supported: float32, uint8, int8")
        }
    }

    /// `(q - zero_point) * scale` in float for every value (a plain loop: `map` with a closure did not
    /// vectorize and took a quarter of an SSD head's time), in ranges over threads.
    private static func dequantize<T: FixedWidthInteger>(
        _ q: UnsafeBufferPointer<T>, zeroPoint zp: Float, scale s: Float, perBox: Int, threads: Int,
        into values: inout [Float]
    ) {
        resize(&values, q.count)
        values.withUnsafeMutableBufferPointer { out in
            if let base = out.baseAddress, let input = q.baseAddress {
                parallelFor(q.count, threads: threads, minimumPerThread: minimumBoxesPerThread * perBox) { range in
                    for i in range { base[i] = (Float(input[i]) - zp) * s }
                }
            }
        }
    }

    /// Makes `values` hold `count` elements, reallocating only when the count changes.
    private static func resize<T: Numeric>(_ values: inout [T], _ count: Int) {
        if values.count != count { values = [T](repeating: 0, count: count) }
    }

    /// For fast NMS with one class per box: each box's first best class, found on the stored 8-bit
    /// scores and written to `bestClasses` (false for other types or when dequantization does not keep
    /// distinct bytes apart, where the float scores decide). `(q − zp)·s` with `s > 0` orders the bytes
    /// as their values, so the first largest byte is the first largest score.
    private func findFirstMaxima(_ t: RuntimeTensor, boxes: Int, classesWithBackground: Int, threads: Int) -> Bool {
        switch t.type {
        case .uint8: return Self.firstMaxima(UnsafeBufferPointer(t.buffer(UInt8.self)), t, boxes: boxes, classes: options.numClasses, classesWithBackground: classesWithBackground, threads: threads, into: &bestClasses)
        case .int8: return Self.firstMaxima(UnsafeBufferPointer(t.buffer(Int8.self)), t, boxes: boxes, classes: options.numClasses, classesWithBackground: classesWithBackground, threads: threads, into: &bestClasses)
        default: return false
        }
    }

    private static func firstMaxima<T: FixedWidthInteger>(
        _ q: UnsafeBufferPointer<T>, _ t: RuntimeTensor, boxes: Int, classes: Int, classesWithBackground: Int,
        threads: Int, into best: inout [Int]
    ) -> Bool {
        let zp = Float(t.zeroPoint), s = t.scale
        var previous = -Float.infinity
        for v in Int(T.min)...Int(T.max) {
            let f = (Float(v) - zp) * s
            guard f > previous else { return false }
            previous = f
        }
        let offset = classesWithBackground - classes
        guard classes > 0, q.count >= boxes * classesWithBackground else { return false }
        resize(&best, boxes)
        best.withUnsafeMutableBufferPointer { out in
            if let base = out.baseAddress {
                parallelFor(boxes, threads: threads, minimumPerThread: minimumBoxesPerThread) { range in
                    for row in range {
                        let start = row * classesWithBackground + offset
                        var best = T.min
                        for c in start..<(start + classes) { best = max(best, q[c]) }
                        var first = start
                        while q[first] != best { first += 1 }
                        base[row] = first - start
                    }
                }
            }
        }
        return true
    }

    func eval(_ node: Node) throws {
        let boxesT = try node.input(0), scoresT = try node.input(1), anchorsT = try node.input(2)
        let o = options
        guard boxesT.dim(0) == 1 else { throw node.error("box encodings batch must be 1, is \(boxesT.dim(0))") }
        let n = boxesT.dim(1), stride = boxesT.dim(2)
        guard stride >= 4 else { throw node.error("box encodings need at least 4 values per box, have \(stride)") }
        guard anchorsT.dim(0) >= n, anchorsT.dim(1) == 4 else {
            throw node.error("anchors shape \(anchorsT.shape) does not match \(n) boxes")
        }
        if boxesT.type != .float32 {
            guard anchorsT.type == boxesT.type else {
                throw node.error("anchors must be \(boxesT.type.name) like the quantized box encodings, are \(anchorsT.type.name)")
            }
        } else {
            try node.expect(anchorsT, type: .float32, role: "anchors")
        }
        guard scoresT.dim(0) == 1, scoresT.dim(1) == n else {
            throw node.error("class predictions shape \(scoresT.shape) does not match \(n) boxes")
        }
        let classesWithBackground = scoresT.dim(2)
        guard classesWithBackground - o.numClasses <= 1, classesWithBackground >= o.numClasses else {
            throw node.error("class predictions have \(classesWithBackground) classes for num_classes \(o.numClasses)")
        }
        try Self.dequantize(boxesT, into: &encodingValues, role: "box encodings", node)
        try Self.dequantize(anchorsT, into: &anchorValues, role: "anchors", node)
        try Self.dequantize(scoresT, into: &scoreValues, role: "class predictions", node)
        guard encodingValues.count == n * stride, anchorValues.count >= n * 4,
            scoreValues.count == n * classesWithBackground
        else {
            throw node.error("input tensors have no data")
        }
        Self.resize(&decodedBoxes, n * 4)
        encodingValues.withUnsafeBufferPointer { e in
            anchorValues.withUnsafeBufferPointer { a in
                decodedBoxes.withUnsafeMutableBufferPointer { boxes in
                    DetectionPostProcess.decode(
                        encodings: e, stride: stride, anchors: a, count: n, options: o, threads: node.threadCount,
                        into: boxes)
                }
            }
        }
        let oneClass = min(o.maxClassesPerDetection, o.numClasses) == 1 && !o.useRegularNMS
        let maxima = oneClass
            && findFirstMaxima(scoresT, boxes: n, classesWithBackground: classesWithBackground, threads: node.threadCount)
        let result: DetectionPostProcess.Detections
        do {
            try DetectionPostProcess.validate(decodedBoxes)
            result = try scoreValues.withUnsafeBufferPointer { s in
                o.useRegularNMS
                    ? try DetectionPostProcess.regularNMS(
                        scores: s, classesWithBackground: classesWithBackground, boxes: decodedBoxes, options: o)
                    : try DetectionPostProcess.fastNMS(
                        scores: s, classesWithBackground: classesWithBackground, boxes: decodedBoxes, options: o,
                        firstMaxima: maxima ? bestClasses : nil, threads: node.threadCount)
            }
        } catch let f as DetectionPostProcess.Failure {
            throw node.error(f.message)
        }
        try write(result.boxes, to: node.output(0), node)
        try write(result.classes, to: node.output(1), node)
        try write(result.scores, to: node.output(2), node)
        try write([Float(result.count)], to: node.output(3), node)
    }

    private func write(_ values: [Float], to t: RuntimeTensor, _ node: Node) throws {
        let out = t.floats
        guard out.count >= values.count else { throw node.error("output tensor \(t.index) is too small") }
        for (i, v) in values.enumerated() { out[i] = v }
    }
}

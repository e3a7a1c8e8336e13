import Foundation
import Testing

@testable import TFLiteRuntime

/// TFLite_Detection_PostProcess: decoding, NMS hand cases, and options read from a real model.
struct DetectionPostProcessTests {
    private func decode(_ enc: [Float], _ anchors: [Float], _ o: DetectionOptions) -> [Float] {
        enc.withUnsafeBufferPointer { e in
            anchors.withUnsafeBufferPointer { a in
                DetectionPostProcess.decode(encodings: e, stride: 4, anchors: a, count: anchors.count / 4, options: o)
            }
        }
    }

    private let options = DetectionOptions(maxDetections: 3, scoreThreshold: 0.5, iouThreshold: 0.5, numClasses: 2)

    @Test func decodingAppliesAnchorsAndScales() {
        // Zero encodings give the anchor itself; y/x move by anchor size / scale; h/w scale by exp(v / scale).
        let boxes = decode([0, 0, 0, 0, 10, -10, 5 * Float(log(2.0)), 0], [0.5, 0.5, 1, 1, 0.5, 0.5, 0.2, 0.4], options)
        #expect(boxes[0..<4] == [0, 0, 1, 1])
        #expect(abs(boxes[4] - (0.7 - 0.2)) < 1e-6)
        #expect(abs(boxes[5] - (0.1 - 0.2)) < 1e-6)
        #expect(abs(boxes[6] - (0.7 + 0.2)) < 1e-6)
        #expect(abs(boxes[7] - (0.1 + 0.2)) < 1e-6)
    }

    @Test func iouOfOverlappingDisjointAndDegenerateBoxes() {
        let boxes: [Float] = [0, 0, 1, 1, 0, 0.5, 1, 1.5, 2, 2, 3, 3, 0, 0, 0, 1]
        #expect(DetectionPostProcess.iou(boxes, 0, 1) == Float(0.5) / Float(1.5))
        #expect(DetectionPostProcess.iou(boxes, 0, 2) == 0)
        #expect(DetectionPostProcess.iou(boxes, 0, 3) == 0)
    }

    /// Four boxes: 0 and 1 overlap heavily, 2 is apart, 3 is below the score threshold.
    private let boxes: [Float] = [0, 0, 1, 1, 0, 0.1, 1, 1.1, 2, 2, 3, 3, 4, 4, 5, 5]

    @Test func singleClassNMSSuppressesOverlapsAndThresholds() {
        let sel = DetectionPostProcess.nmsSingleClass(
            scores: [0.9, 0.95, 0.6, 0.4], boxes: boxes, scoreThreshold: 0.5, iouThreshold: 0.5, maxDetections: 10)
        #expect(sel == [1, 2])
        // Equal scores keep box order (stable sort).
        let tie = DetectionPostProcess.nmsSingleClass(
            scores: [0.7, 0.7, 0.7, 0.7], boxes: boxes, scoreThreshold: 0.5, iouThreshold: 0.5, maxDetections: 10)
        #expect(tie == [0, 2, 3])
        let capped = DetectionPostProcess.nmsSingleClass(
            scores: [0.7, 0.7, 0.7, 0.7], boxes: boxes, scoreThreshold: 0.5, iouThreshold: 0.5, maxDetections: 1)
        #expect(capped == [0])
    }

    @Test func fastNMSWithBackgroundColumn() throws {
        // 3 columns: background + 2 classes.
        let scores: [Float] = [0.0, 0.9, 0.1, 0.0, 0.2, 0.95, 0.0, 0.6, 0.3, 0.0, 0.1, 0.4]
        let r = try scores.withUnsafeBufferPointer {
            try DetectionPostProcess.fastNMS(scores: $0, classesWithBackground: 3, boxes: boxes, options: options)
        }
        #expect(r.count == 2)
        #expect(r.classes == [1, 0, 0])
        #expect(r.scores == [0.95, 0.6, 0])
        #expect(Array(r.boxes[0..<4]) == [0, 0.1, 1, 1.1])
        #expect(Array(r.boxes[8..<12]) == [0, 0, 0, 0])
    }

    @Test func regularNMSRunsPerClassAndKeepsEarlierClassFirstOnTies() throws {
        var o = options
        o.useRegularNMS = true
        o.maxDetections = 4
        // No background; class 0 and class 1 both score box 2 at 0.8.
        let scores: [Float] = [0.9, 0.1, 0.85, 0.7, 0.8, 0.8, 0.1, 0.1]
        let r = try scores.withUnsafeBufferPointer {
            try DetectionPostProcess.regularNMS(scores: $0, classesWithBackground: 2, boxes: boxes, options: o)
        }
        #expect(r.count == 4)
        #expect(r.scores == [0.9, 0.8, 0.8, 0.7])
        #expect(r.classes == [0, 0, 1, 1])
        #expect(Array(r.boxes[4..<8]) == [2, 2, 3, 3])
    }

    @Test func partialArgSortMatchesAFullSortOnDistinctValuesAndTakesTheFirstMax() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<50 {
            let values = (0..<37).map { _ in Float(Int.random(in: 0..<1000, using: &rng)) + Float(Int.random(in: 0..<1000, using: &rng)) / 1000 }
            for k in [2, 3, 5, 37] {
                let got = values.withUnsafeBufferPointer { DetectionPostProcess.decreasingPartialArgSort($0, k: k) }
                let want = Array(values.indices.sorted { values[$0] > values[$1] }.prefix(k))
                #expect(got.map { values[$0] } == want.map { values[$0] })
            }
        }
        let ties: [Float] = [1, 3, 3, 2]
        #expect(ties.withUnsafeBufferPointer { DetectionPostProcess.decreasingPartialArgSort($0, k: 1) } == [1])
    }

    @Test func invalidBoxesAreRejected() {
        #expect(throws: DetectionPostProcess.Failure.self) { try DetectionPostProcess.validate([0, 0, -1, 1]) }
    }

    @Test(.enabled(if: TestPaths.hasSharedModels, "needs ../shared/models beside the checkout"))
    func optionsFromRealModels() throws {
        let expected: [(String, Int, Float)] = [
            ("ssd_mobilenet_v1_coco_postprocess_head_layers.tflite", 20, 0.3),
            ("coco_ssd_mobilenet_v1_detect.tflite", 10, Float(1e-8)),
            ("automl_od_salad_320.tflite", 40, Float(1e-8)),
        ]
        for (name, maxDetections, threshold) in expected {
            let model = try Model(path: TestPaths.sharedModel(name))
            let op = try #require(
                model.subgraphs[0].operators.first {
                    model.operatorCodes[$0.opcodeIndex].customCode == "TFLite_Detection_PostProcess"
                })
            let o = try DetectionOptions(flexBuffer: model.customOptions(of: op), what: name)
            #expect(o.maxDetections == maxDetections)
            #expect(o.scoreThreshold == threshold)
            #expect(o.maxClassesPerDetection == 1)
            #expect(o.iouThreshold == Float(0.6))
            #expect(o.yScale == 10 && o.xScale == 10 && o.hScale == 5 && o.wScale == 5)
            #expect(o.detectionsPerClass == 100)
            #expect(!o.useRegularNMS)
        }
        let coco = try Model(path: TestPaths.sharedModel("coco_ssd_mobilenet_v1_detect.tflite"))
        #expect(try coco.subgraphs[0].operators.contains { try OpRegistry.factory(for: coco.operatorCodes[$0.opcodeIndex]) != nil && coco.operatorCodes[$0.opcodeIndex].customCode != nil })
    }

    @Test func malformedOptionsAreANodeError() throws {
        let bytes: [UInt8] = [0x01, 0x24, 0x09]
        try bytes.withUnsafeBytes { raw in
            #expect(throws: (any Error).self) { try DetectionOptions(flexBuffer: raw, what: "bad") }
        }
    }
}

import Foundation
import Testing

@testable import TFLiteRuntime

/// ADD followed by a RELU that alone reads the sum runs as one pass (`ClampFusion`); the outputs must
/// keep the bits of the two nodes run apart, at every thread count.
@Suite struct ClampFusionTests {
    /// The MediaPipe short-range face detector: every residual block ends in ADD then RELU.
    static let model = TestPaths.sharedModel("mediapipe_face_detection_short_range_fp16.tflite")

    /// Every output's bytes after a plain (fused) invoke and after an invoke observing each node
    /// (which runs the pairs apart), for one seeded input.
    static func outputs(threads: Int) throws -> (fused: [Data], apart: [Data], fusedPairs: Int) {
        let interpreter = try Interpreter(modelPath: model, options: .init(threadCount: threads))
        try interpreter.allocateTensors()
        let input = try interpreter.input(at: 0)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let values = (0..<(input.data.count / 4)).map { _ -> Float in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int(state >> 40) % 2001 - 1000) / 1000
        }
        try interpreter.copy(values.withUnsafeBufferPointer { Data(buffer: $0) }, toInputAt: 0)
        let count = interpreter.outputTensorCount
        try interpreter.invoke()
        let fused = try (0..<count).map { try interpreter.output(at: $0).data }
        try interpreter.invoke { _ in }
        let apart = try (0..<count).map { try interpreter.output(at: $0).data }
        return (fused, apart, interpreter.executor.fusedNodeCount)
    }

    @Test(.enabled(if: TestPaths.hasSharedModels, "needs ../shared/models beside the checkout"))
    func addThenReluFusedKeepsTheBitsAtOneTwoAndThreeThreads() throws {
        let one = try Self.outputs(threads: 1)
        #expect(one.fusedPairs > 0, "the detector's ADD + RELU pairs are fused")
        #expect(one.fused == one.apart)
        for threads in [2, 3] {
            let run = try Self.outputs(threads: threads)
            #expect(run.fused == run.apart, "\(threads) threads: fused against apart")
            #expect(run.fused == one.fused, "\(threads) threads against 1")
        }
    }
}

import Foundation
import Testing

@testable import TFLiteRuntime

/// A VALID convolution window larger than its input, as LiteRT 2.3 decides it: CONV_2D refuses to
/// prepare when the output size comes out negative, and runs with an empty output when it truncates
/// to 0. Found on openWakeWord's melspectrogram (pyopen-wakeword 1.1.0), whose file declares a
/// placeholder input of 1 sample under a 512-tap filter: LiteRT refuses that shape, this runtime used
/// to clamp the size to 0 and run. The outcomes below are LiteRT's for the same fixture and shapes.
@Suite("Convolution window larger than the input")
struct ConvolutionWindowTests {
    /// CONV_2D float32, 3x3 filter with dilation 2 (5x5 effective), stride 1, VALID, input [1, 9, 9, 2].
    static let model = TestPaths.packageRoot.appendingPathComponent(
        "Tests/TFLiteRuntimeTests/Fixtures/single_ops/conv2d_float32_dilation2_valid/model.tflite")

    static func interpreter(input shape: [Int]) throws -> Interpreter {
        let interpreter = try Interpreter(modelPath: model.path)
        try interpreter.resizeInput(at: 0, to: Tensor.Shape(shape))
        return interpreter
    }

    @Test(
        "a negative output size is refused at allocation, naming the filter and the input",
        arguments: [
            [1, 3, 3, 2], [1, 1, 5, 2], [1, 5, 1, 2],
        ])
    func negativeSizeIsRefused(shape: [Int]) throws {
        let interpreter = try Self.interpreter(input: shape)
        let error = #expect(throws: (any Error).self) { try interpreter.allocateTensors() }
        #expect("\(error.map { "\($0)" } ?? "")".contains("does not fit"))
    }

    @Test("an output size that truncates to 0 runs with an empty output, as in LiteRT")
    func zeroSizeRunsEmpty() throws {
        let interpreter = try Self.interpreter(input: [1, 4, 4, 2])
        try interpreter.allocateTensors()
        #expect(try interpreter.output(at: 0).shape.dimensions == [1, 0, 0, 4])
        _ = try interpreter.copy(Data(count: 4 * 4 * 2 * 4), toInputAt: 0)
        try interpreter.invoke()
        #expect(try interpreter.output(at: 0).data.isEmpty)
    }

    @Test("the declared shape still runs")
    func declaredShapeRuns() throws {
        let interpreter = try Self.interpreter(input: [1, 9, 9, 2])
        try interpreter.allocateTensors()
        #expect(try interpreter.output(at: 0).shape.dimensions == [1, 5, 5, 4])
    }
}

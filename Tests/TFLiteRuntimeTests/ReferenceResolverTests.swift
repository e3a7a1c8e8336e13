import Foundation
import Testing

@testable import TFLiteRuntime
import NumPyFiles

/// The reference resolver (`OperatorResolver(kernels: .reference)`): the committed float fixtures
/// run through the plain scalar kernels and still match LiteRT within the float tolerance.
@Suite("Reference kernels")
struct ReferenceResolverTests {
    @Test("float fixtures match LiteRT through the reference kernels", arguments: [
        "conv2d", "conv2d_dilated", "depthwise_conv2d", "fully_connected", "pooling", "small_cnn", "mobilenet_v2",
    ])
    func referenceMatches(_ name: String) throws {
        let folder = TestPaths.opFixtures.appendingPathComponent(name)
        let interpreter = try Interpreter(
            modelPath: folder.appendingPathComponent("model.tflite").path, options: .init(threadCount: 2),
            resolver: OperatorResolver(kernels: .reference))
        var arrays = [NumPyArray]()
        for i in 0..<interpreter.inputTensorCount {
            let array = try NumPyArray(contentsOf: folder.appendingPathComponent("input_\(i).npy"))
            if try interpreter.input(at: i).shape.dimensions != array.shape {
                try interpreter.resizeInput(at: i, to: Tensor.Shape(array.shape))
            }
            arrays.append(array)
        }
        try interpreter.allocateTensors()
        #expect(interpreter.executor.kernelTypeNames.contains("ReferenceWindowKernel"), "\(name) used no reference kernel")
        for (i, a) in arrays.enumerated() { try interpreter.copy(a.data, toInputAt: i) }
        try interpreter.invoke()
        for o in 0..<interpreter.outputTensorCount {
            let expected = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(o).npy")).doubleValues()
            let actual = NumPyArray(try interpreter.output(at: o)).doubleValues()
            let scale = max(1, expected.map(abs).max() ?? 0)
            #expect(actual.count == expected.count)
            #expect(maxAbsDifference(actual, expected) <= 1e-4 * scale, "\(name) output \(o)")
        }
    }

    @Test("the optimized resolver does not pick the reference kernels")
    func optimizedByDefault() throws {
        let path = TestPaths.opFixtures.appendingPathComponent("conv2d/model.tflite").path
        let interpreter = try Interpreter(modelPath: path)
        try interpreter.allocateTensors()
        #expect(!interpreter.executor.kernelTypeNames.contains("ReferenceWindowKernel"))
    }
}

import Foundation
import Testing

@testable import TFLiteRuntime

/// Shape arithmetic on constants is evaluated when tensors are allocated, as LiteRT evaluates it in
/// `Prepare`: the shapes after it are static and their tensors share the arena.
@Suite("Constant folding at prepare")
struct ConstantFoldingTests {
    static let model = TestPaths.packageRoot
        .appendingPathComponent("Tests/TFLiteRuntimeTests/Fixtures/graphs/constant_folding.tflite").path

    @Test("shape operands computed from constants are known before the first invoke")
    func foldsShapeArithmetic() throws {
        let interpreter = try Interpreter(modelPath: ConstantFoldingTests.model)
        try interpreter.allocateTensors()
        // y = RESHAPE(x, MUL(dims, 1)): the model declares [1]; folding gives [3, 2] before any run.
        #expect(try interpreter.output(at: 0).shape.dimensions == [3, 2])
        // MUL (the shape) and ADD (of the empty-shaped RESHAPE's scalar) run at allocate; nothing is
        // left to prepare at run time.
        #expect(interpreter.executor.foldedNodeCount == 2)
        #expect(interpreter.executor.deferredNodeCount == 0)
        let x: [Float] = [0, 1, 2, 3, 4, 5]
        try interpreter.copy(x.withUnsafeBufferPointer { Data(buffer: $0) }, toInputAt: 0)
        try interpreter.invoke()
        let y = try interpreter.output(at: 0).data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(y == x)
        // z = RESHAPE([7], empty shape) + 1, as LiteRT computes it (8, a scalar).
        let z = try interpreter.output(at: 1)
        #expect(z.shape.dimensions == [])
        #expect(z.data.withUnsafeBytes { $0.load(as: Int32.self) } == 8)
        // Invoking again reuses the folded values.
        try interpreter.invoke()
        #expect(try interpreter.output(at: 1).data.withUnsafeBytes { $0.load(as: Int32.self) } == 8)
    }
}

import Foundation
import Testing

@testable import TFLiteRuntime
import NumPyFiles

/// Weights dequantized from float16 at load are freed once the convolutions reading them have
/// packed them (`FoldedOutputs.release`, `FoldRelease`); the results must not change, also after the
/// tensors are allocated again (the weights are folded again, the packed panels kept).
@Suite("Folded weights are freed after packing")
struct FoldReleaseTests {
    static let folder = TestPaths.opFixtures.appendingPathComponent("fp16_weights")

    static func interpreter() throws -> Interpreter {
        try Interpreter(modelPath: folder.appendingPathComponent("model.tflite").path)
    }

    /// The DEQUANTIZE outputs, with the operators that read each of them.
    static func dequantized(_ interpreter: Interpreter) -> [(tensor: RuntimeTensor, readers: [String])] {
        let executor = interpreter.executor
        return executor.order.compactMap { n -> (RuntimeTensor, [String])? in
            let node = executor.nodes[n]
            guard node.opName == "DEQUANTIZE", let output = node.outputs.first else { return nil }
            let readers = executor.nodes.filter { $0.inputs.contains { $0 === output } }.map(\.opName)
            return (output, readers)
        }
    }

    /// Runs the fixture's input (repeated `batch` times) and returns the two outputs' bytes.
    static func run(_ interpreter: Interpreter, batch: Int) throws -> [Data] {
        let input = try NumPyArray(contentsOf: folder.appendingPathComponent("input_0.npy"))
        var data = Data()
        for _ in 0..<batch { data.append(input.data) }
        try interpreter.copy(data, toInputAt: 0)
        try interpreter.invoke()
        return try (0..<2).map { try interpreter.output(at: $0).data }
    }

    /// The outputs of one batch item are LiteRT's, bit for bit.
    static func checkOutputs(_ interpreter: Interpreter) throws {
        let outputs = try run(interpreter, batch: 1)
        for o in 0..<2 {
            let expected = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(o).npy"))
            #expect(outputs[o] == expected.data, "output \(o): not bit-identical to LiteRT")
        }
    }

    @Test("weights read only by packing kernels are freed; the rest are kept")
    func releasedWhereEveryReaderPacked() throws {
        let interpreter = try Self.interpreter()
        try interpreter.allocateTensors()
        let folded = Self.dequantized(interpreter)
        #expect(!folded.isEmpty)
        var released = 0
        for (tensor, readers) in folded {
            #expect(tensor.isConstant)
            // CONV_2D and FULLY_CONNECTED pack constant filters; DEPTHWISE_CONV_2D and bias operands
            // are read on every run, so those values must stay.
            let packsFilter = readers.allSatisfy { $0 == "CONV_2D" || $0 == "FULLY_CONNECTED" } && tensor.rank > 1
            if packsFilter {
                #expect(tensor.byteCount == 0, "tensor \(tensor.index) read by \(readers) was kept")
                released += 1
            } else {
                #expect(tensor.byteCount == tensor.requiredBytes, "tensor \(tensor.index) read by \(readers) was freed")
            }
        }
        #expect(released > 0)
        try Self.checkOutputs(interpreter)
    }

    @Test("allocating again folds the weights again and gives the same results")
    func allocateAgain() throws {
        let interpreter = try Self.interpreter()
        try interpreter.allocateTensors()
        try Self.checkOutputs(interpreter)
        try interpreter.allocateTensors()
        try Self.checkOutputs(interpreter)
        // A batch of two through the refolded weights, against an interpreter made for that batch
        // from the start (batch 2 takes other GEMM tiles, so it is compared with ours, not LiteRT's).
        let shape = try interpreter.input(at: 0).shape.dimensions
        let batched = Tensor.Shape([2] + shape.dropFirst())
        try interpreter.resizeInput(at: 0, to: batched)
        try interpreter.allocateTensors()
        let fresh = try Self.interpreter()
        try fresh.resizeInput(at: 0, to: batched)
        try fresh.allocateTensors()
        #expect(try Self.run(interpreter, batch: 2) == Self.run(fresh, batch: 2))
    }

    @Test("observing every node still works; freed weights are reported without bytes")
    func observingNodes() throws {
        let interpreter = try Self.interpreter()
        try interpreter.allocateTensors()
        let input = try NumPyArray(contentsOf: Self.folder.appendingPathComponent("input_0.npy"))
        try interpreter.copy(input.data, toInputAt: 0)
        var dequantized = 0, empty = 0
        try interpreter.invoke { observed in
            guard observed.operatorName == "DEQUANTIZE" else { return }
            dequantized += 1
            if observed.tensors[0].data.isEmpty { empty += 1 }
        }
        #expect(dequantized == Self.dequantized(interpreter).count)
        #expect(empty == Self.dequantized(interpreter).filter { $0.tensor.byteCount == 0 }.count)
        #expect(empty > 0)
    }
}

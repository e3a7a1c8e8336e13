import Foundation
import Testing

@testable import TFLiteRuntime
import NumPyFiles

/// The TensorFlowLiteSwift-compatible API, on committed fixture models.
@Suite("Interpreter API")
struct InterpreterTests {
    static func fixture(_ name: String) -> String {
        TestPaths.opFixtures.appendingPathComponent(name).appendingPathComponent("model.tflite").path
    }

    static func npy(_ name: String, _ file: String) throws -> NumPyArray {
        try NumPyArray(contentsOf: TestPaths.opFixtures.appendingPathComponent(name).appendingPathComponent(file))
    }

    @Test("the seeds' code compiles and runs unchanged")
    func seedCode() throws {
        let modelPath = InterpreterTests.fixture("small_cnn")
        let inputData = try InterpreterTests.npy("small_cnn", "input_0.npy").data
        // As in ML Kit's AutoML Vision Edge guide (seed 003):
        let interpreter = try Interpreter(modelPath: modelPath)
        try interpreter.allocateTensors()
        try interpreter.copy(inputData, toInputAt: 0)
        try interpreter.invoke()
        let output = try interpreter.output(at: 0)
        let probabilities = UnsafeMutableBufferPointer<Float32>.allocate(capacity: 5)
        defer { probabilities.deallocate() }
        #expect(output.data.copyBytes(to: probabilities) == 20)
        let expected = try InterpreterTests.npy("small_cnn", "output_0.npy").doubleValues()
        #expect(maxAbsDifference(probabilities.map(Double.init), expected) < 1e-4)
    }

    @Test("writing an input in place gives the same result as copying it")
    func inPlaceInput() throws {
        let input = try InterpreterTests.npy("small_cnn", "input_0.npy").data
        let copied = try Interpreter(modelPath: InterpreterTests.fixture("small_cnn"))
        try copied.allocateTensors()
        try copied.copy(input, toInputAt: 0)
        try copied.invoke()
        let inPlace = try Interpreter(modelPath: InterpreterTests.fixture("small_cnn"))
        #expect(throws: InterpreterError.allocateTensorsRequired) {
            try inPlace.withUnsafeMutableBytes(ofInputAt: 0) { _ in }
        }
        try inPlace.allocateTensors()
        let count = try inPlace.withUnsafeMutableBytes(ofInputAt: 0) { buffer -> Int in
            input.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return buffer.count
        }
        #expect(count == input.count)
        #expect(try inPlace.input(at: 0).data == input)
        try inPlace.invoke()
        #expect(try inPlace.output(at: 0).data == copied.output(at: 0).data)
        #expect(throws: InterpreterError.self) { try inPlace.withUnsafeMutableBytes(ofInputAt: 5) { _ in } }
    }

    @Test("observing nodes hands over every operator's outputs, copied before the arena reuses them")
    func observingNodes() throws {
        let input = try InterpreterTests.npy("small_cnn", "input_0.npy").data
        let interpreter = try Interpreter(modelPath: InterpreterTests.fixture("small_cnn"))
        try interpreter.allocateTensors()
        try interpreter.copy(input, toInputAt: 0)
        var seen = [NodeOutputs]()
        try interpreter.invoke { seen.append($0) }
        let graph = interpreter.model.subgraphs[0]
        #expect(seen.count == graph.operators.count)
        #expect(Set(seen.map(\.nodeIndex)).count == seen.count)
        for node in seen {
            #expect(node.tensorIndices == graph.operators[node.nodeIndex].outputs)
            #expect(node.tensors.count == node.tensorIndices.count)
        }
        // The last operator's output is the model's output, and every observed tensor keeps the
        // values it had when its operator ran (a later run's plain invoke agrees).
        let output = try #require(seen.last?.tensors.first)
        #expect(output.data == (try interpreter.output(at: 0)).data)
        let replay = try Interpreter(modelPath: InterpreterTests.fixture("small_cnn"))
        try replay.allocateTensors()
        try replay.copy(input, toInputAt: 0)
        try replay.invoke()
        #expect(output.data == (try replay.output(at: 0)).data)
        struct Stop: Error {}
        var calls = 0
        #expect(throws: Stop.self) {
            try interpreter.invoke { _ in
                calls += 1
                throw Stop()
            }
        }
        #expect(calls == 1)
    }

    @Test("tensor metadata matches the model")
    func tensors() throws {
        let interpreter = try Interpreter(modelPath: InterpreterTests.fixture("small_cnn"), options: .init(threadCount: 2))
        #expect(interpreter.inputTensorCount == 1)
        #expect(interpreter.outputTensorCount == 2)
        try interpreter.allocateTensors()
        let input = try interpreter.input(at: 0)
        #expect(input.dataType == .float32)
        #expect(input.shape == [1, 16, 16, 3])
        #expect(input.shape.rank == 4)
        #expect(input.data.count == 16 * 16 * 3 * 4)
        #expect(input.quantizationParameters == nil)
    }

    @Test("errors have TensorFlowLiteSwift's cases")
    func errors() throws {
        let interpreter = try Interpreter(modelPath: InterpreterTests.fixture("small_cnn"))
        #expect(throws: InterpreterError.allocateTensorsRequired) { try interpreter.copy(Data(count: 3072), toInputAt: 0) }
        #expect(throws: InterpreterError.allocateTensorsRequired) { try interpreter.invoke() }
        #expect(throws: InterpreterError.invalidTensorIndex(index: 1, maxIndex: 0)) { try interpreter.input(at: 1) }
        #expect(throws: InterpreterError.invalidTensorIndex(index: 2, maxIndex: 1)) { try interpreter.output(at: 2) }
        try interpreter.allocateTensors()
        #expect(throws: InterpreterError.invalidTensorDataCount(provided: 10, required: 3072)) {
            try interpreter.copy(Data(count: 10), toInputAt: 0)
        }
        #expect(throws: InterpreterError.failedToLoadModel) { try Interpreter(modelPath: "/nonexistent.tflite") }
        #expect(throws: InterpreterError.self) { try Interpreter(modelData: Data(count: 64)) }
        let message = InterpreterError.invalidTensorDataCount(provided: 1, required: 2).localizedDescription
        #expect(message.contains("1") && message.contains("2"))
    }

    @Test("resizeInput re-plans shapes, including values computed from shapes")
    func resize() throws {
        let interpreter = try Interpreter(modelPath: InterpreterTests.fixture("shape_fill"))
        try interpreter.allocateTensors()
        try interpreter.resizeInput(at: 0, to: [3, 3, 4])
        #expect(throws: InterpreterError.allocateTensorsRequired) { try interpreter.invoke() }
        try interpreter.allocateTensors()
        let values = (0..<36).map { Float($0) }
        try interpreter.copy(values.withUnsafeBufferPointer { Data(buffer: $0) }, toInputAt: 0)
        try interpreter.invoke()
        let shape = try interpreter.output(at: 0)
        #expect(shape.dataType == .int32)
        #expect(shape.data.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) } == [3, 3, 4])
        #expect(try interpreter.output(at: 2).shape == [3, 3, 4])
        #expect(throws: InterpreterError.failedToResizeInputTensor(index: 0)) {
            try interpreter.resizeInput(at: 0, to: [-1, 3, 4])
        }
    }

    @Test("signature runner runs by names")
    func signatureRunner() throws {
        let interpreter = try Interpreter(modelPath: InterpreterTests.fixture("small_cnn"))
        #expect(interpreter.signatureKeys == ["serving_default"])
        let runner = try interpreter.signatureRunner(with: "serving_default")
        #expect(runner.inputs == ["keras_tensor"])
        #expect(runner.outputs.sorted() == ["output_0", "output_1"])
        let input = try InterpreterTests.npy("small_cnn", "input_0.npy")
        try runner.invoke(with: ["keras_tensor": input.data])
        let viaSignature = NumPyArray(try runner.output(named: "output_0")).doubleValues()
        try interpreter.allocateTensors()
        try interpreter.copy(input.data, toInputAt: 0)
        try interpreter.invoke()
        // output_0 is the subgraph's second output (tensor 16); compare against the same tensor.
        #expect(maxAbsDifference(viaSignature, NumPyArray(try interpreter.output(at: 1)).doubleValues()) == 0)
        #expect(throws: SignatureRunnerError.failedToCreateSignatureRunner(signatureKey: "nope")) {
            try interpreter.signatureRunner(with: "nope")
        }
        #expect(throws: SignatureRunnerError.failedToGetTensor(tensorType: "input", nameInSignature: "x")) {
            try runner.input(named: "x")
        }
    }

    @Test("an unsupported operator fails when the interpreter is created, naming node, op and version")
    func unsupportedOperator() throws {
        // Patch the first operator code of a fixture to CONCAT_EMBEDDINGS (29), which neither LiteRT nor
        // this runtime implements.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: InterpreterTests.fixture("small_cnn")))
        let model = try Model(data: bytes)
        let firstCode = try bytes.withUnsafeBytes { raw -> (Int?, Int?) in
            let root = try FlatTable(bytes: raw, position: Int(raw.loadUnaligned(as: UInt32.self)), what: "model")
            let code = try #require(root.tableVector(1, name: { "code \($0)" }).first)
            return (try code.position(ofField: 0, size: 1), try code.position(ofField: 3, size: 4))
        }
        if let p = firstCode.0 { bytes[p] = 29 }
        if let p = firstCode.1 { bytes.replaceSubrange(p..<p + 4, with: [29, 0, 0, 0]) }
        let patched = try Model(data: bytes)
        let name = model.operatorCodes[0].displayName
        #expect(patched.operatorCodes[0].builtin == .concatEmbeddings, "patched \(name)")
        #expect(patched.unsupportedOperators == ["CONCAT_EMBEDDINGS"])
        do {
            _ = try Interpreter(modelData: bytes)
            Issue.record("creating the interpreter should fail")
        } catch let InterpreterError.tensorFlowLiteError(message) {
            #expect(message.contains("CONCAT_EMBEDDINGS"))
            #expect(message.contains("node ") && message.contains("version "), "\(message)")
        }
    }
}

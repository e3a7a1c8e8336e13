import Foundation
import OpenMLKit
import TFLiteRuntime
import Testing
import NumPyFiles

/// ML Kit's `ModelInterpreter` flow (seeds 000–002) on committed fixture models.
@Suite("ModelInterpreter")
struct ModelInterpreterTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Tests/TFLiteRuntimeTests/Fixtures/ops")
    static let shared = root.deletingLastPathComponent().appendingPathComponent("shared/models")

    static func fixture(_ name: String, _ file: String = "model.tflite") -> URL {
        fixtures.appendingPathComponent(name).appendingPathComponent(file)
    }

    static func options() throws -> ModelInputOutputOptions {
        let ioOptions = ModelInputOutputOptions()
        try ioOptions.setInputFormat(index: 0, type: .float32, dimensions: [1, 16, 16, 3])
        try ioOptions.setOutputFormat(index: 0, type: .float32, dimensions: [1, 5])
        return ioOptions
    }

    @Test("runs a local model as in the guide, with LiteRT's result")
    func seedFlow() async throws {
        let localModel = CustomLocalModel(modelPath: ModelInterpreterTests.fixture("small_cnn").path)
        let interpreter = ModelInterpreter.modelInterpreter(localModel: localModel)
        let input = try NumPyArray(contentsOf: ModelInterpreterTests.fixture("small_cnn", "input_0.npy"))
        let inputs = ModelInputs()
        try inputs.addInput(input.data)
        let outputs = try await interpreter.run(inputs: inputs, options: try ModelInterpreterTests.options())
        // As in the guide (where Swift 5 flattens `try?`, so one `?` instead of the guide's two).
        let output = try? outputs.output(index: 0) as? [[NSNumber]]
        let probabilities: [NSNumber] = try #require(output?[0])
        #expect(probabilities.count == 5)
        let expected = try NumPyArray(contentsOf: ModelInterpreterTests.fixture("small_cnn", "output_0.npy")).doubleValues()
        for (ours, reference) in zip(probabilities.map(\.doubleValue), expected) {
            #expect(abs(ours - reference) < 1e-4)
        }
    }

    @Test("completion handler and nested-array inputs")
    func completionAndArrays() async throws {
        let interpreter = ModelInterpreter.modelInterpreter(
            localModel: CustomLocalModel(modelPath: ModelInterpreterTests.fixture("small_cnn").path))
        let input = try NumPyArray(contentsOf: ModelInterpreterTests.fixture("small_cnn", "input_0.npy")).doubleValues()
        // [1][16][16][3] nested arrays of Float.
        let nested: [[[[Float]]]] = [(0..<16).map { y in (0..<16).map { x in (0..<3).map { c in Float(input[(y * 16 + x) * 3 + c]) } } }]
        let inputs = ModelInputs()
        try inputs.addInput(nested)
        let options = try ModelInterpreterTests.options()
        let outputs: ModelOutputs = try await withCheckedThrowingContinuation { continuation in
            interpreter.run(inputs: inputs, options: options) { outputs, error in
                if let outputs { continuation.resume(returning: outputs) } else { continuation.resume(throwing: error!) }
            }
        }
        let expected = try NumPyArray(contentsOf: ModelInterpreterTests.fixture("small_cnn", "output_0.npy")).doubleValues()
        let values = try #require(try outputs.output(index: 0) as? [[NSNumber]])[0].map(\.doubleValue)
        #expect(zip(values, expected).allSatisfy { abs($0 - $1) < 1e-4 })
        #expect(outputs.count == 2)
    }

    @Test("formats that do not match the model are clear errors")
    func mismatches() throws {
        let interpreter = ModelInterpreter.modelInterpreter(
            localModel: CustomLocalModel(modelPath: ModelInterpreterTests.fixture("small_cnn").path))
        let inputs = ModelInputs()
        try inputs.addInput(Data(count: 16 * 16 * 3 * 4))

        let wrongType = ModelInputOutputOptions()
        try wrongType.setInputFormat(index: 0, type: .uInt8, dimensions: [1, 16, 16, 3])
        #expect(throws: ModelInterpreterError.formatMismatch("input 0: options say uint8 but the model takes float32")) {
            try interpreter.runSynchronously(inputs: inputs, options: wrongType)
        }
        let wrongShape = ModelInputOutputOptions()
        try wrongShape.setInputFormat(index: 0, type: .float32, dimensions: [1, 224, 224, 3])
        #expect(throws: ModelInterpreterError.self) { try interpreter.runSynchronously(inputs: inputs, options: wrongShape) }

        let wrongOutput = ModelInputOutputOptions()
        try wrongOutput.setInputFormat(index: 0, type: .float32, dimensions: [1, 16, 16, 3])
        try wrongOutput.setOutputFormat(index: 0, type: .float32, dimensions: [1, 1000])
        #expect(throws: ModelInterpreterError.formatMismatch("output 0: options say dimensions [1, 1000] but the model gives [1, 5]")) {
            try interpreter.runSynchronously(inputs: inputs, options: wrongOutput)
        }
        let short = ModelInputs()
        try short.addInput(Data(count: 10))
        #expect(throws: ModelInterpreterError.invalidInput("input 0 has 10 bytes; float32 [1, 16, 16, 3] needs 3072")) {
            try interpreter.runSynchronously(inputs: short, options: try ModelInterpreterTests.options())
        }
        #expect(throws: ModelInterpreterError.self) { try ModelInputOutputOptions().setInputFormat(index: 0, type: .float32, dimensions: [1, 0]) }
        #expect(throws: ModelInterpreterError.self) { try ModelInputs().addInput("text") }
        let outputs = try interpreter.runSynchronously(inputs: inputs, options: try ModelInterpreterTests.options())
        #expect(throws: ModelInterpreterError.invalidOutputIndex(index: 7, count: 2)) { try outputs.output(index: 7) }
    }

    @Test("a missing model file is an error, not a crash")
    func missingModel() throws {
        let interpreter = ModelInterpreter.modelInterpreter(localModel: CustomLocalModel(modelPath: "/nonexistent.tflite"))
        let inputs = ModelInputs()
        try inputs.addInput(Data(count: 4))
        #expect(throws: ModelInterpreterError.self) { try interpreter.runSynchronously(inputs: inputs, options: ModelInputOutputOptions()) }
    }

    @Test("an AutoML manifest names the model file",
          .enabled(if: FileManager.default.fileExists(atPath: ModelInterpreterTests.shared.path), "../shared/models is not beside the checkout"))
    func manifest() throws {
        let folder = ModelInterpreterTests.shared.appendingPathComponent("mlkit_automl_flowers")
        let model = try CustomLocalModel(manifestPath: folder.appendingPathComponent("manifest.json").path)
        #expect(model.modelPath == folder.appendingPathComponent("model.tflite").path)
        #expect(throws: ModelInterpreterError.self) { try CustomLocalModel(manifestPath: folder.appendingPathComponent("dict.txt").path) }
    }
}

import Foundation
import Testing

@testable import TFLiteRuntime

/// Every MediaPipe and audio custom-operator case of `tools/make_custom_op_models.py`, run here and
/// compared with its golden (LiteRT's built-in kernels for the audio ops, MediaPipe's definition
/// cross-checked with LiteRT+XNNPACK or TensorFlow for the rest; the manifest names each case's
/// source): float outputs within the case's tolerance × max(1, max |golden|). Every case must pass.
@Suite("Custom operators against their references")
struct CustomOperatorTests {
    struct Manifest: Decodable {
        struct Case: Decodable {
            let name: String
            let op: String
            let golden: String
            let run_inputs: Int?
            let tolerance: Double?
        }
        let cases: [Case]
    }

    static let folder = TestPaths.packageRoot.appendingPathComponent("Tests/TFLiteRuntimeTests/Fixtures/custom_ops")

    static var cases: [Manifest.Case] {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("manifest.json")),
            let manifest = try? JSONDecoder().decode(Manifest.self, from: data)
        else { return [] }
        return manifest.cases.filter { $0.tolerance != nil }
    }

    /// Runs one case at `threads`; returns nil when every output matches, else why not.
    static func failure(_ entry: Manifest.Case, threads: Int) -> String? {
        let caseFolder = folder.appendingPathComponent(entry.name)
        do {
            let interpreter = try Interpreter(
                modelPath: caseFolder.appendingPathComponent("model.tflite").path, options: .init(threadCount: threads))
            var inputs = [NumPyArray]()
            for i in 0..<(entry.run_inputs ?? interpreter.inputTensorCount) {
                inputs.append(try NumPyArray(contentsOf: caseFolder.appendingPathComponent("input_\(i).npy")))
            }
            try interpreter.allocateTensors()
            for (i, array) in inputs.enumerated() { try interpreter.copy(array.data, toInputAt: i) }
            try interpreter.invoke()
            for o in 0..<interpreter.outputTensorCount {
                let expected = try NumPyArray(contentsOf: caseFolder.appendingPathComponent("output_\(o).npy"))
                let actual = NumPyArray(try interpreter.output(at: o))
                guard actual.type == expected.type else {
                    return "output \(o) has type \(actual.type.name), golden \(expected.type.name)"
                }
                guard actual.shape == expected.shape else {
                    return "output \(o) has shape \(actual.shape), golden \(expected.shape)"
                }
                let a = actual.doubleValues(), e = expected.doubleValues()
                if zip(a, e).contains(where: { $0.0.isNaN != $0.1.isNaN }) { return "output \(o): NaN in one only" }
                let pairs = zip(a, e).filter { !$0.1.isNaN }
                let scale = max(1, pairs.map { abs($0.1) }.max() ?? 0)
                let diff = pairs.map { abs($0.0 - $0.1) }.max() ?? 0
                let tolerance = (entry.tolerance ?? 1e-5) * scale
                if diff > tolerance { return "output \(o): max diff \(diff) > \(tolerance)" }
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("the manifest has cases")
    func manifestPresent() {
        #expect(CustomOperatorTests.cases.count > 0)
    }

    @Test("each case matches its golden")
    func everyCase() {
        let cases = CustomOperatorTests.cases
        var failing = [(String, String)]()
        for entry in cases {
            if let why = CustomOperatorTests.failure(entry, threads: 1) ?? CustomOperatorTests.failure(entry, threads: 2) {
                failing.append((entry.name, why))
            }
        }
        let operators = Set(cases.map(\.op)).count
        print("custom operators: \(cases.count - failing.count) of \(cases.count) cases match (\(operators) operators)")
        for (name, why) in failing { Issue.record("\(name): \(why)") }
    }
}

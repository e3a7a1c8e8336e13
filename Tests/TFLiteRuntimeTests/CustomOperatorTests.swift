import Foundation
import Testing

@testable import TFLiteRuntime
import NumPyFiles

/// Every MediaPipe and audio custom-operator case of `tools/make_custom_op_models.py`, run here and
/// compared with its golden (LiteRT's built-in kernels for the audio ops; MediaPipe's own kernels from
/// its 0.10 wheel, or for the version-1 ops MediaPipe's CPU resolver lacks a numpy transcription of
/// its definition; the manifest names each case's source and cross-checks): float outputs within the
/// case's tolerance × max(1, max |golden|). Every case must pass.
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

    /// Runs one case at `threads`; returns nil when every output matches, else why not. `exact` is
    /// cleared when some output differs from the golden at all.
    static func failure(_ entry: Manifest.Case, threads: Int, exact: inout Bool) -> String? {
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
                let a = actual.doubleValues()
                let e = expected.doubleValues()
                if zip(a, e).contains(where: { $0.0.isNaN != $0.1.isNaN }) { return "output \(o): NaN in one only" }
                let pairs = zip(a, e).filter { !$0.1.isNaN }
                let scale = max(1, pairs.map { abs($0.1) }.max() ?? 0)
                let diff = pairs.map { abs($0.0 - $0.1) }.max() ?? 0
                if diff != 0 { exact = false }
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
        var identical = 0
        for entry in cases {
            var exact = true
            if let why = CustomOperatorTests.failure(entry, threads: 1, exact: &exact)
                ?? CustomOperatorTests.failure(entry, threads: 2, exact: &exact)
            {
                failing.append((entry.name, why))
            } else if exact {
                identical += 1
            } else {
                print("custom operators: \(entry.name) matches within tolerance, not bit for bit")
            }
        }
        let operators = Set(cases.map(\.op)).count
        print(
            "custom operators: \(cases.count - failing.count) of \(cases.count) cases match (\(operators) operators), "
                + "\(identical) bit-identical")
        for (name, why) in failing { Issue.record("\(name): \(why)") }
    }

    /// Runs the stored model of case `name` with replaced inputs; the error it throws, if any.
    static func runError(_ name: String, inputs: [[Float]], shapes: [[Int]]? = nil) -> Error? {
        let caseFolder = folder.appendingPathComponent(name)
        do {
            let interpreter = try Interpreter(modelPath: caseFolder.appendingPathComponent("model.tflite").path)
            if let shapes {
                for (i, shape) in shapes.enumerated() { try interpreter.resizeInput(at: i, to: Tensor.Shape(shape)) }
            }
            try interpreter.allocateTensors()
            for (i, values) in inputs.enumerated() {
                try interpreter.copy(values.withUnsafeBytes { Data($0) }, toInputAt: i)
            }
            try interpreter.invoke()
            return nil
        } catch {
            return error
        }
    }

    @Test("bad indices and landmark counts throw instead of reading or writing out of bounds")
    func untrustedValues() throws {
        let values = [Float](repeating: 1, count: 36)
        for bad: Float in [99.1, -40, .nan, .infinity, 3e9] {
            var indices = [Float](repeating: 0.1, count: 36)
            indices[17] = bad
            let error = CustomOperatorTests.runError("max_unpool_2x2_s2", inputs: [values, indices])
            #expect(error != nil, "index \(bad) was accepted")
        }
        #expect(
            CustomOperatorTests.runError("max_unpool_2x2_s2", inputs: [values, [Float](repeating: 3.1, count: 36)])
                == nil)
        // The options name landmark 5; two landmarks are too few.
        let few = CustomOperatorTests.runError(
            "landmarks2transform_matrix_v1_face", inputs: [[Float](repeating: 1, count: 6)], shapes: [[1, 1, 1, 6]])
        #expect(few != nil)
        let fewV2 = CustomOperatorTests.runError(
            "landmarks2transform_matrix_v2_pose", inputs: [[Float](repeating: 1, count: 9)], shapes: [[1, 3, 3]])
        #expect(fewV2 != nil)
    }
}

/// Whole MediaPipe models from the `mediapipe` wheel that use custom ops, against MediaPipe's own CPU
/// inference (`tools/mediapipe_wheel_parity.py` writes the references and points at the wheel's model
/// files, which are never copied here). Runs only when `OPENMLKIT_MEDIAPIPE_PARITY_DIR` names that
/// output folder. MediaPipe runs TFLite's optimized kernels, so floats agree to a relative tolerance.
@Suite(
    "MediaPipe wheel models against MediaPipe",
    .enabled(if: ProcessInfo.processInfo.environment["OPENMLKIT_MEDIAPIPE_PARITY_DIR"] != nil))
struct MediaPipeWheelParityTests {
    static let tolerance = 1e-4

    @Test("every wheel model matches MediaPipe's outputs")
    func wheelModels() throws {
        let root = URL(fileURLWithPath: ProcessInfo.processInfo.environment["OPENMLKIT_MEDIAPIPE_PARITY_DIR"] ?? "")
        let folders = try FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)
            .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("model_path.txt").path) }
            .sorted { $0.path < $1.path }
        #expect(!folders.isEmpty)
        for folder in folders {
            let modelPath = try String(contentsOf: folder.appendingPathComponent("model_path.txt"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let interpreter = try Interpreter(modelPath: modelPath)
            try interpreter.allocateTensors()
            let input = try NumPyArray(contentsOf: folder.appendingPathComponent("input_0.npy"))
            try interpreter.copy(input.data, toInputAt: 0)
            try interpreter.invoke()
            for o in 0..<interpreter.outputTensorCount {
                let expected = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(o).npy"))
                let actual = NumPyArray(try interpreter.output(at: o))
                #expect(actual.shape == expected.shape, "\(folder.lastPathComponent) output \(o) shape")
                let a = actual.doubleValues()
                let e = expected.doubleValues()
                let scale = max(1, e.map { abs($0) }.max() ?? 0)
                let diff = zip(a, e).map { abs($0.0 - $0.1) }.max() ?? 0
                print("mediapipe wheel: \(folder.lastPathComponent) output \(o): max diff \(diff) (scale \(scale))")
                #expect(diff <= Self.tolerance * scale, "\(folder.lastPathComponent) output \(o): max diff \(diff)")
            }
        }
    }
}

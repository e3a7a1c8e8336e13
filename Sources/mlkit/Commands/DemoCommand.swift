import ArgumentParser
import Foundation
import TFLiteRuntime
import NumPyFiles

/// `mlkit demo`: runs the built-in model and checks the result against LiteRT's.
///
/// The built-in model is a MobileNetV2-style float classifier (width 0.35, 96×96 input, random
/// weights) made with TensorFlow's converter by `tools/make_fixtures.py`; its input and the output
/// Google's LiteRT computed for it were recorded at the same time. The demo needs no files.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the built-in MobileNetV2-style model and compare with LiteRT's recorded output."
    )

    @Option(help: "Threads the kernels may use.")
    var threads: Int = 1

    @Option(help: "Timed runs after the first.")
    var runs: Int = 5

    func run() throws {
        try reportingErrors {
            guard let folder = Bundle.module.url(forResource: "demo", withExtension: nil) else {
                throw CLIError("the built-in demo model is missing from this build")
            }
            let modelURL = folder.appendingPathComponent("model.tflite")
            let input = try NumPyArray(contentsOf: folder.appendingPathComponent("input_0.npy"))
            let expected = try NumPyArray(contentsOf: folder.appendingPathComponent("output_0.npy"))

            let loadStart = Date()
            let interpreter = try Interpreter(modelPath: modelURL.path, options: .init(threadCount: threads))
            try interpreter.allocateTensors()
            let loadMs = Date().timeIntervalSince(loadStart) * 1000
            try interpreter.copy(input.data, toInputAt: 0)

            var times = [Double]()
            for _ in 0..<(max(runs, 0) + 1) {
                let start = Date()
                try interpreter.invoke()
                times.append(Date().timeIntervalSince(start) * 1000)
            }
            let output = NumPyArray(try interpreter.output(at: 0))
            let ours = output.doubleValues()
            let reference = expected.doubleValues()
            guard ours.count == reference.count else {
                throw CLIError("output has \(ours.count) values, LiteRT's has \(reference.count)")
            }
            let maxDiff = zip(ours, reference).map { abs($0 - $1) }.max() ?? 0
            let scale = max(1, reference.map(abs).max() ?? 0)
            let top = ours.enumerated().sorted { $0.element > $1.element }.prefix(5)
            let inputInfo = try interpreter.input(at: 0)

            print("model: built-in MobileNetV2 0.35 (float32, random weights), \(interpreter.model.subgraphs[0].operators.count) operators")
            print("input: \(inputInfo.dataType) \(inputInfo.shape.dimensions)   output: \(output.type.numpyName) \(output.shape)")
            print("load + allocate: \(String(format: "%.1f", loadMs)) ms")
            let sorted = times.dropFirst().sorted()
            if !sorted.isEmpty {
                print("invoke: first \(String(format: "%.1f", times[0])) ms, median of \(sorted.count) \(String(format: "%.1f", sorted[sorted.count / 2])) ms (\(threads) thread(s))")
            }
            print("top-5 classes: " + top.map { "\($0.offset) (\(String(format: "%.4f", $0.element)))" }.joined(separator: ", "))
            let tolerance = 1e-4 * scale
            let verdict = maxDiff <= tolerance ? "MATCH" : "MISMATCH"
            print("max |ours - LiteRT| = \(String(format: "%.3g", maxDiff)) (tolerance \(String(format: "%.3g", tolerance))): \(verdict)")
            if maxDiff > tolerance { throw ExitCode(1) }
        }
    }
}

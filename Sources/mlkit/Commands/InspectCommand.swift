import ArgumentParser
import Foundation
import TFLiteRuntime

/// `mlkit inspect MODEL [--json]`: what a model takes and gives, and what it is made of.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print a model's inputs, outputs, signatures, operators and metadata."
    )

    @Argument(help: "Path to a .tflite model.")
    var model: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(help: "Also list every tensor of subgraph 0 with its type, shape and quantization.")
    var tensors = false

    func run() throws {
        try reportingErrors {
            let loaded: Model
            do {
                loaded = try Model(path: model)
            } catch let error as ModelError {
                throw CLIError("\(model): \(error.description)")
            }
            let report = ModelReport(model: loaded, path: model, includeTensors: tensors)
            if json {
                print(try report.jsonString())
            } else {
                print(report.text())
            }
        }
    }
}

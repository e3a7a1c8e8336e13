import ArgumentParser
import Foundation
import TFLiteRuntime
import NumPyFiles

/// `mlkit run MODEL --input A.npy ... --output-dir DIR`: one inference from NumPy files to NumPy files.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a model on .npy inputs and write its outputs as output_0.npy, output_1.npy, ...",
        discussion: """
            Give one --input per input tensor, in the model's input order. Each must have the tensor's \
            dtype and shape; a dimension the model declares as unknown (-1 in its shape signature) takes \
            the size of the file's array.
            """
    )

    @Argument(help: "Path to a .tflite model.")
    var model: String

    @Option(name: .customLong("input"), help: "A .npy file for the next input tensor (repeat for each input).")
    var inputs: [String] = []

    @Option(name: .customLong("output-dir"), help: "Directory for output_N.npy files (created if missing).")
    var outputDir: String

    @Flag(help: "Run float convolutions, fully-connected layers and pools with the plain reference kernels (LiteRT's BUILTIN_REF), to compare with the default optimized ones.")
    var referenceKernels = false

    @Option(help: "Threads the kernels may use.")
    var threads: Int = 1

    @Option(
        name: .customLong("dump-intermediates"),
        help: "Also write every operator's outputs to this directory as tensor_<index>.npy (for comparing layer by layer).")
    var intermediatesDir: String?

    func validate() throws {
        guard threads >= 1 && threads <= 64 else { throw ValidationError("--threads must be between 1 and 64") }
    }

    func run() throws {
        try reportingErrors {
            let interpreter = try Interpreter(
                modelPath: model, options: .init(threadCount: threads),
                resolver: OperatorResolver(kernels: referenceKernels ? .reference : .optimized))
            let graph = interpreter.model.subgraphs[0]
            guard inputs.count == interpreter.inputTensorCount else {
                throw CLIError(
                    "the model has \(interpreter.inputTensorCount) input(s) but \(inputs.count) --input file(s) were given")
            }
            var arrays = [NumPyArray]()
            for (i, path) in inputs.enumerated() {
                let array: NumPyArray
                do {
                    array = try NumPyArray(contentsOf: URL(fileURLWithPath: path))
                } catch let error as NumPyArray.FormatError {
                    throw CLIError("input \(i) (\(path)): \(error.description)")
                } catch {
                    throw CLIError("input \(i) (\(path)): \(error.localizedDescription)")
                }
                let declared = graph.tensors[graph.inputs[i]]
                guard array.type == declared.type else {
                    throw CLIError(
                        "input \(i) (\(path)): dtype \(array.type.numpyName) does not match the model's \(declared.type.numpyName)")
                }
                if array.shape != declared.shape {
                    let signature = declared.shapeSignature ?? declared.shape
                    let compatible =
                        array.shape.count == signature.count
                        && zip(array.shape, signature).allSatisfy { $1 == -1 || $0 == $1 }
                    guard compatible else {
                        throw CLIError(
                            "input \(i) (\(path)): shape \(array.shape) does not match the model's \(signature)")
                    }
                    try interpreter.resizeInput(at: i, to: Tensor.Shape(array.shape))
                }
                arrays.append(array)
            }
            try interpreter.allocateTensors()
            for (i, array) in arrays.enumerated() {
                try interpreter.copy(array.data, toInputAt: i)
            }
            if let intermediatesDir {
                let dumps = URL(fileURLWithPath: intermediatesDir, isDirectory: true)
                try FileManager.default.createDirectory(at: dumps, withIntermediateDirectories: true)
                try interpreter.invoke { node in
                    for (index, tensor) in zip(node.tensorIndices, node.tensors) {
                        try NumPyArray(tensor).write(to: dumps.appendingPathComponent("tensor_\(index).npy"))
                    }
                }
            } else {
                try interpreter.invoke()
            }
            let directory = URL(fileURLWithPath: outputDir, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for o in 0..<interpreter.outputTensorCount {
                let tensor = try interpreter.output(at: o)
                try NumPyArray(tensor).write(to: directory.appendingPathComponent("output_\(o).npy"))
            }
        }
    }
}

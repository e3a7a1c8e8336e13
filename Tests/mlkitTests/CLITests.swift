import Foundation
import Testing

/// Runs the real `mlkit` binary built next to the test bundle.
@Suite("mlkit command line")
struct CLITests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sharedModels = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/models")
    static var hasSharedModels: Bool { FileManager.default.fileExists(atPath: sharedModels.path) }

    /// The `mlkit` executable in the build products folder this test runs from.
    static var binary: URL? {
        var candidates = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()]
        candidates += Bundle.allBundles.map(\.bundleURL)
        for start in candidates {
            var dir = start
            for _ in 0..<4 {
                let exe = dir.appendingPathComponent("mlkit")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: exe.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    return exe
                }
                dir = dir.deletingLastPathComponent()
            }
        }
        return nil
    }

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ arguments: [String]) throws -> Result {
        let exe = try #require(binary, "the mlkit executable was not found next to the tests")
        let process = Process()
        process.executableURL = exe
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mlkit-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A minimal `.npy` file (version 1.0) with the given dtype descriptor, shape and zeroed data.
    static func npy(descr: String, shape: [Int], elementSize: Int) -> Data {
        let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(shapeText), }"
        header += String(repeating: " ", count: (64 - (10 + header.utf8.count + 1) % 64) % 64) + "\n"
        var data = Data([0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xff), UInt8(header.utf8.count >> 8)])
        data.append(contentsOf: Array(header.utf8))
        data.append(Data(count: shape.reduce(1, *) * elementSize))
        return data
    }

    @Test("inspect --json reports inputs, outputs and operators",
          .enabled(if: CLITests.hasSharedModels, "../shared/models is not beside the checkout"))
    func inspectJSON() throws {
        let result = try CLITests.run(["inspect", CLITests.sharedModels.appendingPathComponent("cup_model.tflite").path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let inputs = try #require(json["inputs"] as? [[String: Any]])
        #expect(inputs.count == 1)
        #expect(inputs.first?["dtype"] as? String == "float32")
        #expect(inputs.first?["shape"] as? [Int] == [1, 224, 224, 3])
        let ops = try #require(json["operators"] as? [String: Int])
        #expect((ops["CONV_2D"] ?? 0) > 0)
    }

    @Test("inspect prints text", .enabled(if: CLITests.hasSharedModels, "../shared/models is not beside the checkout"))
    func inspectText() throws {
        let result = try CLITests.run(["inspect", CLITests.sharedModels.appendingPathComponent("traffic_model.tflite").path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("normalized_input_image_tensor"))
        #expect(result.stdout.contains("TFLite_Detection_PostProcess"))
    }

    @Test("a corrupt model is one line on stderr and a non-zero exit")
    func corruptModel() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.tflite")
        try Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: file)
        for command in [["inspect", file.path], ["run", file.path, "--output-dir", dir.path]] {
            let result = try CLITests.run(command)
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("error: "))
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
        let missing = try CLITests.run(["inspect", dir.appendingPathComponent("none.tflite").path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("none.tflite"))
    }

    @Test("run rejects a wrong dtype, shape or input count",
          .enabled(if: CLITests.hasSharedModels, "../shared/models is not beside the checkout"))
    func runRejectsBadInputs() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = CLITests.sharedModels.appendingPathComponent("cup_model.tflite").path
        let wrongType = dir.appendingPathComponent("u8.npy")
        try CLITests.npy(descr: "|u1", shape: [1, 224, 224, 3], elementSize: 1).write(to: wrongType)
        let wrongShape = dir.appendingPathComponent("small.npy")
        try CLITests.npy(descr: "<f4", shape: [1, 10, 10, 3], elementSize: 4).write(to: wrongShape)
        let cases: [([String], String)] = [
            (["run", model, "--input", wrongType.path, "--output-dir", dir.path], "dtype uint8"),
            (["run", model, "--input", wrongShape.path, "--output-dir", dir.path], "shape [1, 10, 10, 3]"),
            (["run", model, "--output-dir", dir.path], "1 input(s) but 0"),
            (["run", model, "--input", dir.appendingPathComponent("absent.npy").path, "--output-dir", dir.path], "absent.npy"),
        ]
        for (arguments, fragment) in cases {
            let result = try CLITests.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains(fragment), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
    }
}

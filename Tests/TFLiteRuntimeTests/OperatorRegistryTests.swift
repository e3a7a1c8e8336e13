import Foundation
import Testing

@testable import TFLiteRuntime

/// The operator tables (versions, names) against what LiteRT registers, version checks when an
/// interpreter is created, and the public custom-operator API on a real model.
@Suite("Operator registry, versions and custom operators")
struct OperatorRegistryTests {
    static let singleOps = TestPaths.packageRoot.appendingPathComponent("Tests/TFLiteRuntimeTests/Fixtures/single_ops")

    @Test("the version table is LiteRT's (litert_builtins.json)")
    func versionTableMatchesProbe() throws {
        let data = try Data(contentsOf: OperatorRegistryTests.singleOps.appendingPathComponent("litert_builtins.json"))
        let probed = try JSONDecoder().decode([String: [Int]].self, from: data)
        #expect(probed.count == OpRegistry.litertVersions.count)
        for (name, versions) in probed {
            let code = try #require(BuiltinOperator.names.firstIndex(of: name), "\(name) has no code")
            #expect(OpRegistry.litertVersions[Int32(code)] == versions.min()!...versions.max()!, "\(name)")
            #expect(versions == Array(versions.min()!...versions.max()!), "\(name): LiteRT's versions have a gap")
        }
    }

    @Test("every builtin with a kernel is one LiteRT registers")
    func kernelsAreLiteRTOperators() {
        for op in OpRegistry.supportedBuiltins {
            #expect(OpRegistry.litertVersions[op.rawValue] != nil, "\(op.name) has a kernel but LiteRT does not register it")
        }
    }

    /// The bytes of a single-operator case with its operator code's version replaced.
    static func model(_ name: String, version: Int32) throws -> Data {
        var bytes = try [UInt8](Data(contentsOf: singleOps.appendingPathComponent(name).appendingPathComponent("model.tflite")))
        let model = try Model(data: Data(bytes))
        #expect(model.operatorCodes.count == 1)
        // The version field is stored when it is not the default 1 (the case's version is 2): find the
        // int32 that, patched, changes the operator code's version when the model is read back.
        let original = Int32(model.operatorCodes[0].version)
        var patched = false
        for offset in stride(from: 0, to: bytes.count - 4, by: 4) {
            let value = bytes[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
            guard value == original else { continue }
            var copy = bytes
            withUnsafeBytes(of: version.littleEndian) { for (i, b) in $0.enumerated() { copy[offset + i] = b } }
            if let m = try? Model(data: Data(copy)), m.operatorCodes[0].version == Int(version),
                m.operatorCodes[0].builtin == model.operatorCodes[0].builtin
            {
                bytes = copy
                patched = true
                break
            }
        }
        #expect(patched, "could not patch the version of \(name)")
        return Data(bytes)
    }

    @Test("an operator version LiteRT does not register is refused when the interpreter is created")
    func versionOutOfRange() throws {
        let data = try OperatorRegistryTests.model("equal_uint8", version: 9)
        #expect(throws: InterpreterError.self) { try Interpreter(modelData: data) }
        do {
            _ = try Interpreter(modelData: data)
        } catch {
            #expect("\(error)".contains("EQUAL version 9 is not supported (versions 1–5 are)"), "\(error)")
        }
        let ok = try OperatorRegistryTests.model("equal_uint8", version: 5)
        #expect(throws: Never.self) { try Interpreter(modelData: ok) }
    }

    /// A user kernel for a custom operator: y = x · scale + offset, with options from a FlexBuffer map.
    final class ScaleKernel: CustomOperatorKernel {
        let scale: Float
        init(scale: Float) { self.scale = scale }
        func prepare(_ context: CustomOperatorContext) throws {
            guard let x = try context.input(0), x.dataType == .float32 else { throw CustomError("input must be float32") }
            try context.setOutput(0, type: .float32, shape: x.shape)
        }
        func invoke(_ context: CustomOperatorContext) throws {
            let x = try #require(try context.input(0)).values(as: Float.self)
            try context.output(0).write(x.map { $0 * scale })
        }
    }

    struct CustomError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    /// The traffic model's custom op is TFLite_Detection_PostProcess; MediaPipe's selfie model uses
    /// Convolution2DTransposeBias. Here a single-operator model whose builtin code is turned into a
    /// custom one is not needed: the API is exercised by overriding a built-in custom operator.
    @Test(
        "a registered custom operator replaces the built-in one, and its errors name the node",
        .enabled(if: TestPaths.hasSharedModels, "needs ../shared/models beside the checkout"))
    func customOperatorOverride() throws {
        let path = TestPaths.sharedModel("mediapipe_selfie_segmentation_fp16.tflite")
        var resolver = OperatorResolver()
        let calls = Counter()
        resolver.addCustom(
            CustomOperator(name: "Convolution2DTransposeBias") { options in
                calls.made += 1
                // MediaPipe stores TfLiteTransposeConvParams raw (not a FlexBuffer): padding SAME (1),
                // stride 2 × 2, as the model's node 244 holds them (read with LiteRT's schema).
                #expect(options.data == Data([1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0]))
                return FailingKernel()
            })
        #expect(resolver.operators.contains { $0.name == "Convolution2DTransposeBias" && $0.kind == .custom })
        let interpreter = try Interpreter(modelPath: path, resolver: resolver)
        #expect(throws: InterpreterError.self) { try interpreter.allocateTensors() }
        #expect(calls.made > 0)
        do {
            try interpreter.allocateTensors()
        } catch {
            #expect("\(error)".contains("Convolution2DTransposeBias"), "\(error)")
            #expect("\(error)".contains("refused by the user's kernel"), "\(error)")
        }
    }

    final class Counter: @unchecked Sendable { var made = 0 }

    /// A kernel for the fixture's `ScaleBy`: y = x · scale + offset, options from its FlexBuffer map.
    final class ScaleByKernel: CustomOperatorKernel {
        let scale: Float
        let offset: Float
        init(_ options: CustomOperatorOptions) throws {
            guard let scale = try options.double("scale"), let offset = try options.double("offset") else {
                throw CustomError("ScaleBy needs scale and offset")
            }
            self.scale = Float(scale)
            self.offset = Float(offset)
            #expect(try options.string("name") == "demo")
            #expect(try options.ints("axes") == [0, 1])
            #expect(try options.int("missing") == nil)
        }
        func prepare(_ context: CustomOperatorContext) throws {
            guard let x = try context.input(0), x.dataType == .float32 else { throw CustomError("input must be float32") }
            try context.setOutput(0, type: .float32, shape: x.shape)
        }
        func invoke(_ context: CustomOperatorContext) throws {
            let x = try #require(try context.input(0)).values(as: Float.self)
            #expect(throws: (any Error).self) { try context.input(0)?.write(x) }  // inputs are read-only
            try context.output(0).write(x.map { $0 * scale + offset })
        }
    }

    static let scaleBy = TestPaths.packageRoot.appendingPathComponent(
        "Tests/TFLiteRuntimeTests/Fixtures/custom_api/scale_by.tflite").path

    @Test("a model with an unknown custom operator runs once its kernel is registered")
    func registeredCustomOperatorRuns() throws {
        #expect(throws: InterpreterError.self) { try Interpreter(modelPath: OperatorRegistryTests.scaleBy) }
        var resolver = OperatorResolver()
        resolver.addCustom(CustomOperator(name: "ScaleBy") { try ScaleByKernel($0) })
        let interpreter = try Interpreter(modelPath: OperatorRegistryTests.scaleBy, options: .init(threadCount: 2), resolver: resolver)
        try interpreter.allocateTensors()
        let x: [Float] = [1, -2, 0.5, 4, 0, -1]
        try interpreter.copy(Data(x.withUnsafeBytes { Array($0) }), toInputAt: 0)
        try interpreter.invoke()
        let y = try interpreter.output(at: 0).data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(y == x.map { $0 * 2.5 + 1 })
        #expect(resolver.operators.contains { $0.name == "ScaleBy" && $0.kind == .custom && $0.versions == [1] })
    }

    final class FailingKernel: CustomOperatorKernel {
        func prepare(_ context: CustomOperatorContext) throws { throw CustomError("refused by the user's kernel") }
        func invoke(_ context: CustomOperatorContext) throws {}
    }

    @Test(
        "a custom operator version outside the registered range is refused at creation",
        .enabled(if: TestPaths.hasSharedModels, "needs ../shared/models beside the checkout"))
    func customVersion() throws {
        var resolver = OperatorResolver()
        resolver.addCustom(CustomOperator(name: "Convolution2DTransposeBias", versions: 2...3) { _ in FailingKernel() })
        let path = TestPaths.sharedModel("mediapipe_selfie_segmentation_fp16.tflite")
        #expect(throws: InterpreterError.self) { try Interpreter(modelPath: path, resolver: resolver) }
    }
}

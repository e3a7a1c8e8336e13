import Foundation
import Testing

@testable import TFLiteRuntime
import NumPyFiles

/// Runs every committed fixture model and compares with the outputs LiteRT computed for it.
///
/// The fixtures and their goldens are made by `tools/make_fixtures.py` (TensorFlow's converter and
/// LiteRT's reference kernels). Tolerance: max |ours − LiteRT| ≤ 1e-4 × max(1, max |LiteRT|).
@Suite("Parity with LiteRT on committed fixtures")
struct FixtureParityTests {
    struct Manifest: Decodable {
        struct Case: Decodable {
            let name: String
            let ops: [String]
            let inputs: Int
            let outputs: Int
            let tolerance: Double?
        }
        let cases: [Case]
    }

    static func manifest() throws -> Manifest {
        let url = TestPaths.opFixtures.appendingPathComponent("manifest.json")
        return try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: url))
    }

    static var caseNames: [String] { (try? manifest().cases.map(\.name)) ?? [] }

    @Test("manifest lists fixtures")
    func manifestPresent() throws {
        #expect(try FixtureParityTests.manifest().cases.count > 0)
    }

    @Test("matches LiteRT", arguments: FixtureParityTests.caseNames)
    func matchesLiteRT(_ name: String) throws {
        let entry = try #require(try FixtureParityTests.manifest().cases.first { $0.name == name })
        for threads in [1, 2] {
            try FixtureParityTests.check(entry, threads: threads)
        }
    }

    /// Float fixtures whose every output is bit-identical to LiteRT's builtin kernels: CONV_2D,
    /// FULLY_CONNECTED and DEPTHWISE_CONV_2D follow its summation order and rounding
    /// (`GemmSummationOrder`, products rounded before they are added), which a dynamic-range layer
    /// downstream needs (it quantizes its float input, turning an ulp into a quantum). LOGISTIC, TANH,
    /// SOFTMAX and LOG_SOFTMAX follow Eigen's packet and scalar formulas as LiteRT's x86 build runs them
    /// (`LiteRTActivation`). The rest are exact because their arithmetic is a single rounding or none.
    static let bitExact = [
        "conv2d", "conv2d_dilated", "depthwise_conv2d", "fully_connected", "small_cnn", "mobilenet_v2",
        "batch_matmul", "pooling", "reductions", "binary_arith", "resize",
        "activations", "softmax", "fp16_weights", "q_float_edges", "binary_fused", "minmax_sqdiff", "prelu",
        "unary_math", "reshape_squeeze_expand", "concat_pack_unpack", "split", "slice", "gather", "transpose",
        "pad", "space_depth", "space_batch", "shape_fill", "cast",
    ]

    @Test("bit-identical to LiteRT", arguments: FixtureParityTests.bitExact)
    func bitIdentical(_ name: String) throws {
        let entry = try #require(try FixtureParityTests.manifest().cases.first { $0.name == name })
        for threads in [1, 2] {
            try FixtureParityTests.check(entry, threads: threads, exact: true)
        }
    }

    static func check(_ entry: Manifest.Case, threads: Int, exact: Bool = false) throws {
        let folder = TestPaths.opFixtures.appendingPathComponent(entry.name)
        let interpreter = try Interpreter(
            modelPath: folder.appendingPathComponent("model.tflite").path, options: .init(threadCount: threads))
        #expect(interpreter.inputTensorCount == entry.inputs)
        #expect(interpreter.outputTensorCount == entry.outputs)
        var inputs = [NumPyArray]()
        for i in 0..<entry.inputs {
            let array = try NumPyArray(contentsOf: folder.appendingPathComponent("input_\(i).npy"))
            if try interpreter.input(at: i).shape.dimensions != array.shape {
                try interpreter.resizeInput(at: i, to: Tensor.Shape(array.shape))
            }
            inputs.append(array)
        }
        try interpreter.allocateTensors()
        for (i, array) in inputs.enumerated() { try interpreter.copy(array.data, toInputAt: i) }
        try interpreter.invoke()
        for o in 0..<entry.outputs {
            let expected = try NumPyArray(contentsOf: folder.appendingPathComponent("output_\(o).npy"))
            let actual = NumPyArray(try interpreter.output(at: o))
            #expect(actual.type == expected.type, "\(entry.name) output \(o) type")
            #expect(actual.shape == expected.shape, "\(entry.name) output \(o) shape")
            let a = actual.doubleValues()
            let e = expected.doubleValues()
            guard a.count == e.count else { continue }
            let scale = max(1, e.map(abs).max() ?? 0)
            let diff = maxAbsDifference(a, e)
            let tolerance = exact ? 0 : (entry.tolerance ?? 1e-4) * scale
            #expect(diff <= tolerance, "\(entry.name) output \(o), \(threads) thread(s): max diff \(diff) > \(tolerance)")
        }
    }
}

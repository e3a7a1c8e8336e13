import Foundation
import Testing

@testable import TFLiteRuntime
import NumPyFiles

/// RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL and MULTINOMIAL beyond single invokes
/// (`tools/make_random_fixtures.py`): seeded models follow LiteRT invoke after invoke; unseeded ones
/// (seeds 0 and 0, where LiteRT draws fresh seeds and nothing can be compared) are checked for
/// shape, range and distribution only.
@Suite("Random operators")
struct RandomOperatorTests {
    static let folder = TestPaths.packageRoot.appendingPathComponent("Tests/TFLiteRuntimeTests/Fixtures/random_ops")

    static func interpreter(_ name: String) throws -> Interpreter {
        let interpreter = try Interpreter(modelPath: folder.appendingPathComponent("\(name).tflite").path)
        try interpreter.allocateTensors()
        return interpreter
    }

    @Test("seeded models match LiteRT on three invokes in a row", arguments: ["uniform", "normal", "multinomial"])
    func seededSequence(name: String) throws {
        let interpreter = try RandomOperatorTests.interpreter("seeded_\(name)")
        for k in 0..<3 {
            try interpreter.invoke()
            let expected = try NumPyArray(
                contentsOf: RandomOperatorTests.folder.appendingPathComponent("seeded_\(name)_invoke\(k).npy"))
            let actual = NumPyArray(try interpreter.output(at: 0))
            #expect(actual.shape == expected.shape)
            if name == "multinomial" {
                #expect(actual.data == expected.data, "invoke \(k)")
            } else {
                let diff = zip(actual.doubleValues(), expected.doubleValues()).map { abs($0 - $1) }.max() ?? 0
                #expect(diff <= 1e-5, "invoke \(k): max diff \(diff)")
            }
        }
    }

    @Test("unseeded RANDOM_UNIFORM: shape, [0, 1) and a uniform mean and variance")
    func unseededUniform() throws {
        let a = try RandomOperatorTests.run("unseeded_uniform")
        let b = try RandomOperatorTests.run("unseeded_uniform")
        #expect(a.shape == [100, 50])
        let values = a.doubleValues()
        #expect(values.allSatisfy { $0 >= 0 && $0 < 1 })
        let (mean, variance) = RandomOperatorTests.moments(values)
        #expect(abs(mean - 0.5) < 0.02, "mean \(mean)")
        #expect(abs(variance - 1.0 / 12) < 0.01, "variance \(variance)")
        #expect(a.data != b.data, "two interpreters drew the same numbers")
    }

    @Test("unseeded RANDOM_STANDARD_NORMAL: shape, finite values, mean 0 and variance 1")
    func unseededNormal() throws {
        let a = try RandomOperatorTests.run("unseeded_normal")
        let b = try RandomOperatorTests.run("unseeded_normal")
        #expect(a.shape == [100, 51])
        let values = a.doubleValues()
        #expect(values.allSatisfy { $0.isFinite && abs($0) < 8 })
        let (mean, variance) = RandomOperatorTests.moments(values)
        #expect(abs(mean) < 0.06, "mean \(mean)")
        #expect(abs(variance - 1) < 0.08, "variance \(variance)")
        #expect(a.data != b.data, "two interpreters drew the same numbers")
    }

    @Test("unseeded MULTINOMIAL: shape, class range and frequencies near softmax(logits)")
    func unseededMultinomial() throws {
        let a = try RandomOperatorTests.run("unseeded_multinomial")
        #expect(a.shape == [2, 4000])
        let values = a.doubleValues().map(Int.init)
        #expect(values.allSatisfy { (0..<4).contains($0) })
        let logits: [[Double]] = [[0, 1, 2, 3], [0, 0, 0, 0]]
        for row in 0..<2 {
            let exps = logits[row].map { exp($0) }
            let total = exps.reduce(0, +)
            let drawn = values[(row * 4000)..<((row + 1) * 4000)]
            for c in 0..<4 {
                let frequency = Double(drawn.filter { $0 == c }.count) / 4000
                #expect(abs(frequency - exps[c] / total) < 0.035, "row \(row) class \(c): \(frequency)")
            }
        }
    }

    static func run(_ name: String) throws -> NumPyArray {
        let interpreter = try interpreter(name)
        try interpreter.invoke()
        return NumPyArray(try interpreter.output(at: 0))
    }

    static func moments(_ values: [Double]) -> (Double, Double) {
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)
        return (mean, variance)
    }
}

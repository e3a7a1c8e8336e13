import Foundation
import Testing

@testable import TFLiteRuntime

/// Truncated, random and bit-flipped model files must produce an error, never a crash.
@Suite("Corrupt model files")
struct CorruptModelTests {
    /// Tensor memory above which a damaged model is allocated but not run. A flipped bit in a shape
    /// can make a structurally valid model with a 2^24-image batch (seen: an AVERAGE_POOL_2D input of
    /// [16777217, 3, 3, 4], 3.4 GB of tensors); LiteRT would run it too, for minutes. What this suite
    /// checks is that damage never crashes, which allocation already exercises for such shapes.
    static let runnableArenaBytes = 256 << 20

    /// Loads `data` and, when it verifies, allocates and runs it on zero inputs. Returns whether it ran.
    @discardableResult
    static func exercise(_ data: Data) -> Bool {
        guard let interpreter = try? Interpreter(modelData: data) else { return false }
        guard (try? interpreter.allocateTensors()) != nil else { return false }
        guard interpreter.executor.arenaSize <= runnableArenaBytes else { return true }
        // A flipped bit can also make a WHILE loop run for ever (a condition that stays true):
        // LiteRT would spin too; here the caller's deadline stops it (Interpreter.cancel()).
        let deadline = DispatchWorkItem { interpreter.cancel() }
        // On a queue of its own: DispatchQueue.global() shares its few threads (one per CPU on
        // Linux) with the tests themselves, and two tests blocked in endless loops starved the
        // deadline of a thread to run on (CI hung on a 2-CPU machine).
        DispatchQueue(label: "corrupt-model deadline").asyncAfter(deadline: .now() + 2, execute: deadline)
        defer { deadline.cancel() }
        return (try? interpreter.invoke()) != nil
    }

    static var smallModels: [String] {
        ["tflite_support_dilated_conv_metadata.tflite", "stop_sign_int8.tflite",
         "ssd_mobilenet_v1_coco_postprocess_head_layers.tflite", "keras_lstm_mnist_ptq.tflite"]
    }

    static func fixtureModels() -> [Data] {
        let root = TestPaths.opFixtures
        let cases = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return cases.sorted().compactMap { name in
            let url = root.appendingPathComponent(name).appendingPathComponent("model.tflite")
            guard let data = try? Data(contentsOf: url), data.count < 200_000 else { return nil }
            return data
        }
    }

    static func sources() -> [Data] {
        var models = fixtureModels()
        if TestPaths.hasSharedModels {
            models += smallModels.compactMap { try? Data(contentsOf: URL(fileURLWithPath: TestPaths.sharedModel($0))) }
        }
        return models
    }

    @Test("truncated copies throw")
    func truncated() throws {
        let models = CorruptModelTests.sources()
        try #require(!models.isEmpty, "no fixture or shared models found")
        for model in models {
            var lengths = Set([0, 1, 4, 7, 8, 12, 16, 31, 64, 100, 256, model.count / 3, model.count / 2, model.count - 1])
            for k in 1...8 { lengths.insert(model.count * k / 9) }
            for n in lengths where n < model.count {
                // A prefix may by chance still be a valid model (trailing data unused); it must never crash.
                CorruptModelTests.exercise(model.prefix(n))
            }
            #expect(throws: (any Error).self) { try Model(data: model.prefix(12)) }
        }
    }

    @Test("random bytes throw")
    func randomBytes() {
        var rng = SplitMix64(seed: 7)
        for size in [8, 16, 100, 1000, 10_000] {
            for _ in 0..<20 {
                var bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
                if Bool.random(using: &rng) {
                    // Give half of them the right identifier so the verifier gets past the header.
                    bytes[4] = 0x54; bytes[5] = 0x46; bytes[6] = 0x4C; bytes[7] = 0x33
                }
                let data = Data(bytes)
                #expect((try? Model(data: data)) == nil, "random bytes verified as a model")
                CorruptModelTests.exercise(data)
            }
        }
    }

    @Test("bit-flipped copies of real models never crash")
    func bitFlips() throws {
        let models = CorruptModelTests.sources()
        try #require(!models.isEmpty, "no fixture or shared models found")
        // OPENMLKIT_FUZZ_ROUNDS=N runs N times as many trials with other seeds (a longer local hunt).
        let rounds = Int(ProcessInfo.processInfo.environment["OPENMLKIT_FUZZ_ROUNDS"] ?? "") ?? 1
        var rng = SplitMix64(seed: 42 &+ UInt64(max(rounds, 1) - 1) &* 7919)
        var rejected = 0
        var total = 0
        for model in models {
            // Flips concentrated in the FlatBuffer structure (the start and the end of the file, where
            // tables and vtables live) as well as anywhere.
            for trial in 0..<(60 * max(rounds, 1)) {
                var bytes = [UInt8](model)
                for _ in 0..<(1 + trial % 4) {
                    let region = Int.random(in: 0..<3, using: &rng)
                    let position: Int
                    switch region {
                    case 0: position = Int.random(in: 0..<min(bytes.count, 512), using: &rng)
                    case 1: position = Int.random(in: max(0, bytes.count - 4096)..<bytes.count, using: &rng)
                    default: position = Int.random(in: 0..<bytes.count, using: &rng)
                    }
                    bytes[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
                }
                total += 1
                if !CorruptModelTests.exercise(Data(bytes)) { rejected += 1 }
            }
        }
        // Most structural flips are caught; the rest ran to completion without crashing.
        #expect(total > 0)
        #expect(rejected > 0)
    }

    /// One single-operator model per operator (the first case LiteRT runs), every control-flow
    /// model and every custom-operator case: the kernels added for every operator meet damaged
    /// options, shapes and constants here.
    static func operatorModels() -> [(String, Data)] {
        var seen = Set<String>()
        var models = [(String, Data)]()
        for entry in SingleOperatorTests.runnable where !seen.contains(entry.op) {
            seen.insert(entry.op)
            let url = SingleOperatorTests.folder.appendingPathComponent(entry.name).appendingPathComponent("model.tflite")
            if let data = try? Data(contentsOf: url) { models.append((entry.name, data)) }
        }
        for folder in ["control_flow", "custom_ops"] {
            let root = TestPaths.packageRoot.appendingPathComponent("Tests/TFLiteRuntimeTests/Fixtures/\(folder)")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
            for name in names.sorted() {
                let url = root.appendingPathComponent(name).appendingPathComponent("model.tflite")
                if let data = try? Data(contentsOf: url) { models.append((name, data)) }
            }
        }
        return models
    }

    @Test("bit-flipped and truncated single-operator, control-flow and custom-operator models never crash")
    func operatorModelFlips() throws {
        let models = CorruptModelTests.operatorModels()
        try #require(models.count > 150, "single-operator fixtures missing")
        let rounds = Int(ProcessInfo.processInfo.environment["OPENMLKIT_FUZZ_ROUNDS"] ?? "") ?? 1
        var rng = SplitMix64(seed: 2026 &+ UInt64(max(rounds, 1) - 1) &* 7919)
        var total = 0
        var slowest = (name: "", seconds: 0.0)
        for (name, model) in models {
            let start = Date()
            defer {
                let seconds = Date().timeIntervalSince(start)
                if seconds > slowest.seconds { slowest = (name, seconds) }
            }
            for n in [model.count / 2, model.count * 3 / 4, model.count - 1] { CorruptModelTests.exercise(model.prefix(n)) }
            for trial in 0..<(6 * max(rounds, 1)) {
                var bytes = [UInt8](model)
                for _ in 0..<(1 + trial % 3) {
                    let position = Int.random(in: 0..<bytes.count, using: &rng)
                    bytes[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
                }
                total += 1
                CorruptModelTests.exercise(Data(bytes))
            }
        }
        print("corrupt operator models: \(total) damaged copies of \(models.count) models, none crashed; slowest \(slowest.name)")
        #expect(total == models.count * 6 * max(rounds, 1))
    }
}

import Foundation
import Testing

@testable import TFLiteRuntime

/// Locations of test inputs: committed fixtures, and the shared real models and photos beside the checkout.
enum TestPaths {
    /// The package root (two folders above this file's folder).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/models` next to the checkout.
    static let sharedModels = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/models")

    static var hasSharedModels: Bool {
        FileManager.default.fileExists(atPath: sharedModels.appendingPathComponent("SOURCES.md").path)
    }

    /// The op fixtures made by `tools/make_fixtures.py`.
    static let opFixtures = packageRoot.appendingPathComponent("Tests/TFLiteRuntimeTests/Fixtures/ops")

    static func sharedModel(_ name: String) -> String { sharedModels.appendingPathComponent(name).path }

    /// Every `.tflite` file in `../shared/models`, sorted.
    static var allSharedModels: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sharedModels.path)) ?? []
        return names.filter { $0.hasSuffix(".tflite") }.sorted()
    }
}

/// A small deterministic generator, so failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Largest |a - b| over two equally long sequences.
func maxAbsDifference(_ a: [Double], _ b: [Double]) -> Double {
    zip(a, b).map { abs($0 - $1) }.max() ?? 0
}

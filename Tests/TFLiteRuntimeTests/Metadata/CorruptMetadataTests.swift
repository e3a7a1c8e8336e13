import Foundation
import Testing

@testable import TFLiteRuntime

/// Bit flips and truncations in the metadata buffer and the zip archive give `MetadataError`, never a crash.
@Suite("Corrupt metadata", .enabled(if: TestPaths.hasSharedModels, "../shared/models is not beside the checkout"))
struct CorruptMetadataTests {
    static let name = "mobilenet_v1_0.25_224_quant_metadata.tflite"

    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("The identifier is checked")
    func identifier() throws {
        let model = try Model(path: TestPaths.sharedModel(Self.name))
        var buffer = try #require(model.metadataBuffer(named: "TFLITE_METADATA"))
        _ = try ModelMetadata(flatBuffer: buffer)
        buffer[buffer.startIndex + 7] = UInt8(ascii: "2")
        #expect(throws: MetadataError.wrongIdentifier(found: "M002")) { try ModelMetadata(flatBuffer: buffer) }
        #expect(throws: MetadataError.self) { try ModelMetadata(flatBuffer: Data([1, 2, 3])) }
    }

    @Test("Bit-flipped and truncated metadata buffers throw MetadataError or parse")
    func flippedBuffer() throws {
        let model = try Model(path: TestPaths.sharedModel(Self.name))
        let original = [UInt8](try #require(model.metadataBuffer(named: "TFLITE_METADATA")))
        var rng = SplitMix(state: 42)
        var rejected = 0
        for round in 0..<2000 {
            var bytes = original
            if round % 4 == 0 {
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng)))
            } else {
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let i = Int.random(in: 0..<bytes.count, using: &rng)
                    bytes[i] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
                }
            }
            do { _ = try ModelMetadata(flatBuffer: Data(bytes)) } catch is MetadataError { rejected += 1 } catch {
                Issue.record("untyped error \(error)")
            }
        }
        #expect(rejected > 0)
    }

    @Test("Damaged zip archives throw MetadataError")
    func damagedArchive() throws {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.sharedModel(Self.name))))
        let files = try Model(data: Data(original)).associatedFiles()
        #expect(files.map(\.name) == ["labels.txt"])
        // Flip every byte position of the archive's last 1.5 KiB (central directory, end record, tail of the data).
        var rejected = 0
        for offset in (original.count - 1536)..<original.count {
            var bytes = original
            bytes[offset] ^= 0x5A
            guard let model = try? Model(data: Data(bytes)) else { continue }
            do {
                let read = try model.associatedFiles()
                // A flip in an unchecked field (times, attributes, comment) may pass; data must still match.
                if let entry = read.first { #expect(entry.data == files[0].data || read.map(\.name) != ["labels.txt"]) }
            } catch is MetadataError { rejected += 1 } catch { Issue.record("untyped error \(error)") }
        }
        #expect(rejected > 100)
    }
}

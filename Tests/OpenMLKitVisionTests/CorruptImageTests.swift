import Foundation
import Testing

@testable import OpenMLKitVision

/// Truncated and bit-flipped files must throw `VisionError` (or decode), never crash.
@Suite("Corrupt images")
struct CorruptImageTests {
    /// A deterministic generator so failures reproduce.
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

    static var rounds: Int { Int(ProcessInfo.processInfo.environment["OPENMLKIT_FUZZ_ROUNDS"] ?? "") ?? 150 }

    func fuzz(_ original: [UInt8], name: String) {
        var rng = SplitMix(state: UInt64(original.count))
        var thrown = 0
        // Every truncation point in the first 2 KiB, then a spread over the rest.
        var cuts = Array(0..<min(original.count, 2048))
        cuts += stride(from: 2048, to: original.count, by: max(1, original.count / 200))
        for cut in cuts {
            do { _ = try VisionImage(data: Data(original[..<cut])) } catch is VisionError { thrown += 1 } catch {
                Issue.record("\(name) cut at \(cut): untyped error \(error)")
            }
        }
        #expect(thrown >= cuts.count / 2, "\(name): most truncations must be rejected")
        for _ in 0..<Self.rounds {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                let i = Int.random(in: 0..<min(bytes.count, 4096), using: &rng)
                bytes[i] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
            }
            do { _ = try VisionImage(data: Data(bytes)) } catch is VisionError {} catch {
                Issue.record("\(name): untyped error \(error)")
            }
        }
    }

    @Test("Truncated and bit-flipped JPEG, PNG and BMP files throw typed errors")
    func fuzzCodecs() throws {
        let (w, h) = (40, 24)
        let rgb = TestImages.blockImage(width: w, height: h)
        fuzz([UInt8](try PNGEncoder.encode(rgb: rgb, width: w, height: h)), name: "PNG")
        fuzz(TestImages.bmp(rgb: rgb, width: w, height: h), name: "BMP")
        let jpegURL = TestImages.images.appendingPathComponent("tulips.jpeg")
        if let jpeg = try? Data(contentsOf: jpegURL) {
            fuzz([UInt8](jpeg), name: "JPEG")
            fuzz(TestImages.jpeg([UInt8](jpeg), withEXIFOrientation: 6, bigEndian: true), name: "JPEG+EXIF")
        } else {
            Issue.record("skipping the JPEG fuzz: ../shared/images/tulips.jpeg is not beside the checkout")
        }
    }

    @Test("Hostile BMP headers are rejected with a reason")
    func hostileBMP() throws {
        var bmp = TestImages.bmp(rgb: TestImages.blockImage(width: 4, height: 4), width: 4, height: 4)
        bmp[18] = 0xFF
        bmp[19] = 0xFF
        bmp[20] = 0xFF
        bmp[21] = 0x7F  // width 2^31-1
        #expect(throws: VisionError.self) { try VisionImage(data: Data(bmp)) }
        var palette = TestImages.bmp(rgb: TestImages.blockImage(width: 4, height: 4), width: 4, height: 4)
        palette[28] = 8  // claims 8-bit with a palette that is not there
        #expect(throws: VisionError.self) { try VisionImage(data: Data(palette)) }
    }

    @Test("Headers claiming huge images are rejected before decoding")
    func hugeHeaders() throws {
        // PNG: patch IHDR to 30000x30000 and fix its CRC so that only the size is wrong.
        var png = [UInt8](try PNGEncoder.encode(rgb: TestImages.blockImage(width: 4, height: 4), width: 4, height: 4))
        for (offset, value) in [(16, 30000), (20, 30000)] {
            for i in 0..<4 { png[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) }
        }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in png[12..<29] {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        for i in 0..<4 { png[29 + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(i))) }
        #expect(throws: VisionError.self) { try VisionImage(data: Data(png)) }

        // JPEG: patch the frame header (SOF0/SOF2) to 30000x30000.
        guard let jpeg = try? Data(contentsOf: TestImages.images.appendingPathComponent("tulips.jpeg")) else {
            Issue.record("skipping the JPEG part: ../shared/images/tulips.jpeg is not beside the checkout")
            return
        }
        var bytes = [UInt8](jpeg)
        let sof = try #require(
            (2..<(bytes.count - 9)).first { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) })
        for offset in [sof + 5, sof + 7] { (bytes[offset], bytes[offset + 1]) = (0x75, 0x30) }
        #expect(throws: VisionError.self) { try VisionImage(data: Data(bytes)) }
    }

    #if !canImport(ImageIO)
    @Test("GIF, TIFF, WebP, HEIC and AVIF files are refused with the format's name; unknown bytes with their first four")
    func otherFormatsNamed() throws {
        func header(_ text: String, at offset: Int = 0, prefix: [UInt8] = []) -> Data {
            var bytes = prefix + [UInt8](repeating: 0, count: max(0, offset - prefix.count)) + Array(text.utf8)
            bytes += [UInt8](repeating: 0, count: 32)
            return Data(bytes)
        }
        let cases: [(Data, String)] = [
            (header("GIF89a"), "GIF"),
            (Data([0x49, 0x49, 0x2A, 0x00] + [UInt8](repeating: 0, count: 16)), "TIFF"),
            (Data([0x4D, 0x4D, 0x00, 0x2A] + [UInt8](repeating: 0, count: 16)), "TIFF"),
            (header("WEBPVP8 ", at: 8, prefix: Array("RIFF".utf8)), "WebP"),
            (header("ftypheic", at: 4), "HEIC"),
            (header("ftypmif1", at: 4), "HEIF"),
            (header("ftypavif", at: 4), "AVIF"),
        ]
        for (data, name) in cases {
            do {
                _ = try VisionImage(data: data)
                Issue.record("\(name) decoded")
            } catch VisionError.unsupportedFormat(let detail) {
                #expect(detail.hasPrefix("\(name) is not decoded here"), "\(detail)")
            }
        }
        do {
            _ = try VisionImage(data: Data([0x01, 0x02, 0x03, 0x04, 0x05]))
            Issue.record("unknown bytes decoded")
        } catch VisionError.unsupportedFormat(let detail) {
            #expect(detail == "not JPEG, PNG or BMP (starts with 1 2 3 4)", "\(detail)")
        }
    }
    #endif
}

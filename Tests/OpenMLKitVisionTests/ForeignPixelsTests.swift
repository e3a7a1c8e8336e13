import Foundation
import Testing

@testable import OpenMLKitVision

/// The portable half of the Apple camera path: copying planes out of memory the caller owns
/// (what `PixelBuffer(copying: CVPixelBuffer)` does after locking the buffer) and the Core Video
/// format table. The Apple-only half cannot run here.
@Suite("Pixels copied from caller-owned memory")
struct ForeignPixelsTests {
    /// A 5×3 NV12 frame with padded rows (stride 8 in both planes), as a camera delivers it.
    @Test("NV12 with padded rows: rows copied tight, padding dropped, same pixels as a packed buffer")
    func paddedNV12() throws {
        let width = 5
        let height = 3
        let stride = 8
        let luma = (0..<stride * height).map { UInt8(truncatingIfNeeded: $0 * 3 + 1) }
        let chroma = (0..<stride * 2).map { UInt8(truncatingIfNeeded: 200 - $0) }
        let copied = try luma.withUnsafeBytes { y in
            try chroma.withUnsafeBytes { uv in
                try PixelBuffer(
                    copyingPlanes: [y, uv], bytesPerRow: [stride, stride], width: width, height: height, format: .nv12,
                    yuvRange: .video)
            }
        }
        let expectedLuma = (0..<height).flatMap { row in luma[row * stride..<row * stride + width] }
        let expectedChroma = (0..<2).flatMap { row in chroma[row * stride..<row * stride + 6] }
        #expect(copied.bytes == expectedLuma + expectedChroma)
        #expect(copied.planes == [.init(offset: 0, bytesPerRow: 5), .init(offset: 15, bytesPerRow: 6)])
        #expect(copied.yuvRange == .video)
        // The same bytes as a buffer built packed from the start.
        let packed = try PixelBuffer(bytes: expectedLuma + expectedChroma, width: width, height: height, format: .nv12)
        #expect(copied.bytes == packed.bytes)
    }

    @Test("BGRA whose last row has no padding (the plane ends at the last pixel)")
    func lastRowUnpadded() throws {
        let bytes = [UInt8](repeating: 7, count: 16 * 1 + 8)  // rows of 16 bytes apart, 2 pixels each
        let copied = try bytes.withUnsafeBytes {
            try PixelBuffer(copyingPlanes: [$0], bytesPerRow: [16], width: 2, height: 2, format: .bgra8)
        }
        #expect(copied.bytes.count == 16)
    }

    @Test("Short planes, short strides and wrong plane counts are errors, not reads past the end")
    func rejectsBadLayouts() throws {
        let bytes = [UInt8](repeating: 0, count: 64)
        bytes.withUnsafeBytes { raw in
            let short = UnsafeRawBufferPointer(rebasing: raw[0..<31])
            #expect(throws: VisionError.self) {
                // 4 rows 8 apart need 3·8 + 8 = 32 bytes.
                try PixelBuffer(copyingPlanes: [short], bytesPerRow: [8], width: 8, height: 4, format: .gray8)
            }
            #expect(throws: VisionError.self) {
                try PixelBuffer(copyingPlanes: [raw], bytesPerRow: [7], width: 8, height: 4, format: .gray8)
            }
            #expect(throws: VisionError.self) {
                try PixelBuffer(copyingPlanes: [raw], bytesPerRow: [8], width: 4, height: 4, format: .nv12)
            }
            #expect(throws: VisionError.self) {
                try PixelBuffer(copyingPlanes: [raw], bytesPerRow: [Int.max], width: 1, height: 3, format: .gray8)
            }
            #expect(throws: VisionError.self) {
                try PixelBuffer(copyingPlanes: [raw], bytesPerRow: [8], width: 0, height: 4, format: .gray8)
            }
        }
        #expect(throws: VisionError.self) {
            try PixelBuffer(
                copyingPlanes: [UnsafeRawBufferPointer(start: nil, count: 0)], bytesPerRow: [4], width: 1, height: 1,
                format: .rgba8)
        }
    }

    @Test("Core Video pixel format codes map to layouts and ranges; others are refused")
    func coreVideoTable() {
        // The codes as CoreVideo/CVPixelBuffer.h spells them.
        let table: [(UInt32, PixelFormat, YUVRange)] = [
            (0x4247_5241, .bgra8, .full),  // 'BGRA' kCVPixelFormatType_32BGRA
            (0x5247_4241, .rgba8, .full),  // 'RGBA' kCVPixelFormatType_32RGBA
            (0x0000_0018, .rgb8, .full),  // kCVPixelFormatType_24RGB
            (0x4C30_3038, .gray8, .full),  // 'L008' kCVPixelFormatType_OneComponent8
            (0x3432_3066, .nv12, .full),  // '420f'
            (0x3432_3076, .nv12, .video),  // '420v'
            (0x6634_3230, .i420, .full),  // 'f420'
            (0x7934_3230, .i420, .video),  // 'y420'
        ]
        for (code, format, range) in table {
            let mapped = PixelFormat.coreVideo(code)
            #expect(mapped?.format == format && mapped?.range == range, "\(PixelFormat.describeCoreVideo(code))")
        }
        #expect(PixelFormat.coreVideo(0x20) == nil)  // kCVPixelFormatType_32ARGB: no such layout here
        #expect(PixelFormat.coreVideo(PixelFormat.fourCC("x420")) == nil)  // 10-bit
        #expect(PixelFormat.describeCoreVideo(0x3432_3066) == "'420f'")
        #expect(PixelFormat.describeCoreVideo(0x18) == "0x18")
    }
}

import Foundation
import Testing

@testable import OpenMLKitVision

@Suite("VisionImage decoding")
struct VisionImageTests {
    @Test("BMP written here decodes to the same pixels")
    func bmpRoundTrip() throws {
        for (w, h) in [(7, 5), (8, 6), (1, 1)] {
            let rgb = TestImages.blockImage(width: w, height: h).enumerated().map {
                UInt8(($0.offset * 7 + Int($0.element)) % 256)
            }
            let image = try VisionImage(data: Data(TestImages.bmp(rgb: rgb, width: w, height: h)))
            #expect(image.width == w && image.height == h)
            #expect(image.buffer.format == .rgb8)
            #expect(image.buffer.bytes == rgb)
        }
    }

    @Test("PNG encoded by libpng decodes to the same pixels as RGBA")
    func pngRoundTrip() throws {
        let (w, h) = (13, 9)
        let rgb = (0..<(w * h * 3)).map { UInt8(($0 * 37) % 251) }
        let image = try VisionImage(data: try PNGEncoder.encode(rgb: rgb, width: w, height: h))
        #expect(image.buffer.format == .rgba8)
        #expect(image.width == w && image.height == h)
        var expected = [UInt8]()
        for i in 0..<(w * h) { expected += rgb[(i * 3)..<(i * 3 + 3)] + [255] }
        #expect(image.buffer.bytes == expected)
    }

    @Test(
        "EXIF orientation in little- and big-endian TIFF headers is honoured",
        .enabled(if: TestImages.hasShared, "../shared/images is not beside the checkout"))
    func exifOrientation() throws {
        let jpeg = [UInt8](try Data(contentsOf: TestImages.images.appendingPathComponent("burger.jpg")))
        let plain = try VisionImage(data: Data(jpeg))
        #expect(plain.orientation == .up)
        for value in 1...8 {
            for bigEndian in [false, true] {
                let tagged = try VisionImage(
                    data: Data(TestImages.jpeg(jpeg, withEXIFOrientation: value, bigEndian: bigEndian)))
                #expect(tagged.orientation.exifValue == value)
                #expect(tagged.buffer.bytes == plain.buffer.bytes)
                let swapped = value >= 5
                #expect(tagged.width == (swapped ? plain.height : plain.width))
            }
        }
        // An out-of-range value or a truncated block leaves the image upright.
        let bad = TestImages.jpeg(jpeg, withEXIFOrientation: 9, bigEndian: false)
        #expect(try VisionImage(data: Data(bad)).orientation == .up)
    }

    @Test(
        "Shared photos decode with their published sizes",
        .enabled(if: TestImages.hasShared, "../shared/images is not beside the checkout"))
    func sharedPhotos() throws {
        let expected: [(String, Int, Int, PixelFormat)] = [
            ("bird.jpg", 2000, 1508, .rgb8), ("sparrow.png", 1280, 851, .rgba8), ("grace_hopper.bmp", 512, 600, .rgb8),
            ("squat.bmp", 500, 610, .rgb8), ("parrot.jpg", 512, 929, .rgb8),
        ]
        for (name, w, h, format) in expected {
            let image = try VisionImage(contentsOfFile: TestImages.images.appendingPathComponent(name).path)
            #expect(image.width == w && image.height == h, "\(name)")
            #expect(image.buffer.format == format, "\(name)")
        }
        let bmp = try VisionImage(contentsOfFile: TestImages.images.appendingPathComponent("grace_hopper.bmp").path)
        let jpg = try VisionImage(contentsOfFile: TestImages.images.appendingPathComponent("grace_hopper.jpg").path)
        // Same photo, different crops/encodings: the mean colour must be close (a channel-order bug would not be).
        func mean(_ b: PixelBuffer) -> [Double] {
            (0..<3).map { c in
                Double(stride(from: c, to: b.bytes.count, by: 3).reduce(0) { $0 + Int(b.bytes[$1]) })
                    / Double(b.width * b.height)
            }
        }
        for (a, b) in zip(mean(bmp.buffer), mean(jpg.buffer)) { #expect(abs(a - b) < 12) }
    }

    @Test("Missing files, empty data and unknown formats throw VisionError")
    func unreadable() throws {
        #expect(throws: VisionError.self) { try VisionImage(contentsOfFile: "/nonexistent/x.jpg") }
        #expect(throws: VisionError.self) { try VisionImage(data: Data()) }
        #expect(throws: VisionError.self) { try VisionImage(data: Data("GIF89a.......".utf8)) }
        let error = VisionError.corruptImage(format: "PNG", detail: "PNG data is truncated")
        #expect(error.localizedDescription == "corrupt PNG image: PNG data is truncated")
    }

    @Test("Pixel buffers reject strides and sizes that do not fit")
    func bufferValidation() throws {
        #expect(throws: VisionError.self) {
            try PixelBuffer(bytes: [UInt8](repeating: 0, count: 11), width: 2, height: 2, format: .rgb8)
        }
        #expect(throws: VisionError.self) {
            try PixelBuffer(
                bytes: [UInt8](repeating: 0, count: 100), width: 4, height: 2, format: .rgb8, bytesPerRow: [8])
        }
        #expect(throws: VisionError.self) {
            try PixelBuffer(
                bytes: [UInt8](repeating: 0, count: 100), width: 4, height: 4, format: .nv12, bytesPerRow: [4])
        }
        #expect(throws: VisionError.self) {
            try PixelBuffer(bytes: [UInt8](repeating: 0, count: 23), width: 4, height: 4, format: .i420)
        }
        #expect(throws: VisionError.self) { try PixelBuffer(bytes: [], width: 0, height: 4, format: .gray8) }
        _ = try PixelBuffer(bytes: [UInt8](repeating: 0, count: 24), width: 4, height: 4, format: .i420)
        // The last row needs no padding beyond its pixels.
        _ = try PixelBuffer(
            bytes: [UInt8](repeating: 0, count: 10 + 6), width: 2, height: 2, format: .rgb8, bytesPerRow: [10])
    }

    @Test("VisionImage is a Sendable value: a copy's orientation is its own, and it crosses tasks as is")
    func valueSemantics() async throws {
        let buffer = try PixelBuffer(
            bytes: TestImages.blockImage(width: 6, height: 4), width: 6, height: 4, format: .rgb8)
        let original = VisionImage(buffer: buffer)
        var turned = original
        turned.orientation = .right
        #expect(original.orientation == .up && original.width == 6 && original.height == 4)
        #expect(turned.orientation == .right && turned.width == 4 && turned.height == 6)
        #expect(turned.buffer.bytes == original.buffer.bytes)
        // Compiles only because VisionImage is Sendable (no nonisolated(unsafe) needed).
        let size = await Task.detached { (turned.width, turned.height) }.value
        #expect(size.0 == 4 && size.1 == 6)
    }

    @Test("The device orientation helper matches ML Kit's guide, mirrored for the front camera")
    func deviceOrientation() {
        let table: [(DeviceOrientation, ImageOrientation, ImageOrientation)] = [
            (.portrait, .right, .leftMirrored), (.landscapeLeft, .up, .downMirrored),
            (.portraitUpsideDown, .left, .rightMirrored), (.landscapeRight, .down, .upMirrored),
            (.faceUp, .up, .up), (.faceDown, .up, .up), (.unknown, .up, .up),
        ]
        for (device, back, front) in table {
            #expect(ImageOrientation(deviceOrientation: device, cameraPosition: .back) == back)
            #expect(ImageOrientation(deviceOrientation: device, cameraPosition: .front) == front)
        }
        // Front-camera results are exactly the back-camera ones mirrored: same rotation class, one flip.
        for device in DeviceOrientation.allCases where ![.faceUp, .faceDown, .unknown].contains(device) {
            let back = ImageOrientation(deviceOrientation: device, cameraPosition: .back)
            let front = ImageOrientation(deviceOrientation: device, cameraPosition: .front)
            #expect(back.swapsDimensions == front.swapsDimensions)
        }
    }
}

@Suite("Codec variants")
struct CodecVariantTests {
    @Test(
        "Grey, progressive, subsampled JPEGs; palette, grey, alpha, 16-bit PNGs; 1/4/8/24/32-bit BMPs decode as Pillow does"
    )
    func variants() throws {
        for (name, file, rgb) in CodecFixtures.cases {
            let data = try #require(Data(base64Encoded: file), "\(name)")
            guard let rgb else {
                #expect(throws: VisionError.self, "\(name) must be rejected") { try VisionImage(data: data) }
                continue
            }
            var image = try VisionImage(data: data)
            if name.contains("exif") {
                // The eXIf chunk says "rotate right"; compare the stored pixels.
                #expect(image.orientation == .right, "\(name)")
                image.orientation = .up
            }
            #expect(image.width == CodecFixtures.width && image.height == CodecFixtures.height, "\(name)")
            let format = try InputImageFormat(
                width: image.width, height: image.height, channels: 3, elementType: .uint8)
            let pixels = [UInt8](try ImagePreprocessor.data(for: image, format: format).data)
            #expect(pixels == [UInt8](try #require(Data(base64Encoded: rgb))), "\(name)")
        }
    }
}

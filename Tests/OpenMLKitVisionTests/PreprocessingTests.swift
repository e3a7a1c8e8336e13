import Foundation
import TFLiteRuntime
import Testing

@testable import OpenMLKitVision

@Suite("Pre-processing")
struct PreprocessingTests {
    static let width = 8, height = 6

    /// Preprocesses `image` at its own upright size (sample centres land on pixels: no interpolation).
    func identity(_ image: VisionImage, channels: Int = 3) throws -> [UInt8] {
        let format = try InputImageFormat(
            width: image.width, height: image.height, channels: channels, elementType: .uint8)
        return [UInt8](try ImagePreprocessor.data(for: image, format: format).data)
    }

    @Test(
        "Every orientation and pixel format round-trips to the upright image",
        arguments: PixelFormat.allCases)
    func roundTrip(format: PixelFormat) throws {
        let (w, h) = (Self.width, Self.height)
        let upright = TestImages.blockImage(width: w, height: h)
        let tolerance = [.nv12, .nv21, .i420].contains(format) ? 3 : 0
        for orientation in ImageOrientation.allCases {
            for padding in [0, 5] {
                let stored = TestImages.stored(upright, width: w, height: h, orientation: orientation)
                let buffer = try TestImages.buffer(
                    rgb: stored.pixels, width: stored.width, height: stored.height, format: format, padding: padding)
                let image = VisionImage(buffer: buffer, orientation: orientation)
                #expect(image.width == w && image.height == h)
                if format == .gray8 {
                    let out = try identity(image, channels: 1)
                    for i in 0..<(w * h) {
                        let luma =
                            0.299 * Float(upright[3 * i]) + 0.587 * Float(upright[3 * i + 1]) + 0.114
                            * Float(upright[3 * i + 2])
                        #expect(abs(Float(out[i]) - luma) <= 1, "\(orientation) pixel \(i)")
                    }
                    continue
                }
                let out = try identity(image)
                let worst = zip(out, upright).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(worst <= tolerance, "\(format) \(orientation) padding \(padding): worst difference \(worst)")
            }
        }
    }

    @Test("A box found in the model input maps back onto the same object for every orientation")
    func boxesMapBack() throws {
        let (w, h) = (90, 60)
        let object = CGRect(x: 52, y: 8, width: 20, height: 30)
        var upright = [UInt8](repeating: 20, count: w * h * 3)
        for y in Int(object.minY)..<Int(object.maxY) {
            for x in Int(object.minX)..<Int(object.maxX) { for c in 0..<3 { upright[(y * w + x) * 3 + c] = 230 } }
        }
        for orientation in ImageOrientation.allCases {
            let stored = TestImages.stored(upright, width: w, height: h, orientation: orientation)
            let image = VisionImage(
                buffer: try PixelBuffer(
                    bytes: stored.pixels, width: stored.width, height: stored.height, format: .rgb8),
                orientation: orientation)
            let format = try InputImageFormat(width: 45, height: 40, channels: 3, elementType: .uint8)
            let (data, mapping) = try ImagePreprocessor.data(for: image, format: format)
            // The "detector": the bounding box of bright input pixels, in normalised input coordinates.
            var (minX, minY, maxX, maxY) = (Int.max, Int.max, -1, -1)
            for v in 0..<40 {
                for u in 0..<45 where data[(v * 45 + u) * 3] > 125 {
                    (minX, minY, maxX, maxY) = (min(minX, u), min(minY, v), max(maxX, u + 1), max(maxY, v + 1))
                }
            }
            let box = mapping.imageRect(
                normalizedLeft: Double(minX) / 45, top: Double(minY) / 40, right: Double(maxX) / 45,
                bottom: Double(maxY) / 40)
            #expect(abs(box.minX - object.minX) <= 2 && abs(box.maxX - object.maxX) <= 2, "\(orientation): \(box)")
            #expect(abs(box.minY - object.minY) <= 2 && abs(box.maxY - object.maxY) <= 2, "\(orientation): \(box)")
        }
    }

    @Test("Bilinear scaling: a horizontal ramp stays a ramp; halving averages pixel pairs")
    func bilinear() throws {
        let (w, h) = (16, 4)
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h { for x in 0..<w { for c in 0..<3 { rgb[(y * w + x) * 3 + c] = UInt8(x * 10 + c) } } }
        let image = VisionImage(buffer: try PixelBuffer(bytes: rgb, width: w, height: h, format: .rgb8))
        let format = try InputImageFormat(width: 8, height: 2, channels: 3, elementType: .uint8)
        let out = [UInt8](try ImagePreprocessor.data(for: image, format: format, resizeMethod: .bilinear).data)
        for u in 0..<8 {
            // Output centre u maps to source x = 2u + 0.5: the mean of pixels 2u and 2u+1, rounded half up.
            #expect(out[u * 3] == UInt8(((Float(20 * u) + Float(20 * u + 10)) / 2 + 0.5).rounded(.down)))
        }
    }

    @Test("Float inputs are normalised with mean/std; int8 inputs are quantized or shifted by 128")
    func normalisation() throws {
        let rgb: [UInt8] = [0, 128, 255, 10, 20, 30]
        let image = VisionImage(buffer: try PixelBuffer(bytes: rgb, width: 2, height: 1, format: .rgb8))
        let float = try InputImageFormat(
            width: 2, height: 1, channels: 3, elementType: .float32,
            normalization: NormalizationOptions(mean: [0, 128, 255], std: [255, 2, 1]))
        let floats = try ImagePreprocessor.data(for: image, format: float).data.withUnsafeBytes {
            Array($0.bindMemory(to: Float.self))
        }
        #expect(floats == [0, 0, 0, 10.0 / 255, -54, -225])
        let plainFloat = try InputImageFormat(width: 2, height: 1, channels: 3, elementType: .float32)
        let defaults = try ImagePreprocessor.data(for: image, format: plainFloat).data.withUnsafeBytes {
            Array($0.bindMemory(to: Float.self))
        }
        #expect(defaults[0] == -1 && defaults[2] == 1)
        let int8 = try InputImageFormat(width: 2, height: 1, channels: 3, elementType: .int8)
        let shifted = [Int8](try ImagePreprocessor.data(for: image, format: int8).data.map { Int8(bitPattern: $0) })
        #expect(shifted == [-128, 0, 127, -118, -108, -98])
        let quantized = try InputImageFormat(
            width: 2, height: 1, channels: 3, elementType: .int8,
            normalization: NormalizationOptions(mean: [0], std: [255]),
            quantization: QuantizationParameters(scale: 1.0 / 255, zeroPoint: -128))
        let q = [Int8](try ImagePreprocessor.data(for: image, format: quantized).data.map { Int8(bitPattern: $0) })
        #expect(q == [-128, 0, 127, -118, -108, -98])
    }

    @Test("Crops and centre crops select the expected pixels; bad regions throw")
    func regions() throws {
        let (w, h) = (8, 6)
        let rgb = TestImages.blockImage(width: w, height: h)
        let image = VisionImage(buffer: try PixelBuffer(bytes: rgb, width: w, height: h, format: .rgb8))
        let format = try InputImageFormat(width: 4, height: 2, channels: 3, elementType: .uint8)
        let (crop, mapping) = try ImagePreprocessor.data(
            for: image, format: format, region: CGRect(x: 2, y: 2, width: 4, height: 2))
        for v in 0..<2 {
            for u in 0..<4 {
                for c in 0..<3 { #expect(crop[(v * 4 + u) * 3 + c] == rgb[((v + 2) * w + u + 2) * 3 + c]) }
            }
        }
        #expect(mapping.imagePoint(inputX: 4, inputY: 2) == CGPoint(x: 6, y: 4))
        let square = try InputImageFormat(width: 6, height: 6, channels: 3, elementType: .uint8)
        let centre = try ImagePreprocessor.data(for: image, format: square, scaleMode: .centerCrop).mapping
        #expect(centre.region == CGRect(x: 1, y: 0, width: 6, height: 6))
        #expect(throws: VisionError.self) {
            try ImagePreprocessor.data(for: image, format: format, region: CGRect(x: 6, y: 0, width: 4, height: 2))
        }
        #expect(throws: VisionError.self) {
            try ImagePreprocessor.data(for: image, format: format, region: CGRect(x: 0, y: 0, width: 0, height: 2))
        }
    }
}

@Suite("Letterbox")
struct LetterboxTests {
    @Test("Letterboxing keeps the aspect ratio, pads with black, and maps coordinates past the bars")
    func letterbox() throws {
        let (w, h) = (8, 4)
        let rgb = TestImages.blockImage(width: w, height: h)
        let format = try InputImageFormat(width: 8, height: 8, channels: 3, elementType: .uint8)
        for orientation in [ImageOrientation.up, .right, .leftMirrored] {
            let stored = TestImages.stored(rgb, width: w, height: h, orientation: orientation)
            let image = VisionImage(
                buffer: try PixelBuffer(
                    bytes: stored.pixels, width: stored.width, height: stored.height, format: .rgb8),
                orientation: orientation)
            let (data, mapping) = try ImagePreprocessor.data(for: image, format: format, scaleMode: .letterbox)
            let out = [UInt8](data)
            #expect(out[0..<(2 * 8 * 3)].allSatisfy { $0 == 0 } && out[(6 * 8 * 3)...].allSatisfy { $0 == 0 })
            #expect(Array(out[(2 * 8 * 3)..<(6 * 8 * 3)]) == rgb, "\(orientation)")
            #expect(mapping.imagePoint(inputX: 0, inputY: 2) == CGPoint(x: 0, y: 0))
            #expect(
                mapping.imageRect(normalizedLeft: 0, top: 0, right: 1, bottom: 1)
                    == CGRect(x: 0, y: 0, width: 8, height: 4))
        }
        let float = try InputImageFormat(width: 8, height: 8, channels: 3, elementType: .float32)
        let image = VisionImage(buffer: try PixelBuffer(bytes: rgb, width: w, height: h, format: .rgb8))
        let bars = try ImagePreprocessor.data(for: image, format: float, scaleMode: .letterbox).data
        #expect(bars.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0, as: Float.self) } == -1)
    }
}

@Suite("The guides' pixel loop")
struct GuideLoopTests {
    @Test("The documented replacement fills the input the way the guide meant (rows not swapped, whole photo)")
    func guideReplacement() throws {
        // A 224x224 photo stands in for the guide's CGImage: then the correct loop needs no scaling.
        let (w, h) = (224, 224)
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                (rgb[(y * w + x) * 3], rgb[(y * w + x) * 3 + 1], rgb[(y * w + x) * 3 + 2]) = (UInt8(x), UInt8(y), 7)
            }
        }
        let image = VisionImage(buffer: try PixelBuffer(bytes: rgb, width: w, height: h, format: .rgb8))
        let format = try InputImageFormat(
            width: 224, height: 224, channels: 3, elementType: .float32,
            normalization: NormalizationOptions(mean: [0], std: [255]))
        let floats = try ImagePreprocessor.data(for: image, format: format).data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) }
        }
        // The loop the guide meant: row-major, offset (row * width + col), red/green/blue over 255.
        var expected = [Float]()
        for row in 0..<224 {
            for col in 0..<224 { for c in 0..<3 { expected.append(Float(rgb[(row * w + col) * 3 + c]) / 255) } }
        }
        #expect(floats == expected)
    }
}

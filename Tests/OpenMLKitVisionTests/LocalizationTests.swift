import Foundation
import Testing
import VisionEvaluation

@testable import OpenMLKitVision

/// ``SaliencyLocalizer`` on synthetic images: what it must find, what it must not, and that no
/// input, orientation, pixel format or configuration breaks it.
@Suite("Saliency localizer")
struct LocalizationTests {
    let localizer = SaliencyLocalizer()

    /// A `width` × `height` RGB8 scene of `background` with filled `objects` (upright pixels) and a
    /// deterministic ±`noise` ripple on every pixel, like sensor noise.
    static func scene(
        width: Int, height: Int, background: (UInt8, UInt8, UInt8) = (70, 110, 170),
        objects: [(CGRect, (UInt8, UInt8, UInt8))] = [], noise: Int = 0
    ) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                var colour = background
                for (rect, c) in objects where rect.contains(CGPoint(x: Double(x) + 0.5, y: Double(y) + 0.5)) {
                    colour = c
                }
                let ripple = noise == 0 ? 0 : (x * 7 + y * 13 + (x * y) % 5) % (2 * noise + 1) - noise
                let o = (y * width + x) * 3
                pixels[o] = UInt8(clamping: Int(colour.0) + ripple)
                pixels[o + 1] = UInt8(clamping: Int(colour.1) + ripple)
                pixels[o + 2] = UInt8(clamping: Int(colour.2) + ripple)
            }
        }
        return pixels
    }

    static func image(_ rgb: [UInt8], width: Int, height: Int, format: PixelFormat = .rgb8) throws -> VisionImage {
        VisionImage(buffer: try TestImages.buffer(rgb: rgb, width: width, height: height, format: format, padding: 3))
    }

    /// Checks what every result must satisfy: at most `maxCount` regions, inside the image, not
    /// empty, scores in 0...1 and not increasing.
    static func expectWellFormed(
        _ regions: [LocalizedRegion], in image: VisionImage, maxCount: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(regions.count <= max(maxCount, 0), sourceLocation: sourceLocation)
        for region in regions {
            let f = region.frame
            #expect(f.minX >= 0 && f.minY >= 0, sourceLocation: sourceLocation)
            #expect(f.maxX <= Double(image.width) && f.maxY <= Double(image.height), sourceLocation: sourceLocation)
            #expect(f.width > 0 && f.height > 0, sourceLocation: sourceLocation)
            #expect((0...1).contains(region.score), sourceLocation: sourceLocation)
        }
        #expect(zip(regions, regions.dropFirst()).allSatisfy { $0.score >= $1.score }, sourceLocation: sourceLocation)
    }

    static let object = CGRect(x: 120, y: 70, width: 90, height: 110)
    static let yellow: (UInt8, UInt8, UInt8) = (235, 200, 40)

    @Test("A uniform image, plain or with sensor-like noise, has no regions", arguments: PixelFormat.allCases)
    func uniform(format: PixelFormat) throws {
        for (background, noise) in [((0, 0, 0), 0), ((255, 255, 255), 0), ((70, 110, 170), 0), ((128, 128, 128), 6)]
            as [((UInt8, UInt8, UInt8), Int)]
        {
            let pixels = Self.scene(width: 320, height: 240, background: background, noise: noise)
            let image = try Self.image(pixels, width: 320, height: 240, format: format)
            #expect(try localizer.regions(in: image, maxCount: 5).isEmpty, "\(background) ±\(noise)")
        }
    }

    @Test("One object on a plain background is found, in every pixel format", arguments: PixelFormat.allCases)
    func oneObject(format: PixelFormat) throws {
        // The yellow differs from the blue in lightness too, so grey buffers still show it.
        let pixels = Self.scene(width: 320, height: 240, objects: [(Self.object, Self.yellow)], noise: 3)
        let image = try Self.image(pixels, width: 320, height: 240, format: format)
        let regions = try localizer.regions(in: image, maxCount: 5)
        Self.expectWellFormed(regions, in: image, maxCount: 5)
        let top = try #require(regions.first)
        #expect(LocalizationBenchmark.iou(top.frame, Self.object) >= 0.8, "\(top.frame)")
        #expect(top.score > 0.3)
    }

    @Test("Separate objects give separate regions, the larger first")
    func twoObjects() throws {
        let small = CGRect(x: 230, y: 150, width: 50, height: 50)
        let large = CGRect(x: 40, y: 40, width: 100, height: 120)
        let pixels = Self.scene(
            width: 320, height: 240, objects: [(large, Self.yellow), (small, (200, 40, 40))], noise: 3)
        let image = try Self.image(pixels, width: 320, height: 240)
        let regions = try localizer.regions(in: image, maxCount: 5)
        Self.expectWellFormed(regions, in: image, maxCount: 5)
        try #require(regions.count >= 2)
        #expect(LocalizationBenchmark.iou(regions[0].frame, large) >= 0.7, "\(regions[0].frame)")
        #expect(LocalizationBenchmark.iou(regions[1].frame, small) >= 0.6, "\(regions[1].frame)")
    }

    @Test("maxCount is honoured: none for 0 or less, the same best regions for any larger count")
    func maxCount() throws {
        let objects = (0..<6).map { i in
            (CGRect(x: 20 + (i % 3) * 100, y: 30 + (i / 3) * 110, width: 60, height: 70), Self.yellow)
        }
        let pixels = Self.scene(width: 320, height: 240, objects: objects, noise: 3)
        let image = try Self.image(pixels, width: 320, height: 240)
        let five = try localizer.regions(in: image, maxCount: 5)
        Self.expectWellFormed(five, in: image, maxCount: 5)
        #expect(five.count == 5)
        #expect(try localizer.regions(in: image, maxCount: 0).isEmpty)
        #expect(try localizer.regions(in: image, maxCount: -3).isEmpty)
        #expect(try localizer.regions(in: image, maxCount: 1) == Array(five.prefix(1)))
        #expect(try localizer.regions(in: image, maxCount: 3) == Array(five.prefix(3)))
        #expect(try localizer.regions(in: image, maxCount: 5) == five, "deterministic")
    }

    @Test("Tiny, thin and one-pixel images do not break it")
    func tinyImages() throws {
        for (width, height) in [(1, 1), (1, 2), (2, 1), (2, 2), (3, 3), (5, 4), (1, 300), (300, 1), (17, 2)] {
            var pixels = Self.scene(width: width, height: height)
            // A different centre pixel: the smallest thing that could stand out.
            let centre = (height / 2 * width + width / 2) * 3
            (pixels[centre], pixels[centre + 1], pixels[centre + 2]) = Self.yellow
            for format in PixelFormat.allCases {
                let image = try Self.image(pixels, width: width, height: height, format: format)
                Self.expectWellFormed(try localizer.regions(in: image, maxCount: 5), in: image, maxCount: 5)
            }
        }
    }

    @Test("A large camera frame is read by sampling and its object found")
    func largeImage() throws {
        let (width, height) = (4000, 3000)
        var luma = [UInt8](repeating: 60, count: width * height)
        for y in 1200..<2100 { for x in 1500..<2700 { luma[y * width + x] = 220 } }
        let image = VisionImage(
            buffer: try PixelBuffer(bytes: luma, width: width, height: height, format: .gray8))
        let regions = try localizer.regions(in: image, maxCount: 5)
        Self.expectWellFormed(regions, in: image, maxCount: 5)
        let top = try #require(regions.first)
        #expect(LocalizationBenchmark.iou(top.frame, CGRect(x: 1500, y: 1200, width: 1200, height: 900)) >= 0.85)
    }

    @Test("Every orientation gives exactly the upright image's regions", arguments: ImageOrientation.allCases)
    func orientation(_ orientation: ImageOrientation) throws {
        let (width, height) = (200, 150)
        let pixels = Self.scene(
            width: width, height: height,
            objects: [
                (CGRect(x: 20, y: 30, width: 60, height: 80), Self.yellow),
                (CGRect(x: 130, y: 90, width: 40, height: 40), (200, 40, 40)),
            ],
            noise: 3)
        let upright = try localizer.regions(in: try Self.image(pixels, width: width, height: height), maxCount: 5)
        #expect(upright.count >= 2)
        let stored = TestImages.stored(pixels, width: width, height: height, orientation: orientation)
        let image = VisionImage(
            buffer: try PixelBuffer(bytes: stored.pixels, width: stored.width, height: stored.height, format: .rgb8),
            orientation: orientation)
        #expect(image.width == width && image.height == height)
        // The working image averages the same upright pixels in the same order whatever the storage.
        #expect(try localizer.regions(in: image, maxCount: 5) == upright)
    }

    @Test("A photo stored rotated or mirrored gives the upright photo's regions", .enabled(if: TestImages.hasShared))
    func photoOrientation() throws {
        let upright = try AnnotatedImage(
            VisionImage(contentsOfFile: TestImages.images.appendingPathComponent("cat.bmp").path))
        let reference = try localizer.regions(
            in: VisionImage(
                buffer: try PixelBuffer(
                    bytes: upright.pixels, width: upright.width, height: upright.height, format: .rgb8)),
            maxCount: 5)
        #expect(!reference.isEmpty)
        for orientation in [ImageOrientation.right, .left, .down, .upMirrored, .leftMirrored] {
            let stored = TestImages.stored(
                upright.pixels, width: upright.width, height: upright.height, orientation: orientation)
            let image = VisionImage(
                buffer: try PixelBuffer(
                    bytes: stored.pixels, width: stored.width, height: stored.height, format: .rgb8),
                orientation: orientation)
            #expect(try localizer.regions(in: image, maxCount: 5) == reference, "\(orientation)")
        }
    }

    @Test("Out-of-range and non-finite configurations are clamped, never fatal")
    func extremeConfigurations() throws {
        let pixels = Self.scene(
            width: 160, height: 120, objects: [(CGRect(x: 50, y: 30, width: 50, height: 60), Self.yellow)])
        let image = try Self.image(pixels, width: 160, height: 120)
        var configurations = [SaliencyLocalizer.Configuration]()
        for value in [Float.nan, .infinity, -.infinity, -1, 0, 2, 1e30] {
            var c = SaliencyLocalizer.Configuration()
            c.barrierWeight = value
            c.borderContrastWeight = value
            c.globalContrastWeight = value
            c.centerPrior = value
            c.contrastScale = value
            c.minimumThreshold = value
            c.minimumAreaFraction = value
            c.overlapThreshold = value
            c.minimumScore = value
            configurations.append(c)
        }
        for size in [Int.min, -5, 0, 1, 100_000, Int.max] {
            var c = SaliencyLocalizer.Configuration()
            c.workingSize = size
            c.smoothingRadius = size
            configurations.append(c)
        }
        var noCues = SaliencyLocalizer.Configuration()
        noCues.barrierWeight = 0
        noCues.borderContrastWeight = 0
        configurations.append(noCues)
        for configuration in configurations {
            let regions = try SaliencyLocalizer(configuration: configuration).regions(in: image, maxCount: 5)
            Self.expectWellFormed(regions, in: image, maxCount: 5)
        }
        #expect(try SaliencyLocalizer(configuration: noCues).regions(in: image, maxCount: 5).isEmpty)
    }

    @Test("The sanitised configuration keeps defaults and clamps the rest")
    func sanitizedConfiguration() {
        #expect(SaliencyLocalizer.Configuration().sanitized == SaliencyLocalizer.Configuration())
        var c = SaliencyLocalizer.Configuration()
        c.workingSize = 5
        c.centerPrior = .nan
        c.minimumAreaFraction = 3
        let s = c.sanitized
        #expect(s.workingSize == 16)
        #expect(s.centerPrior == SaliencyLocalizer.Configuration().centerPrior)
        #expect(s.minimumAreaFraction == 1)
    }
}

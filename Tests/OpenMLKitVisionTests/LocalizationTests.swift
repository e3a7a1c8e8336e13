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
            c.groupAreaFraction = value
            c.segmentationScale = value
            c.minimumRelativeScore = value
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

    @Test("Colour regions: touching squares of different colours are separate segments, and each is proposed")
    func colourRegions() throws {
        let red = CGRect(x: 60, y: 60, width: 80, height: 100)
        let green = CGRect(x: 140, y: 60, width: 90, height: 100)  // touches the red square
        let pixels = Self.scene(
            width: 320, height: 240, objects: [(red, (210, 40, 40)), (green, (40, 190, 60))], noise: 2)
        let image = try Self.image(pixels, width: 320, height: 240)
        let analysis = try localizer.saliency(of: image)
        let working = analysis.working
        let labels = RegionHierarchy.segment(working, parameters: .init())
        // Cell centres well inside each square share a label; the squares and the background differ.
        func label(_ x: Double, _ y: Double) -> Int {
            labels[Int(y / working.pixelsPerCellY) * working.width + Int(x / working.pixelsPerCellX)]
        }
        #expect(label(70, 70) == label(130, 150) && label(150, 70) == label(220, 150))
        #expect(Set([label(100, 100), label(180, 100), label(10, 10)]).count == 3)
        let boxes = RegionHierarchy.proposals(in: working, map: analysis.map, minimumArea: 4)
        #expect(boxes.allSatisfy { (0...1).contains($0.score) })
        func imageFrame(_ box: CellBox) -> CGRect {
            CGRect(
                x: Double(box.minX) * working.pixelsPerCellX, y: Double(box.minY) * working.pixelsPerCellY,
                width: Double(box.maxX - box.minX) * working.pixelsPerCellX,
                height: Double(box.maxY - box.minY) * working.pixelsPerCellY)
        }
        for square in [red, green, red.union(green)] {
            let best = boxes.map { LocalizationBenchmark.iou(imageFrame($0), square) }.max() ?? 0
            #expect(best >= 0.85, "\(square): \(best)")
        }
        #expect(RegionHierarchy.proposals(in: working, map: analysis.map, minimumArea: 4) == boxes, "deterministic")
        // Several regions use them; one region (single-object mode) does not, nor does the option off.
        var off = SaliencyLocalizer.Configuration()
        off.groupsColourRegions = false
        let withOff = try SaliencyLocalizer(configuration: off).regions(in: image, maxCount: 1)
        #expect(try localizer.regions(in: image, maxCount: 1) == withOff)
    }

    @Test("Colour regions of uniform, tiny and non-finite working images: no proposals or well-formed ones")
    func colourRegionsOddInput() throws {
        for (width, height) in [(1, 1), (2, 1), (1, 5), (3, 3), (64, 48)] {
            let image = try Self.image(Self.scene(width: width, height: height), width: width, height: height)
            let analysis = try localizer.saliency(of: image)
            let boxes = RegionHierarchy.proposals(in: analysis.working, map: analysis.map, minimumArea: 1)
            #expect(boxes.isEmpty, "uniform \(width)×\(height)")
        }
        let pixels = Self.scene(
            width: 64, height: 48, objects: [(CGRect(x: 10, y: 10, width: 20, height: 20), Self.yellow)])
        let analysis = try localizer.saliency(of: try Self.image(pixels, width: 64, height: 48))
        var working = analysis.working
        working.channels[0][5] = .nan
        working.channels[1][7] = .infinity
        for scale: Float in [0, 1, 1e6] {
            var parameters = RegionHierarchy.Parameters()
            parameters.scale = scale
            let boxes = RegionHierarchy.proposals(in: working, map: analysis.map, minimumArea: 1, parameters: parameters)
            #expect(boxes.allSatisfy { $0.minX >= 0 && $0.maxX <= 64 && $0.area > 0 && (0...1).contains($0.score) })
        }
    }

    @Test("minimumRelativeScore drops regions far weaker than the best; groupAreaFraction lets smaller groups split")
    func relativeScoreAndGroupArea() throws {
        let objects = (0..<4).map { i in
            (CGRect(x: 20 + i * 75, y: 80, width: 50 - i * 8, height: 60 - i * 10), Self.yellow)
        }
        let image = try Self.image(Self.scene(width: 320, height: 240, objects: objects, noise: 3), width: 320, height: 240)
        let all = try localizer.regions(in: image, maxCount: 5)
        var strict = SaliencyLocalizer.Configuration()
        strict.minimumRelativeScore = 0.6
        let kept = try SaliencyLocalizer(configuration: strict).regions(in: image, maxCount: 5)
        let best = try #require(all.first).score
        #expect(kept == all.filter { $0.score >= 0.6 * best })
        #expect(kept.count < all.count, "\(all.map(\.score))")
        // With groups split at any size, no box holds the centres of two of the objects.
        var splitting = SaliencyLocalizer.Configuration()
        splitting.groupAreaFraction = 0
        for region in try SaliencyLocalizer(configuration: splitting).regions(in: image, maxCount: 5) {
            let held = objects.filter { region.frame.contains(CGPoint(x: $0.0.midX, y: $0.0.midY)) }
            #expect(held.count <= 1, "\(region.frame)")
        }
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

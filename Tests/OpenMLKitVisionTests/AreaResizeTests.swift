import Foundation
import Testing

@testable import OpenMLKitVision

/// Area (box-filter) downscaling: exactness on block means, the footprint mapping under crops and
/// orientations, and the aliasing it removes compared with plain bilinear sampling.
@Suite("Area resizing")
struct AreaResizeTests {
    /// A deterministic RGB8 image with unrelated values in every pixel and channel.
    static func noise(width: Int, height: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
        var state = seed
        return (0..<(width * height * 3)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    /// The exact mean of `upright` (RGB8) over `[x0, x1) × [y0, y1)`, partial pixels weighted by overlap.
    static func areaMean(
        _ upright: [UInt8], width: Int, height: Int, x0: Double, x1: Double, y0: Double, y1: Double, channel: Int
    ) -> Double {
        var sum = 0.0
        for y in max(Int(y0.rounded(.down)), 0)..<min(Int(y1.rounded(.up)), height) {
            let wy = min(y1, Double(y + 1)) - max(y0, Double(y))
            for x in max(Int(x0.rounded(.down)), 0)..<min(Int(x1.rounded(.up)), width) {
                let wx = min(x1, Double(x + 1)) - max(x0, Double(x))
                sum += wx * wy * Double(upright[(y * width + x) * 3 + channel])
            }
        }
        return sum / ((x1 - x0) * (y1 - y0))
    }

    func image(_ upright: [UInt8], width: Int, height: Int, orientation: ImageOrientation = .up) throws -> VisionImage {
        let stored = TestImages.stored(upright, width: width, height: height, orientation: orientation)
        return VisionImage(
            buffer: try PixelBuffer(bytes: stored.pixels, width: stored.width, height: stored.height, format: .rgb8),
            orientation: orientation)
    }

    func resize(
        _ image: VisionImage, to width: Int, _ height: Int, channels: Int = 3, region: CGRect? = nil,
        method: ResizeMethod = .area, scaleMode: ScaleMode = .stretch
    ) throws -> [UInt8] {
        let format = try InputImageFormat(width: width, height: height, channels: channels, elementType: .uint8)
        return [UInt8](
            try ImagePreprocessor.data(
                for: image, format: format, region: region, scaleMode: scaleMode, resizeMethod: method
            ).data)
    }

    @Test(
        "A constant image stays constant at any scale, in every pixel format and orientation",
        arguments: PixelFormat.allCases)
    func constant(format: PixelFormat) throws {
        let (w, h) = (98, 62)
        let rgb = [UInt8](repeating: 0, count: w * h * 3).enumerated().map { UInt8([180, 90, 40][$0.offset % 3]) }
        let buffer = try TestImages.buffer(rgb: rgb, width: w, height: h, format: format, padding: 3)
        // Reference: the same buffer at its own size (no resampling), so codec rounding cancels out.
        let reference = try resize(VisionImage(buffer: buffer), to: w, h)
        for orientation in [ImageOrientation.up, .right, .downMirrored, .left] {
            let image = VisionImage(buffer: buffer, orientation: orientation)
            for (ow, oh) in [(10, 7), (13, 13), (5, 40), (24, 1)] {
                let out = try resize(image, to: ow, oh)
                for p in 0..<(ow * oh) {
                    for c in 0..<3 {
                        #expect(out[3 * p + c] == reference[c], "\(format) \(orientation) \(ow)x\(oh) pixel \(p)")
                    }
                }
            }
        }
    }

    @Test("Shrinking by an integer factor gives each k×k block's mean (rounded half up) in every orientation")
    func integerFactors() throws {
        let (w, h) = (72, 48)
        let upright = Self.noise(width: w, height: h)
        for orientation in ImageOrientation.allCases {
            let image = try image(upright, width: w, height: h, orientation: orientation)
            for k in [2, 3, 4, 6, 8, 12] {
                let (ow, oh) = (w / k, h / k)
                let out = try resize(image, to: ow, oh)
                var mismatches = 0
                for v in 0..<oh {
                    for u in 0..<ow {
                        for c in 0..<3 {
                            var sum = 0
                            for y in (v * k)..<(v * k + k) {
                                for x in (u * k)..<(u * k + k) { sum += Int(upright[(y * w + x) * 3 + c]) }
                            }
                            let mean = (2 * sum + k * k) / (2 * k * k)
                            if Int(out[(v * ow + u) * 3 + c]) != mean { mismatches += 1 }
                        }
                    }
                }
                #expect(mismatches == 0, "\(orientation) k=\(k)")
            }
        }
    }

    @Test("Non-integer factors and crops average the exact footprint, fractional edge pixels included")
    func fractionalFootprints() throws {
        let (w, h) = (53, 37)
        let upright = Self.noise(width: w, height: h, seed: 7)
        let cases: [(CGRect?, Int, Int)] = [
            (nil, 7, 5), (nil, 20, 3), (CGRect(x: 3.25, y: 1.5, width: 40.5, height: 30), 9, 4),
            (CGRect(x: 10, y: 20, width: 33, height: 17), 4, 17),
        ]
        for orientation in [ImageOrientation.up, .rightMirrored, .down, .left] {
            let image = try image(upright, width: w, height: h, orientation: orientation)
            for (region, ow, oh) in cases {
                let r = region ?? CGRect(x: 0, y: 0, width: w, height: h)
                let out = try resize(image, to: ow, oh, region: region)
                var worst = 0.0
                for v in 0..<oh {
                    for u in 0..<ow {
                        // Along an axis that is not shrunk (17 rows to 17) the footprint is one pixel wide.
                        let x0 = r.minX + Double(u) * r.width / Double(ow)
                        let y0 = r.minY + Double(v) * r.height / Double(oh)
                        let expected = (0..<3).map {
                            Self.areaMean(
                                upright, width: w, height: h, x0: x0, x1: x0 + r.width / Double(ow), y0: y0,
                                y1: y0 + r.height / Double(oh), channel: $0)
                        }
                        for c in 0..<3 { worst = max(worst, abs(Double(out[(v * ow + u) * 3 + c]) - expected[c])) }
                    }
                }
                // Rounding to 8 bits moves a value by at most half a level (plus float noise).
                #expect(worst <= 0.5 + 1e-3, "\(orientation) \(String(describing: region)) → \(ow)x\(oh): \(worst)")
            }
        }
    }

    @Test("Enlarging, or keeping the size, gives exactly the bilinear bytes")
    func enlargingIsBilinear() throws {
        let (w, h) = (9, 7)
        let upright = Self.noise(width: w, height: h, seed: 3)
        for orientation in [ImageOrientation.up, .leftMirrored] {
            let image = try image(upright, width: w, height: h, orientation: orientation)
            for (ow, oh) in [(9, 7), (20, 15), (31, 7)] {
                #expect(try resize(image, to: ow, oh) == resize(image, to: ow, oh, method: .bilinear))
            }
            #expect(try resize(image, to: w, h) == upright)
        }
    }

    @Test("Letterbox bars stay black and the image area averages to its own colour")
    func letterbox() throws {
        let (w, h) = (400, 200)
        let upright = [UInt8](repeating: 200, count: w * h * 3)
        for orientation in [ImageOrientation.up, .right] {
            let out = try resize(
                try image(upright, width: w, height: h, orientation: orientation), to: 64, 64, scaleMode: .letterbox)
            // The 400×400 region has 100 rows of bars above and below: 16 of 64 output rows each.
            for v in 0..<64 {
                let row = out[(v * 64 * 3)..<((v + 1) * 64 * 3)]
                #expect(row.allSatisfy { $0 == ((16..<48).contains(v) ? 200 : 0) }, "\(orientation) row \(v)")
            }
        }
    }

    /// An off-centre zone plate, `cos(π k r²)`, whose local frequency is between 0.15 and 0.41
    /// cycles per pixel everywhere: all of it is above the 1/16 cycle-per-pixel limit of an 8×
    /// reduction, so an alias-free result is flat grey.
    static func zonePlate(side: Int) -> [UInt8] {
        let offset = 300.0
        let k = 0.15 / (offset * 2.0.squareRoot())
        var pixels = [UInt8](repeating: 0, count: side * side * 3)
        for y in 0..<side {
            for x in 0..<side {
                let r2 = (Double(x) + offset) * (Double(x) + offset) + (Double(y) + offset) * (Double(y) + offset)
                let value = UInt8((127.5 + 127.5 * cos(Double.pi * k * r2)).rounded())
                for c in 0..<3 { pixels[(y * side + x) * 3 + c] = value }
            }
        }
        return pixels
    }

    @Test("An 8× reduction of a zone plate: area leaves little energy, bilinear aliases it into strong patterns")
    func aliasing() throws {
        let side = 512
        let plate = try image(Self.zonePlate(side: side), width: side, height: side)
        func residualEnergy(_ method: ResizeMethod) throws -> Double {
            let out = try resize(plate, to: side / 8, side / 8, channels: 1, method: method)
            let mean = out.reduce(0.0) { $0 + Double($1) } / Double(out.count)
            return out.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(out.count)
        }
        let area = try residualEnergy(.area)
        let bilinear = try residualEnergy(.bilinear)
        // The plate's own energy is 127.5² / 2 ≈ 8128. A box of 8 pixels passes at most
        // (1 / (8 sin(0.15π)))² ≈ 7.6 % of it per axis; bilinear's two taps pass most of it, folded
        // into coarse false rings. Measured: area ≈ 3.5, bilinear ≈ 3500.
        #expect(area < 20, "area residual energy \(area)")
        #expect(bilinear > 100 * area, "bilinear \(bilinear) vs area \(area)")
    }
}

import Foundation
import OpenMLKitVision

/// Tightly packed RGB8 pixels that benchmark frames are composed on: resizing, blurring, dimming
/// and masked pasting, all deterministic.
struct RGBCanvas: Sendable {
    let width: Int
    let height: Int
    var pixels: [UInt8]

    /// A canvas filled with one colour.
    init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8) = (0, 0, 0)) {
        self.width = width
        self.height = height
        var p = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            p[3 * i] = fill.0
            p[3 * i + 1] = fill.1
            p[3 * i + 2] = fill.2
        }
        pixels = p
    }

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// `region` of the upright `image` (nil: all of it) scaled to `width` × `height`.
    ///
    /// Sampled at twice the size and then averaged 2 × 2, which tames the aliasing of the
    /// preprocessor's plain bilinear sampling when a large photo is shrunk a lot.
    init(image: VisionImage, region: CGRect? = nil, width: Int, height: Int) throws {
        let format = try InputImageFormat(width: 2 * width, height: 2 * height, channels: 3, elementType: .uint8)
        // Bilinear, then the 2 × 2 average below: the benchmark's frames stay as they were generated.
        let big = [UInt8](
            try ImagePreprocessor.data(for: image, format: format, region: region, resizeMethod: .bilinear).data)
        var out = [UInt8](repeating: 0, count: width * height * 3)
        let bigRow = 2 * width * 3
        for y in 0..<height {
            for x in 0..<width {
                let o = (2 * y) * bigRow + (2 * x) * 3
                for c in 0..<3 {
                    let sum =
                        Int(big[o + c]) + Int(big[o + 3 + c]) + Int(big[o + bigRow + c]) + Int(big[o + bigRow + 3 + c])
                    out[(y * width + x) * 3 + c] = UInt8((sum + 2) / 4)
                }
            }
        }
        self.init(width: width, height: height, pixels: out)
    }

    /// A box blur of the given radius (separable, edges clamped).
    func blurred(radius: Int) -> RGBCanvas {
        guard radius > 0 else { return self }
        var horizontal = [UInt8](repeating: 0, count: pixels.count)
        let window = 2 * radius + 1
        for y in 0..<height {
            for c in 0..<3 {
                var sum = 0
                for k in -radius...radius { sum += Int(pixels[(y * width + min(max(k, 0), width - 1)) * 3 + c]) }
                for x in 0..<width {
                    horizontal[(y * width + x) * 3 + c] = UInt8(sum / window)
                    let add = min(x + radius + 1, width - 1)
                    let drop = max(x - radius, 0)
                    sum += Int(pixels[(y * width + add) * 3 + c]) - Int(pixels[(y * width + drop) * 3 + c])
                }
            }
        }
        var out = [UInt8](repeating: 0, count: pixels.count)
        for x in 0..<width {
            for c in 0..<3 {
                var sum = 0
                for k in -radius...radius { sum += Int(horizontal[(min(max(k, 0), height - 1) * width + x) * 3 + c]) }
                for y in 0..<height {
                    out[(y * width + x) * 3 + c] = UInt8(sum / window)
                    let add = min(y + radius + 1, height - 1)
                    let drop = max(y - radius, 0)
                    sum += Int(horizontal[(add * width + x) * 3 + c]) - Int(horizontal[(drop * width + x) * 3 + c])
                }
            }
        }
        return RGBCanvas(width: width, height: height, pixels: out)
    }

    /// Every value mapped to `offset + gain · value` (a low-contrast, darkened background).
    func dimmed(gain: Double, offset: Double) -> RGBCanvas {
        RGBCanvas(
            width: width, height: height,
            pixels: pixels.map { UInt8(min(max(offset + gain * Double($0), 0), 255).rounded()) })
    }

    /// The `width` × `height` window whose top-left corner is at (`x`, `y`); outside is black.
    func window(x: Int, y: Int, width w: Int, height h: Int) -> RGBCanvas {
        var out = [UInt8](repeating: 0, count: w * h * 3)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                let x0 = max(0, -x)
                let x1 = min(w, width - x)
                guard x0 < x1 else { return }
                for row in 0..<h {
                    let sy = y + row
                    guard sy >= 0, sy < height else { continue }
                    let from = (sy * width + x + x0) * 3
                    let to = (row * w + x0) * 3
                    for i in 0..<((x1 - x0) * 3) { target[to + i] = source[from + i] }
                }
            }
        }
        return RGBCanvas(width: w, height: h, pixels: out)
    }

    /// Pastes `sprite` with its top-left corner at (`x`, `y`) through an elliptical mask, and marks
    /// the pixels written with `owner` in `ownerMap` (one entry per canvas pixel; later pastes win).
    mutating func pasteEllipse(_ sprite: RGBCanvas, x: Int, y: Int, owner: Int, ownerMap: inout [Int]) {
        let rx = Double(sprite.width) / 2
        let ry = Double(sprite.height) / 2
        let (w, h) = (width, height)
        sprite.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                for sy in 0..<sprite.height {
                    let ty = y + sy
                    guard ty >= 0, ty < h else { continue }
                    let dy = (Double(sy) + 0.5 - ry) / ry
                    for sx in 0..<sprite.width {
                        let tx = x + sx
                        guard tx >= 0, tx < w else { continue }
                        let dx = (Double(sx) + 0.5 - rx) / rx
                        guard dx * dx + dy * dy <= 1 else { continue }
                        let s = (sy * sprite.width + sx) * 3
                        let t = (ty * w + tx) * 3
                        target[t] = source[s]
                        target[t + 1] = source[s + 1]
                        target[t + 2] = source[s + 2]
                        ownerMap[ty * w + tx] = owner
                    }
                }
            }
        }
    }

    /// The number of pixels inside the ellipse inscribed in a `width` × `height` box.
    static func ellipseArea(width: Int, height: Int) -> Int {
        let rx = Double(width) / 2
        let ry = Double(height) / 2
        var count = 0
        for sy in 0..<height {
            let dy = (Double(sy) + 0.5 - ry) / ry
            for sx in 0..<width {
                let dx = (Double(sx) + 0.5 - rx) / rx
                if dx * dx + dy * dy <= 1 { count += 1 }
            }
        }
        return count
    }

    /// The canvas as an RGB8 ``VisionImage``.
    func visionImage() throws -> VisionImage {
        VisionImage(buffer: try PixelBuffer(bytes: pixels, width: width, height: height, format: .rgb8))
    }
}

import Foundation

/// An upright RGB8 copy of a ``VisionImage`` that boxes and labels can be drawn on and saved as PNG.
public struct AnnotatedImage {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Tightly packed RGB8 pixels, row by row.
    public private(set) var pixels: [UInt8]

    /// The upright pixels of `image` (its orientation applied).
    public init(_ image: VisionImage) throws {
        let format = try InputImageFormat(width: image.width, height: image.height, channels: 3, elementType: .uint8)
        pixels = [UInt8](try ImagePreprocessor.data(for: image, format: format).data)
        width = image.width
        height = image.height
    }

    /// A distinct, saturated colour for class `index`.
    public static func color(for index: Int) -> (UInt8, UInt8, UInt8) {
        let palette: [(UInt8, UInt8, UInt8)] = [
            (230, 25, 75), (60, 180, 75), (255, 225, 25), (0, 130, 200), (245, 130, 48), (145, 30, 180),
            (70, 240, 240), (240, 50, 230), (210, 245, 60), (250, 190, 212), (0, 128, 128), (170, 110, 40),
        ]
        return palette[((index % palette.count) + palette.count) % palette.count]
    }

    private mutating func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ c: (UInt8, UInt8, UInt8)) {
        let (xa, xb) = (max(0, x0), min(width, x1))
        let (ya, yb) = (max(0, y0), min(height, y1))
        guard xa < xb, ya < yb else { return }
        for y in ya..<yb {
            for x in xa..<xb {
                let o = (y * width + x) * 3
                pixels[o] = c.0
                pixels[o + 1] = c.1
                pixels[o + 2] = c.2
            }
        }
    }

    /// Draws the outline of `rect` (upright pixels) `thickness` pixels wide, inside the rectangle.
    public mutating func drawRect(_ rect: CGRect, color: (UInt8, UInt8, UInt8), thickness: Int = 3) {
        let x0 = Int(rect.minX.rounded())
        let y0 = Int(rect.minY.rounded())
        let x1 = Int(rect.maxX.rounded())
        let y1 = Int(rect.maxY.rounded())
        fill(x0, y0, x1, y0 + thickness, color)
        fill(x0, y1 - thickness, x1, y1, color)
        fill(x0, y0, x0 + thickness, y1, color)
        fill(x1 - thickness, y0, x1, y1, color)
    }

    /// Draws `text` on a filled background with its top-left corner at (`x`, `y`), scaled by `scale`.
    public mutating func drawText(_ text: String, x: Int, y: Int, scale: Int = 2, background: (UInt8, UInt8, UInt8)) {
        let advance = (BitmapFont.width + 1) * scale
        let boxWidth = text.count * advance + scale
        let boxHeight = (BitmapFont.height + 2) * scale
        // Keep the label inside the picture.
        let left = min(max(0, x), max(0, width - boxWidth))
        let top = min(max(0, y), max(0, height - boxHeight))
        fill(left, top, left + boxWidth, top + boxHeight, background)
        let ink: (UInt8, UInt8, UInt8) =
            Int(background.0) * 3 + Int(background.1) * 6 + Int(background.2) > 1200 ? (0, 0, 0) : (255, 255, 255)
        for (i, character) in text.enumerated() {
            for gy in 0..<BitmapFont.height {
                for gx in 0..<BitmapFont.width where BitmapFont.ink(character, gx, gy) {
                    let px = left + scale + i * advance + gx * scale
                    let py = top + scale + gy * scale
                    fill(px, py, px + scale, py + scale, ink)
                }
            }
        }
    }

    /// Draws every object's frame with its tracking ID (`#7`, when it has one) and its best label
    /// with the confidence. Tracked objects are coloured by ID, others by class.
    public mutating func draw(_ objects: [DetectedObject]) {
        let thickness = max(2, min(width, height) / 200)
        let scale = max(1, min(width, height) / 300)
        for object in objects {
            let label = object.labels.first
            let color = AnnotatedImage.color(for: object.trackingIDValue ?? label?.index ?? 0)
            drawRect(object.frame, color: color, thickness: thickness)
            var parts = [String]()
            if let id = object.trackingIDValue { parts.append("#\(id)") }
            if let label {
                let name = label.text.isEmpty ? "class \(label.index)" : label.text
                parts.append("\(name) \(Int((label.confidence * 100).rounded()))%")
            }
            guard !parts.isEmpty else { continue }
            let textHeight = (BitmapFont.height + 2) * scale
            let above = Int(object.frame.minY) - textHeight
            drawText(
                parts.joined(separator: " "), x: Int(object.frame.minX),
                y: above >= 0 ? above : Int(object.frame.minY), scale: scale, background: color)
        }
    }

    /// The picture as PNG.
    public func pngData() throws -> Data { try PNGEncoder.encode(rgb: pixels, width: width, height: height) }
}

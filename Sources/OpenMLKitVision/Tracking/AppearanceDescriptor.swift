import Foundation

/// A colour/texture signature of an image region used to tell objects apart.
///
/// The region is resampled to 24 × 24 pixels (bilinear, in the upright image), then described by:
/// - a 28-bin colour histogram: 12 hues × 2 saturations for coloured pixels (hue soft-binned
///   between neighbouring bins) and 4 brightness bins for grey, dark or washed-out pixels, each pixel
///   weighted by a centre-heavy kernel so that the background in a box's corners counts little;
/// - a 4 × 4 layout of mean brightness, normalised to zero mean and unit variance, which tells
///   apart regions of similar colours arranged differently.
///
/// ``similarity(to:)`` is `0.6 · Bhattacharyya coefficient of the histograms + 0.4 · max(0, correlation
/// of the layouts)`. Brightness is normalised in the layout only, so a global lighting change lowers
/// the histogram term a little and the layout term not at all. Computing one costs roughly 20 µs in
/// a release build.
public struct AppearanceDescriptor: Sendable {
    /// Square roots of the normalised histogram, so that the Bhattacharyya coefficient is a dot product.
    let rootHistogram: [Float]
    /// The zero-mean, unit-norm layout (all zeros for a flat region).
    let layout: [Float]
    /// Whether the region has too little contrast for a layout.
    let isFlat: Bool

    static let side = 24
    static let hueBins = 12
    static let grayBins = 4
    static let layoutSide = 4

    /// The descriptor of `region` (upright image pixels) of `image`; the part outside the image is ignored.
    ///
    /// - Throws: ``VisionError/invalidRegion(detail:)`` when the region is not finite or less than
    ///   two pixels of it lie inside the image in either direction; ``VisionError/invalidBuffer(detail:)``
    ///   for an unusable pixel buffer.
    public init(image: VisionImage, region: CGRect) throws {
        let bounds = CGRect(x: 0, y: 0, width: image.width, height: image.height)
        guard let clipped = BoxGeometry.sanitized(region, in: bounds, minimumSide: 2) else {
            throw VisionError.invalidRegion(
                detail: "region \(region) has less than 2×2 pixels inside the \(image.width)x\(image.height) image")
        }
        let side = AppearanceDescriptor.side
        let format = try InputImageFormat(width: side, height: side, channels: 3, elementType: .uint8)
        // Bilinear: the similarity thresholds were tuned on it.
        let pixels = [UInt8](
            try ImagePreprocessor.data(for: image, format: format, region: clipped, resizeMethod: .bilinear).data)
        self.init(rgb: pixels, side: side)
    }

    /// The descriptor of `side × side` tightly packed RGB8 pixels.
    init(rgb pixels: [UInt8], side: Int) {
        let hueBins = AppearanceDescriptor.hueBins
        let colourBins = hueBins * 2
        var histogram = [Float](repeating: 0, count: colourBins + AppearanceDescriptor.grayBins)
        let cells = AppearanceDescriptor.layoutSide
        var cellSum = [Float](repeating: 0, count: cells * cells)
        var cellCount = [Float](repeating: 0, count: cells * cells)
        let half = Float(side) / 2
        for py in 0..<side {
            for px in 0..<side {
                let o = (py * side + px) * 3
                let r = Float(pixels[o]) / 255
                let g = Float(pixels[o + 1]) / 255
                let b = Float(pixels[o + 2]) / 255
                let cell = (py * cells / side) * cells + px * cells / side
                cellSum[cell] += 0.299 * r + 0.587 * g + 0.114 * b
                cellCount[cell] += 1
                // Epanechnikov-like weight over the inscribed ellipse, never quite zero.
                let dx = (Float(px) + 0.5 - half) / half
                let dy = (Float(py) + 0.5 - half) / half
                let weight = max(1 - (dx * dx + dy * dy), 0) + 0.05
                let maxC = max(r, g, b)
                let minC = min(r, g, b)
                let chroma = maxC - minC
                let saturation = maxC > 0 ? chroma / maxC : 0
                if saturation < 0.2 || maxC < 0.15 {
                    let bin = min(Int(maxC * Float(AppearanceDescriptor.grayBins)), AppearanceDescriptor.grayBins - 1)
                    histogram[colourBins + bin] += weight
                    continue
                }
                var hue: Float  // 0..<6
                if maxC == r {
                    hue = (g - b) / chroma
                    if hue < 0 { hue += 6 }
                } else if maxC == g {
                    hue = (b - r) / chroma + 2
                } else {
                    hue = (r - g) / chroma + 4
                }
                let position = hue / 6 * Float(hueBins) - 0.5
                let lower = Int(position.rounded(.down))
                let fraction = position - Float(lower)
                let satOffset = saturation < 0.5 ? 0 : hueBins
                let h0 = ((lower % hueBins) + hueBins) % hueBins
                let h1 = (h0 + 1) % hueBins
                histogram[satOffset + h0] += weight * (1 - fraction)
                histogram[satOffset + h1] += weight * fraction
            }
        }
        let total = histogram.reduce(0, +)
        rootHistogram = histogram.map { total > 0 ? ($0 / total).squareRoot() : 0 }
        var means = zip(cellSum, cellCount).map { $1 > 0 ? $0 / $1 : 0 }
        let mean = means.reduce(0, +) / Float(means.count)
        means = means.map { $0 - mean }
        let norm = means.reduce(0) { $0 + $1 * $1 }.squareRoot()
        // A flat region has no layout to compare; below ~1% contrast the pattern is noise.
        isFlat = !(norm > 0.02)
        layout = isFlat ? [Float](repeating: 0, count: means.count) : means.map { $0 / norm }
    }

    /// How alike two regions look, 0...1 (1: identical colour distribution and layout).
    public func similarity(to other: AppearanceDescriptor) -> Float {
        guard rootHistogram.count == other.rootHistogram.count, layout.count == other.layout.count else { return 0 }
        var bhattacharyya: Float = 0
        for i in rootHistogram.indices { bhattacharyya += rootHistogram[i] * other.rootHistogram[i] }
        var correlation: Float = 0
        for i in layout.indices { correlation += layout[i] * other.layout[i] }
        // Two flat regions have the same (empty) layout; a flat and a textured one share none.
        let layoutTerm: Float = isFlat && other.isFlat ? 1 : max(correlation, 0)
        let value = 0.6 * bhattacharyya + 0.4 * layoutTerm
        return value.isFinite ? min(max(value, 0), 1) : 0
    }
}

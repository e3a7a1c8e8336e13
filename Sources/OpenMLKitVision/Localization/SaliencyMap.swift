import Foundation

/// How much each cell of a ``LabImage`` stands out from the image's background, 0...1.
///
/// It combines cues that need no learned weights, each in ΔE-like units so that they can be
/// added and compared with an absolute ``SaliencyLocalizer/Configuration/contrastScale``:
/// - boundary connectivity: the minimum barrier distance (Zhang et al., "Minimum Barrier Salient
///   Object Detection at 80 FPS", ICCV 2015) from the image border, per L\*a\*b\* channel, summed.
///   Background is usually connected to the border through similar colours; an object is cut off
///   from it by a colour "barrier";
/// - border contrast: colour distance to the dominant colours of each side (the background
///   model of the same paper's MB+), combined robustly over the four sides;
/// - global contrast: distance of the colour to the image mean (Achanta et al.,
///   "Frequency-tuned Salient Region Detection", CVPR 2009);
/// then a mild centre prior, since photographers centre their subject. The cues themselves are
/// in `SaliencyMap+Cues.swift`.
struct SaliencyMap {
    /// Width in cells (that of the working image).
    let width: Int
    /// Height in cells.
    let height: Int
    /// Saliency per cell, row by row, 0...1.
    var values: [Float]

    /// The saliency of `image` under `configuration`'s weights (a ``SaliencyLocalizer/Configuration/sanitized`` one).
    init(_ image: LabImage, configuration: SaliencyLocalizer.Configuration) {
        width = image.width
        height = image.height
        let count = width * height
        var raw = [Float](repeating: 0, count: count)
        let cues: [(weight: Float, cue: (LabImage) -> [Float])] = [
            (configuration.barrierWeight, SaliencyMap.barrierDistance),
            (configuration.borderContrastWeight, SaliencyMap.borderContrast),
            (configuration.globalContrastWeight, SaliencyMap.globalContrast),
        ]
        let total = cues.reduce(Float(0)) { $0 + $1.weight }
        for (weight, cue) in cues where weight > 0 {
            let map = cue(image)
            for i in 0..<count { raw[i] += weight / total * map[i] }
        }
        // Normalise by an absolute contrast unless the image has stronger contrasts than that,
        // so that a flat image stays near 0 instead of having its noise stretched to 1.
        let scale = max(SaliencyMap.percentile(raw, 0.99), configuration.contrastScale)
        let prior = configuration.centerPrior
        let cx = Float(width - 1) / 2
        let cy = Float(height - 1) / 2
        let radius2 = max(cx * cx + cy * cy, 1)
        for y in 0..<height {
            for x in 0..<width {
                let dx = Float(x) - cx
                let dy = Float(y) - cy
                let i = y * width + x
                let value = raw[i] / scale * (1 - prior * (dx * dx + dy * dy) / radius2)
                raw[i] = value.isFinite ? min(max(value, 0), 1) : 0
            }
        }
        values = GridFilters.boxBlur(raw, width: width, height: height, radius: 1)
    }

    /// The value below which a fraction `q` of the non-negative `values` lies, to 1/4096 of their
    /// maximum: a histogram instead of a sort, which took a tenth of the localizer's time.
    static func percentile(_ values: [Float], _ q: Float) -> Float {
        let top = values.reduce(Float(0)) { $1.isFinite ? max($0, $1) : $0 }
        guard top > 0 else { return 0 }
        let bins = 4096
        var histogram = [Int](repeating: 0, count: bins)
        var count = 0
        for v in values where v.isFinite && v >= 0 {
            histogram[min(bins - 1, Int(v / top * Float(bins)))] += 1
            count += 1
        }
        let rank = Int((Float(count) * q).rounded(.up))
        var seen = 0
        for bin in 0..<bins {
            seen += histogram[bin]
            if seen >= rank { return Float(bin + 1) / Float(bins) * top }
        }
        return top
    }
}

/// How well a box fits the colour segments of the working image: *superpixel straddling* (Alexe,
/// Deselaers, Ferrari, "Measuring the Objectness of Image Windows", PAMI 2012).
///
/// An object's segments lie wholly inside a box that fits it; a box that cuts through a region of
/// one colour (part of an object, or a box reaching into the background) has segments straddling
/// its border. For a box `w`, `1 − Σ_s min(|s \ w|, |s ∩ w|) / |w|` over the segments `s`: 1 when
/// every segment is inside or outside, lower the more of them the border cuts in two.
///
/// It says nothing about saliency, so it is used only to rank the colour-region proposals of
/// several objects after the most salient one (see ``SalientRegions``).
struct SegmentStraddling {
    /// Segment label per working-image cell, row by row.
    private let labels: [Int]
    /// Width of the working image in cells.
    private let width: Int
    /// Cells per segment.
    private let sizes: [Int]

    /// The straddling measure of `labels` (0..<segments per cell, as ``RegionHierarchy/segment(_:parameters:)``
    /// gives) on a grid `width` cells wide.
    init(labels: [Int], width: Int) {
        self.labels = labels
        self.width = width
        var sizes = [Int](repeating: 0, count: (labels.max() ?? -1) + 1)
        for l in labels { sizes[l] += 1 }
        self.sizes = sizes
    }

    /// The fit of `box` (cells) to the segments, 0...1 (0 for an empty box or one outside the grid).
    func fit(_ box: CellBox) -> Float {
        let height = width > 0 ? labels.count / width : 0
        let (x0, y0) = (max(box.minX, 0), max(box.minY, 0))
        let (x1, y1) = (min(box.maxX, width), min(box.maxY, height))
        guard x1 > x0, y1 > y0 else { return 0 }
        // Counts per label in a flat array (a dictionary made this a third of the localizer's time).
        var inside = [Int32](repeating: 0, count: sizes.count)
        var seen = [Int]()
        inside.withUnsafeMutableBufferPointer { inside in
            labels.withUnsafeBufferPointer { labels in
                for y in y0..<y1 {
                    for i in (y * width + x0)..<(y * width + x1) {
                        let l = labels[i]
                        if inside[l] == 0 { seen.append(l) }
                        inside[l] += 1
                    }
                }
            }
        }
        var straddling = 0
        for l in seen { straddling += min(Int(inside[l]), sizes[l] - Int(inside[l])) }
        let cells = (x1 - x0) * (y1 - y0)
        return 1 - Float(straddling) / Float(cells)
    }
}

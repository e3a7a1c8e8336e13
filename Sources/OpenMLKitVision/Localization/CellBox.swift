/// A box of working-image cells with a score, before it is mapped to image pixels.
struct CellBox: Equatable {
    /// First column and row inside the box.
    var minX: Int, minY: Int
    /// One past the last column and row.
    var maxX: Int, maxY: Int
    /// Prominence, 0...1.
    var score: Float = 0

    /// Cells covered.
    var area: Int { (maxX - minX) * (maxY - minY) }

    /// Cells shared with `other`.
    func intersection(_ other: CellBox) -> Int {
        max(0, min(maxX, other.maxX) - max(minX, other.minX)) * max(0, min(maxY, other.maxY) - max(minY, other.minY))
    }

    /// Intersection over union with `other`.
    func overlap(_ other: CellBox) -> Float {
        let iw = min(maxX, other.maxX) - max(minX, other.minX)
        let ih = min(maxY, other.maxY) - max(minY, other.minY)
        guard iw > 0, ih > 0 else { return 0 }
        let intersection = iw * ih
        return Float(intersection) / Float(area + other.area - intersection)
    }
}

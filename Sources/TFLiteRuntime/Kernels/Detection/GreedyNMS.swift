/// Greedy single-class non-max suppression, the post-processing's hot spot: an SSD head has tens of
/// thousands of anchors, most above a low score threshold. It was the largest serial part of the
/// detectors at two threads (half of the traffic model's invoke), and it ran every selected box
/// against every later candidate after sorting all of them.
///
/// Here the candidates come out of a heap in decreasing score, as many as the selection needs, and
/// each is checked against the boxes already selected (at most `maxDetections`), eight at a time.
/// That selects the same boxes: a candidate is dropped exactly when an earlier selected box
/// overlaps it, whichever way round the pairs are visited. Each IoU is the scalar one, operation
/// for operation with the selected box in the first place (`Swift.max` / `Swift.min` written as the
/// same selects, the same sum and division), so every decision is bit-identical to LiteRT's
/// `NonMaxSuppressionSingleClassHelper`.
enum GreedyNMS {
    static let lanes = 8
    typealias Vector = SIMD8<Float>

    /// The indices of the boxes kept: candidates scoring at least `scoreThreshold`, in decreasing
    /// score (ties in box order), each dropped if its IoU with a box kept before it is above
    /// `iouThreshold`; at most `maxDetections`.
    static func select(
        scores: [Float], boxes: [Float], scoreThreshold: Float, iouThreshold: Float, maxDetections: Int
    ) -> [Int] {
        precondition(scores.count <= Int(UInt32.max), "too many boxes")
        var heap = [UInt64]()
        for (i, s) in scores.enumerated() where s >= scoreThreshold { heap.append(key(score: s, index: i)) }
        let outputSize = min(heap.count, maxDetections)
        guard outputSize > 0 else { return [] }
        // The kept boxes' corners and areas, one array per coordinate so eight load as one vector.
        let capacity = (outputSize + lanes - 1) / lanes * lanes
        var kept = [Float](repeating: 0, count: 5 * capacity)
        var selected = [Int]()
        selected.reserveCapacity(outputSize)
        heap.withUnsafeMutableBufferPointer { heap in
            kept.withUnsafeMutableBufferPointer { kept in
                let h = heap.baseAddress!, k = kept.baseAddress!
                let ys1 = k, xs1 = k + capacity, ys2 = k + 2 * capacity, xs2 = k + 3 * capacity
                let areas = k + 4 * capacity
                var remaining = heap.count
                for i in stride(from: remaining / 2 - 1, through: 0, by: -1) { siftDown(h, i, remaining) }
                let t = Vector(repeating: iouThreshold)
                while selected.count < outputSize && remaining > 0 {
                    let top = h[0]
                    remaining -= 1
                    h[0] = h[remaining]
                    siftDown(h, 0, remaining)
                    let b = Int(truncatingIfNeeded: top & 0xFFFF_FFFF)
                    let y1 = boxes[4 * b], x1 = boxes[4 * b + 1], y2 = boxes[4 * b + 2], x2 = boxes[4 * b + 3]
                    let area = (y2 - y1) * (x2 - x1)
                    let by1 = Vector(repeating: y1), bx1 = Vector(repeating: x1)
                    let by2 = Vector(repeating: y2), bx2 = Vector(repeating: x2), aJ = Vector(repeating: area)
                    var dropped = false
                    var g = 0
                    while g < selected.count {
                        let over = overlaps(
                            load(ys1, g), load(xs1, g), load(ys2, g), load(xs2, g), load(areas, g),
                            by1, bx1, by2, bx2, aJ, t)
                        // Lanes past the kept boxes hold zeros, not boxes.
                        let live = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7) .< SIMD8<Int32>(repeating: Int32(selected.count - g))
                        if any(over .& live) {
                            dropped = true
                            break
                        }
                        g += lanes
                    }
                    if dropped { continue }
                    let n = selected.count
                    ys1[n] = y1
                    xs1[n] = x1
                    ys2[n] = y2
                    xs2[n] = x2
                    areas[n] = area
                    selected.append(b)
                }
            }
        }
        return selected
    }

    /// Sorts before every key of a lower score, and before the keys of later boxes with the same score.
    @inline(__always)
    static func key(score: Float, index: Int) -> UInt64 {
        // + 0 turns -0 into +0, which compares equal to it; scores here are never NaN.
        let bits = (score + 0).bitPattern
        let ascending = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
        return UInt64(~ascending) << 32 | UInt64(truncatingIfNeeded: index)
    }

    /// Restores the min-heap order below `i` in `h[0..<n]`.
    @inline(__always)
    private static func siftDown(_ h: UnsafeMutablePointer<UInt64>, _ i: Int, _ n: Int) {
        let value = h[i]
        var hole = i
        while true {
            var child = 2 * hole + 1
            if child >= n { break }
            if child + 1 < n && h[child + 1] < h[child] { child += 1 }
            if h[child] >= value { break }
            h[hole] = h[child]
            hole = child
        }
        h[hole] = value
    }

    @inline(__always)
    private static func load(_ p: UnsafeMutablePointer<Float>, _ j: Int) -> Vector {
        UnsafeRawPointer(p + j).loadUnaligned(as: Vector.self)
    }

    /// Lanes where the IoU of kept box I with candidate J is above `t`, as LiteRT's
    /// `ComputeIntersectionOverUnion` computes it: 0 when either area is <= 0 (a NaN area is not),
    /// else `inter / (areaI + areaJ - inter)` with `inter = max(ymax - ymin, 0) * max(xmax - xmin, 0)`,
    /// `max(a, b)` being `b >= a ? b : a` and `min(a, b)` being `b < a ? b : a` (`Swift.max` and
    /// `Swift.min`, NaN and signed zeros alike).
    @inline(__always)
    private static func overlaps(
        _ y1: Vector, _ x1: Vector, _ y2: Vector, _ x2: Vector, _ aI: Vector,
        _ by1: Vector, _ bx1: Vector, _ by2: Vector, _ bx2: Vector, _ aJ: Vector, _ t: Vector
    ) -> SIMDMask<SIMD8<Int32>> {
        let ymin = y1.replacing(with: by1, where: by1 .>= y1)
        let xmin = x1.replacing(with: bx1, where: bx1 .>= x1)
        let ymax = y2.replacing(with: by2, where: by2 .< y2)
        let xmax = x2.replacing(with: bx2, where: bx2 .< x2)
        let dy = ymax - ymin, dx = xmax - xmin
        let zero = Vector(repeating: 0)
        let inter = dy.replacing(with: zero, where: zero .>= dy) * dx.replacing(with: zero, where: zero .>= dx)
        let overlap = (inter / (aI + aJ - inter)).replacing(with: zero, where: (aI .<= zero) .| (aJ .<= zero))
        return overlap .> t
    }
}

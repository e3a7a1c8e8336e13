extension SaliencyMap {
    /// The minimum barrier distance of every cell from the border, per channel, summed.
    ///
    /// The barrier of a path is the highest minus the lowest value along it; the distance is the
    /// smallest barrier over paths from the border. FastMBD's raster scans approximate it: forward
    /// and backward passes relaxing each cell from its two already-visited neighbours, three times.
    static func barrierDistance(_ image: LabImage) -> [Float] {
        let (w, h) = (image.width, image.height)
        var total = [Float](repeating: 0, count: w * h)
        guard w > 2, h > 2 else { return total }
        var distance = [Float](repeating: 0, count: w * h)
        var high = [Float](repeating: 0, count: w * h)
        var low = [Float](repeating: 0, count: w * h)
        for channel in image.channels {
            high = channel
            low = channel
            for i in 0..<(w * h) {
                let (x, y) = (i % w, i / w)
                distance[i] = x == 0 || y == 0 || x == w - 1 || y == h - 1 ? 0 : .infinity
            }
            channel.withUnsafeBufferPointer { v in
                distance.withUnsafeMutableBufferPointer { d in
                    high.withUnsafeMutableBufferPointer { u in
                        low.withUnsafeMutableBufferPointer { l in
                            for _ in 0..<3 {
                                for y in 1..<(h - 1) {
                                    for x in 1..<(w - 1) {
                                        let p = y * w + x
                                        relax(p, from: p - 1, v, d, u, l)
                                        relax(p, from: p - w, v, d, u, l)
                                    }
                                }
                                for y in stride(from: h - 2, through: 1, by: -1) {
                                    for x in stride(from: w - 2, through: 1, by: -1) {
                                        let p = y * w + x
                                        relax(p, from: p + 1, v, d, u, l)
                                        relax(p, from: p + w, v, d, u, l)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            for i in 0..<(w * h) { total[i] += distance[i] }
        }
        return total
    }

    /// Extends the best path to neighbour `n` by cell `p` if that lowers `p`'s barrier.
    @inline(__always)
    private static func relax(
        _ p: Int, from n: Int, _ v: UnsafeBufferPointer<Float>, _ d: UnsafeMutableBufferPointer<Float>,
        _ u: UnsafeMutableBufferPointer<Float>, _ l: UnsafeMutableBufferPointer<Float>
    ) {
        let top = max(u[n], v[p])
        let bottom = min(l[n], v[p])
        if top - bottom < d[p] {
            d[p] = top - bottom
            u[p] = top
            l[p] = bottom
        }
    }

    /// Colour distance of every cell to the background colours seen along the border.
    ///
    /// Each side's strip is summarised by a few k-means colours; a cell's distance to a side is its
    /// distance to the nearest of them. Of the four distances the mean of the middle two is kept:
    /// an object touching one or even two sides is near those sides' colours but far from the
    /// others', while a background colour seen on at least two sides (sky at the top and down the
    /// sides) is near at least two.
    static func borderContrast(_ image: LabImage) -> [Float] {
        let (w, h) = (image.width, image.height)
        let thickness = max(1, min(w, h) / 15)
        var sides: [[SIMD3<Float>]] = [[], [], [], []]
        for y in 0..<h {
            for x in 0..<w {
                let onTop = y < thickness
                let onBottom = y >= h - thickness
                let onLeft = x < thickness
                let onRight = x >= w - thickness
                guard onTop || onBottom || onLeft || onRight else { continue }
                let c = image.colour(y * w + x)
                if onTop { sides[0].append(c) }
                if onBottom { sides[1].append(c) }
                if onLeft { sides[2].append(c) }
                if onRight { sides[3].append(c) }
            }
        }
        // 4 sides × 3 colours, as flat L, a, b arrays for the scalar loop below.
        let palette = sides.flatMap { kMeans($0, clusters: 3) }
        let pl = palette.map(\.x)
        let pa = palette.map(\.y)
        let pb = palette.map(\.z)
        var out = [Float](repeating: 0, count: w * h)
        let (cl, ca, cb) = (image.channels[0], image.channels[1], image.channels[2])
        for i in 0..<(w * h) {
            var side: (Float, Float, Float, Float) = (.infinity, .infinity, .infinity, .infinity)
            for k in 0..<palette.count {
                let dl = cl[i] - pl[k]
                let da = ca[i] - pa[k]
                let db = cb[i] - pb[k]
                let d = dl * dl + da * da + db * db
                switch k / 3 {
                case 0: side.0 = min(side.0, d)
                case 1: side.1 = min(side.1, d)
                case 2: side.2 = min(side.2, d)
                default: side.3 = min(side.3, d)
                }
            }
            let d = (side.0.squareRoot(), side.1.squareRoot(), side.2.squareRoot(), side.3.squareRoot())
            // The mean of the middle two of four: the sum without the smallest and the largest.
            let extremes = min(min(d.0, d.1), min(d.2, d.3)) + max(max(d.0, d.1), max(d.2, d.3))
            out[i] = (d.0 + d.1 + d.2 + d.3 - extremes) / 2
        }
        return out
    }

    /// Distance of each cell's colour to the mean colour of the image.
    static func globalContrast(_ image: LabImage) -> [Float] {
        let count = image.width * image.height
        let means = image.channels.map { $0.reduce(0, +) / Float(max(1, count)) }
        return (0..<count).map { i in
            let dl = image.channels[0][i] - means[0]
            let da = image.channels[1][i] - means[1]
            let db = image.channels[2][i] - means[2]
            return (dl * dl + da * da + db * db).squareRoot()
        }
    }

    /// `clusters` representative colours of `colours` by a few rounds of k-means, seeded
    /// deterministically at lightness quantiles.
    static func kMeans(_ colours: [SIMD3<Float>], clusters: Int) -> [SIMD3<Float>] {
        guard !colours.isEmpty else { return [SIMD3<Float>](repeating: .zero, count: clusters) }
        let sorted = colours.sorted { $0.x < $1.x }
        var centres = (0..<clusters).map { sorted[(2 * $0 + 1) * sorted.count / (2 * clusters)] }
        for _ in 0..<5 {
            var sums = [SIMD3<Float>](repeating: .zero, count: clusters)
            var counts = [Float](repeating: 0, count: clusters)
            for c in colours {
                var best = 0
                var bestDistance = Float.infinity
                for k in 0..<clusters {
                    let d = c - centres[k]
                    let distance = d.x * d.x + d.y * d.y + d.z * d.z
                    if distance < bestDistance {
                        bestDistance = distance
                        best = k
                    }
                }
                sums[best] += c
                counts[best] += 1
            }
            for k in 0..<clusters where counts[k] > 0 { centres[k] = sums[k] / counts[k] }
        }
        return centres
    }
}

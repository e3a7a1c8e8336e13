/// Filters on row-major grids of cells (the working image and its saliency map).
///
/// Loops index raw buffers: these run on every cell several times per image, also in the
/// unoptimised builds the tests use.
enum GridFilters {
    /// The mean of `values` over a (2·`radius` + 1)² window, clamped at the edges (only the cells
    /// inside the grid count), in two running-sum passes: O(cells) whatever the radius.
    static func boxBlur(_ values: [Float], width w: Int, height h: Int, radius: Int) -> [Float] {
        guard radius > 0, w > 0, h > 0, values.count == w * h else { return values }
        var horizontal = [Float](repeating: 0, count: w * h)
        var out = [Float](repeating: 0, count: w * h)
        values.withUnsafeBufferPointer { v in
            horizontal.withUnsafeMutableBufferPointer { t in
                for y in 0..<h {
                    let row = y * w
                    var sum: Float = 0
                    for x in 0..<min(radius, w) { sum += v[row + x] }
                    for x in 0..<w {
                        if x + radius < w { sum += v[row + x + radius] }
                        if x - radius - 1 >= 0 { sum -= v[row + x - radius - 1] }
                        t[row + x] = sum / Float(min(w - 1, x + radius) - max(0, x - radius) + 1)
                    }
                }
            }
        }
        horizontal.withUnsafeBufferPointer { t in
            out.withUnsafeMutableBufferPointer { o in
                for x in 0..<w {
                    var sum: Float = 0
                    for y in 0..<min(radius, h) { sum += t[y * w + x] }
                    for y in 0..<h {
                        if y + radius < h { sum += t[(y + radius) * w + x] }
                        if y - radius - 1 >= 0 { sum -= t[(y - radius - 1) * w + x] }
                        o[y * w + x] = sum / Float(min(h - 1, y + radius) - max(0, y - radius) + 1)
                    }
                }
            }
        }
        return out
    }

    /// The summed-area table of `values`: entry (x, y) of the (w + 1) × (h + 1) result is the sum
    /// of the cells above and left of it, so any box sum takes four look-ups. Double, so that the
    /// large sums lose no precision.
    static func integral(_ values: [Float], width w: Int, height h: Int) -> [Double] {
        var table = [Double](repeating: 0, count: (w + 1) * (h + 1))
        for y in 0..<h {
            var row: Double = 0
            for x in 0..<w {
                row += Double(values[y * w + x])
                table[(y + 1) * (w + 1) + x + 1] = table[y * (w + 1) + x + 1] + row
            }
        }
        return table
    }

    /// Sum of the cells in columns `x0..<x1`, rows `y0..<y1`, from an ``integral(_:width:height:)`` table.
    @inline(__always)
    static func boxSum(_ table: [Double], width w: Int, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> Double {
        let stride = w + 1
        return table[y1 * stride + x1] - table[y0 * stride + x1] - table[y1 * stride + x0] + table[y0 * stride + x0]
    }

    /// Otsu's threshold of values in 0...1: the level that maximises the between-class variance of
    /// a 64-bin histogram; 1 when all values fall in one bin (nothing stands out).
    static func otsuThreshold(_ values: [Float]) -> Float {
        let bins = 64
        var histogram = [Float](repeating: 0, count: bins)
        for v in values { histogram[min(bins - 1, max(0, Int(v * Float(bins))))] += 1 }
        let total = Float(values.count)
        let sumAll = histogram.indices.reduce(Float(0)) { $0 + Float($1) * histogram[$1] }
        var weightBelow: Float = 0
        var sumBelow: Float = 0
        var best: (variance: Float, bin: Int) = (0, bins)
        for bin in 0..<(bins - 1) {
            weightBelow += histogram[bin]
            sumBelow += Float(bin) * histogram[bin]
            let weightAbove = total - weightBelow
            guard weightBelow > 0, weightAbove > 0 else { continue }
            let difference = sumBelow / weightBelow - (sumAll - sumBelow) / weightAbove
            let variance = weightBelow * weightAbove * difference * difference
            if variance > best.variance { best = (variance, bin + 1) }
        }
        return Float(best.bin) / Float(bins)
    }

    /// 3×3 erosion: a cell stays set only if every neighbour inside the grid is set.
    static func erode(_ mask: [Bool], width w: Int, height h: Int) -> [Bool] {
        morph(mask, width: w, height: h, erode: true)
    }

    /// 3×3 dilation: a cell becomes set if any neighbour is.
    static func dilate(_ mask: [Bool], width w: Int, height h: Int) -> [Bool] {
        morph(mask, width: w, height: h, erode: false)
    }

    private static func morph(_ mask: [Bool], width w: Int, height h: Int, erode: Bool) -> [Bool] {
        var out = mask
        mask.withUnsafeBufferPointer { m in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<h {
                    for x in 0..<w {
                        // Erosion: one unset neighbour clears the cell; dilation: one set neighbour sets it.
                        var result = erode
                        search: for yy in max(0, y - 1)...min(h - 1, y + 1) {
                            for xx in max(0, x - 1)...min(w - 1, x + 1) where m[yy * w + xx] != erode {
                                result = !erode
                                break search
                            }
                        }
                        o[y * w + x] = result
                    }
                }
            }
        }
        return out
    }

    /// The 8-connected components of the set cells, each a list of cell indices, in raster order
    /// of their first cell (flood fill with an explicit stack, so no recursion depth limit).
    static func connectedComponents(_ mask: [Bool], width w: Int, height h: Int) -> [[Int]] {
        var seen = [Bool](repeating: false, count: mask.count)
        var components = [[Int]]()
        var stack = [Int]()
        for start in mask.indices where mask[start] && !seen[start] {
            var component = [Int]()
            seen[start] = true
            stack.append(start)
            while let i = stack.popLast() {
                component.append(i)
                let (x, y) = (i % w, i / w)
                for yy in max(0, y - 1)...min(h - 1, y + 1) {
                    for xx in max(0, x - 1)...min(w - 1, x + 1) {
                        let n = yy * w + xx
                        if mask[n] && !seen[n] {
                            seen[n] = true
                            stack.append(n)
                        }
                    }
                }
            }
            components.append(component)
        }
        return components
    }
}

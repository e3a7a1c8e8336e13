import Foundation

/// Region proposals by hierarchical grouping, in the manner of selective search (Uijlings, van de
/// Sande, Gevers, Smeulders, "Selective Search for Object Recognition", IJCV 2013).
///
/// 1. The working image is over-segmented by Felzenszwalb and Huttenlocher's graph method
///    ("Efficient Graph-Based Image Segmentation", IJCV 2004) on the L\*a\*b\* distances between
///    8-connected cells; segments smaller than a minimum are merged into a neighbour.
/// 2. Neighbouring regions are merged greedily, the most similar pair first, similarity being the
///    sum of colour similarity (`exp(−ΔE / colourSigma)` of their mean colours), size similarity
///    (small regions merge first) and fill (regions whose union fills its bounding box merge
///    first), until one region is left.
/// 3. Every region of the hierarchy is a candidate object, scored by the saliency map like the
///    level-cut components (``SalientRegions``), times how well its colour stands apart from the
///    region it was finally merged with.
///
/// Unlike the level cuts, these regions follow colour edges, so objects that touch each other or
/// the border, or are only faintly salient as a whole, can still come out as one region.
enum RegionHierarchy {
    /// The tunables of the grouping.
    struct Parameters {
        /// Felzenszwalb's scale `k` (ΔE × cells): larger gives larger initial segments.
        var scale: Float = 60
        /// Smallest initial segment, as a fraction of the working image's cells.
        var minimumSegmentFraction: Float = 0.002
        /// ΔE at which colour similarity falls to 1/e.
        var colourSigma: Float = 12
        /// ΔE of colour difference to the merge partner at which a region's contrast factor is 1.
        var contrastReference: Float = 15
        /// Exponent of the contrast factor (0: saliency alone).
        var contrastExponent: Float = 0.5
    }

    /// A region of the hierarchy.
    private struct Region {
        var size: Int
        var colour: SIMD3<Double>
        var box: CellBox
        var saliency: Double
        /// ΔE between this region's mean colour and its partner's when it was merged away (nil: the root).
        var contrast: Float?
    }

    /// Scored boxes of every region of the hierarchy of at least `minimumArea` cells, unsorted.
    /// `labels` is the segmentation of `image` (``segment(_:parameters:)`` with the same
    /// parameters), computed here when not given.
    static func proposals(
        in image: LabImage, map: SaliencyMap, minimumArea: Int, parameters: Parameters = .init(),
        labels given: [Int]? = nil
    ) -> [CellBox] {
        let (w, h) = (image.width, image.height)
        let count = w * h
        guard count > 1, map.values.count == count, image.channels.count == 3 else { return [] }
        let totalMass = map.values.reduce(Double(0)) { $0 + Double($1) }
        guard totalMass > 0, totalMass.isFinite else { return [] }
        let labels = given.flatMap { $0.count == count ? $0 : nil } ?? segment(image, parameters: parameters)
        var regions = initialRegions(labels: labels, image: image, map: map)
        guard regions.count > 1 else { return [] }
        group(&regions, labels: labels, width: w, height: h, cells: count, parameters: parameters)
        var boxes = [CellBox]()
        for region in regions where region.size >= minimumArea {
            let mean = region.saliency / Double(region.size)
            var score = mean * (region.saliency / totalMass).squareRoot()
            if parameters.contrastExponent > 0 {
                let contrast = Double((region.contrast ?? parameters.contrastReference) / parameters.contrastReference)
                score *= pow(min(max(contrast, 0), 1), Double(parameters.contrastExponent))
            }
            var box = region.box
            box.score = score.isFinite ? Float(min(max(score, 0), 1)) : 0
            boxes.append(box)
        }
        return boxes
    }

    /// Felzenszwalb–Huttenlocher segmentation: a label (0..<segments) per cell.
    static func segment(_ image: LabImage, parameters: Parameters) -> [Int] {
        let (w, h) = (image.width, image.height)
        let count = w * h
        let (L, A, B) = (image.channels[0], image.channels[1], image.channels[2])
        // Edges to the right, down, down-right and down-left neighbours.
        var from = [Int32](), to = [Int32](), weight = [Float]()
        from.reserveCapacity(4 * count)
        to.reserveCapacity(4 * count)
        weight.reserveCapacity(4 * count)
        func add(_ i: Int, _ j: Int) {
            let (dl, da, db) = (L[i] - L[j], A[i] - A[j], B[i] - B[j])
            let d = (dl * dl + da * da + db * db).squareRoot()
            from.append(Int32(i))
            to.append(Int32(j))
            weight.append(d.isFinite ? d : 1e6)
        }
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                if x + 1 < w { add(i, i + 1) }
                if y + 1 < h {
                    add(i, i + w)
                    if x + 1 < w { add(i, i + w + 1) }
                    if x > 0 { add(i, i + w - 1) }
                }
            }
        }
        let order = bucketOrder(weight)
        var parent = Array(0..<count)
        var size = [Int](repeating: 1, count: count)
        var threshold = [Float](repeating: parameters.scale, count: count)
        let minimumSize = max(1, Int(parameters.minimumSegmentFraction * Float(count)))
        // Raw buffers: this loop runs over every edge twice and dominated the grouping's time.
        parent.withUnsafeMutableBufferPointer { parent in
            size.withUnsafeMutableBufferPointer { size in
                threshold.withUnsafeMutableBufferPointer { threshold in
                    func find(_ i: Int) -> Int {
                        var root = i
                        while parent[root] != root { root = parent[root] }
                        var j = i
                        while parent[j] != root {
                            let next = parent[j]
                            parent[j] = root
                            j = next
                        }
                        return root
                    }
                    for e in order {
                        let a = find(Int(from[e])), b = find(Int(to[e]))
                        guard a != b, weight[e] <= threshold[a], weight[e] <= threshold[b] else { continue }
                        let (big, small) = size[a] >= size[b] ? (a, b) : (b, a)
                        parent[small] = big
                        size[big] += size[small]
                        threshold[big] = weight[e] + parameters.scale / Float(size[big])
                    }
                    for e in order {
                        let a = find(Int(from[e])), b = find(Int(to[e]))
                        guard a != b, size[a] < minimumSize || size[b] < minimumSize else { continue }
                        let (big, small) = size[a] >= size[b] ? (a, b) : (b, a)
                        parent[small] = big
                        size[big] += size[small]
                    }
                    // Flatten, so that the labelling below reads roots directly.
                    for i in 0..<count { parent[i] = find(i) }
                }
            }
        }
        var label = [Int](repeating: -1, count: count)
        var labels = [Int](repeating: 0, count: count)
        var next = 0
        for i in 0..<count {
            let r = parent[i]
            if label[r] < 0 {
                label[r] = next
                next += 1
            }
            labels[i] = label[r]
        }
        return labels
    }

    /// Edge indices in increasing weight (a counting sort on 4096 bins, then exact order within a
    /// bin is not needed: the segmentation only needs weights non-decreasing to a bin's width).
    private static func bucketOrder(_ weight: [Float]) -> [Int] {
        let top = weight.reduce(Float(0)) { max($0, $1) }
        guard top > 0 else { return Array(weight.indices) }
        let bins = 4096
        let scale = Float(bins - 1) / top
        var counts = [Int](repeating: 0, count: bins + 1)
        for v in weight { counts[Int(v * scale) + 1] += 1 }
        for b in 1...bins { counts[b] += counts[b - 1] }
        var order = [Int](repeating: 0, count: weight.count)
        for (e, v) in weight.enumerated() {
            let b = Int(v * scale)
            order[counts[b]] = e
            counts[b] += 1
        }
        return order
    }

    /// One region per segment label.
    private static func initialRegions(labels: [Int], image: LabImage, map: SaliencyMap) -> [Region] {
        let w = image.width
        let segments = (labels.max() ?? -1) + 1
        var regions = [Region](
            repeating: Region(
                size: 0, colour: .zero, box: CellBox(minX: Int.max, minY: Int.max, maxX: 0, maxY: 0), saliency: 0),
            count: segments)
        for (i, l) in labels.enumerated() {
            let (x, y) = (i % w, i / w)
            regions[l].size += 1
            regions[l].colour += SIMD3(
                Double(image.channels[0][i]), Double(image.channels[1][i]), Double(image.channels[2][i]))
            regions[l].saliency += Double(map.values[i])
            regions[l].box.minX = min(regions[l].box.minX, x)
            regions[l].box.minY = min(regions[l].box.minY, y)
            regions[l].box.maxX = max(regions[l].box.maxX, x + 1)
            regions[l].box.maxY = max(regions[l].box.maxY, y + 1)
        }
        return regions
    }

    /// Merges neighbouring regions, most similar first, appending every merged region to `regions`
    /// and recording each merged-away region's colour contrast to its partner.
    private static func group(
        _ regions: inout [Region], labels: [Int], width w: Int, height h: Int, cells: Int, parameters: Parameters
    ) {
        var neighbours = [Set<Int>](repeating: [], count: regions.count)
        for y in 0..<h {
            for x in 0..<w {
                let a = labels[y * w + x]
                if x + 1 < w, labels[y * w + x + 1] != a {
                    neighbours[a].insert(labels[y * w + x + 1])
                    neighbours[labels[y * w + x + 1]].insert(a)
                }
                if y + 1 < h, labels[(y + 1) * w + x] != a {
                    neighbours[a].insert(labels[(y + 1) * w + x])
                    neighbours[labels[(y + 1) * w + x]].insert(a)
                }
            }
        }
        func colourDistance(_ a: Int, _ b: Int) -> Double {
            let d = regions[a].colour / Double(regions[a].size) - regions[b].colour / Double(regions[b].size)
            return (d * d).sum().squareRoot()
        }
        func similarity(_ a: Int, _ b: Int) -> Double {
            let (ra, rb) = (regions[a], regions[b])
            let union = CellBox(
                minX: min(ra.box.minX, rb.box.minX), minY: min(ra.box.minY, rb.box.minY),
                maxX: max(ra.box.maxX, rb.box.maxX), maxY: max(ra.box.maxY, rb.box.maxY))
            let n = Double(cells)
            let colour = exp(-colourDistance(a, b) / Double(parameters.colourSigma))
            let size = 1 - Double(ra.size + rb.size) / n
            let fill = 1 - Double(union.area - ra.size - rb.size) / n
            return colour + size + fill
        }
        var pairs = [Pair: Double]()
        for a in neighbours.indices {
            for b in neighbours[a] where a < b { pairs[Pair(a, b)] = similarity(a, b) }
        }
        // n − 1 merges at most; each scans the live pairs (a few hundred), bounded by the segment count.
        while let best = pairs.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }) {
            let (a, b) = (best.key.a, best.key.b)
            let contrast = Float(colourDistance(a, b))
            regions[a].contrast = contrast
            regions[b].contrast = contrast
            let (ra, rb) = (regions[a], regions[b])
            let merged = Region(
                size: ra.size + rb.size, colour: ra.colour + rb.colour,
                box: CellBox(
                    minX: min(ra.box.minX, rb.box.minX), minY: min(ra.box.minY, rb.box.minY),
                    maxX: max(ra.box.maxX, rb.box.maxX), maxY: max(ra.box.maxY, rb.box.maxY)),
                saliency: ra.saliency + rb.saliency)
            let k = regions.count
            regions.append(merged)
            let around = neighbours[a].union(neighbours[b]).subtracting([a, b])
            for m in neighbours[a] { pairs[Pair(a, m)] = nil }
            for m in neighbours[b] { pairs[Pair(b, m)] = nil }
            neighbours[a] = []
            neighbours[b] = []
            neighbours.append(around)
            for m in around {
                neighbours[m].remove(a)
                neighbours[m].remove(b)
                neighbours[m].insert(k)
                pairs[Pair(m, k)] = similarity(m, k)
            }
        }
    }

    /// An unordered pair of region indices.
    private struct Pair: Hashable, Comparable {
        let a: Int, b: Int
        init(_ x: Int, _ y: Int) {
            a = min(x, y)
            b = max(x, y)
        }
        static func < (l: Pair, r: Pair) -> Bool { (l.a, l.b) < (r.a, r.b) }
    }
}

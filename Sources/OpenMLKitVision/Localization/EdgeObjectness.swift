import Foundation

/// How much a box looks like it holds whole objects, from the edges of the working image: the
/// *Edge Boxes* score (Zitnick, Dollár, "Edge Boxes: Locating Object Proposals from Edges",
/// ECCV 2014).
///
/// Edges are the gradient magnitude of the L\*a\*b\* working image (ΔE per cell over the three
/// channels), thinned by non-maximum suppression along the gradient and kept above
/// ``threshold``. Edge cells are grouped into contour pieces: 8-connected cells gathered from the
/// strongest seed on, until the orientation has turned by π/2 in all. Touching pieces have an
/// affinity `|cos(θi − θij) · cos(θj − θij)|²` (θ: the pieces' contour directions, θij: the
/// direction between their centres; 0 below 0.05), high when one continues the other. A box
/// scores the edge magnitude of the pieces wholly inside it, each weighted by one minus its
/// strongest chain of affinities to a piece crossing the border (a piece continuing a contour
/// that the border cuts belongs to something larger than the box), divided by the perimeter
/// `(2(w + h))^κ`, minus the edges of its central half (an object's edges are on its outline,
/// texture fills the middle).
///
/// A box around a whole object scores higher than a box cutting through it, but a box around two
/// neighbouring objects holds both their outlines whole and scores as high: measured as a ranking
/// cue it put more pairs of objects in one box (`docs/LOCALIZER.md`), so the localizer uses it to
/// recognise such boxes instead (``FitRanking``).
struct EdgeObjectness {
    /// Edges weaker than this ΔE per cell are ignored.
    static let threshold: Float = 2
    /// Exponent of the perimeter normalisation (the paper's κ).
    static let kappa: Float = 1.5

    /// One contour piece.
    private struct Piece {
        var magnitude: Float = 0
        var minX = Int.max, minY = Int.max, maxX = 0, maxY = 0
    }

    /// Working-image size in cells.
    let width: Int, height: Int
    /// Summed-area table of the thinned edge magnitudes, (width + 1) × (height + 1).
    private let edgeTable: [Double]
    /// Contour piece per cell (−1 off edges), row by row.
    private let pieceOf: [Int32]
    private let pieces: [Piece]
    /// Non-zero affinities of touching pieces.
    private let affinities: [[(piece: Int32, affinity: Float)]]

    /// The edges and contour pieces of `working` (the smoothed working image).
    init(_ working: LabImage) {
        let (w, h) = (working.width, working.height)
        width = w
        height = h
        var magnitude = [Float](repeating: 0, count: w * h)
        var direction = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                // Central differences with the border cell repeated; the orientation is that of
                // the channel with the strongest gradient.
                let (xl, xr, yu, yd) = (max(x - 1, 0), min(x + 1, w - 1), max(y - 1, 0), min(y + 1, h - 1))
                var (sum, strongest, gx0, gy0): (Float, Float, Float, Float) = (0, -1, 0, 0)
                for channel in working.channels {
                    let gx = (channel[y * w + xr] - channel[y * w + xl]) / 2
                    let gy = (channel[yd * w + x] - channel[yu * w + x]) / 2
                    let g = gx * gx + gy * gy
                    sum += g
                    if g > strongest { (strongest, gx0, gy0) = (g, gx, gy) }
                }
                magnitude[y * w + x] = sum.squareRoot()
                var angle = atan2f(gy0, gx0)
                if angle < 0 { angle += .pi }
                direction[y * w + x] = angle >= .pi ? 0 : angle
            }
        }
        let edges = Self.thinned(magnitude, direction: direction, width: w, height: h)
        var table = [Double](repeating: 0, count: (w + 1) * (h + 1))
        for y in 0..<h {
            var row: Double = 0
            for x in 0..<w {
                row += Double(edges[y * w + x])
                table[(y + 1) * (w + 1) + x + 1] = table[y * (w + 1) + x + 1] + row
            }
        }
        edgeTable = table
        let (pieceOf, pieces, centres) = Self.pieces(edges, direction: direction, width: w, height: h)
        self.pieceOf = pieceOf
        self.pieces = pieces
        affinities = Self.affinities(pieceOf, centres: centres, width: w, height: h)
    }

    /// Edge magnitudes kept only where they are a maximum across the edge and above ``threshold``.
    private static func thinned(_ magnitude: [Float], direction: [Float], width w: Int, height h: Int) -> [Float] {
        var edges = [Float](repeating: 0, count: w * h)
        // Neighbours across the edge for gradient directions near 0°, 45°, 90° and 135°.
        let across = [(0, 1), (1, 1), (1, 0), (1, -1)]
        func at(_ x: Int, _ y: Int) -> Float { x >= 0 && x < w && y >= 0 && y < h ? magnitude[y * w + x] : 0 }
        for y in 0..<h {
            for x in 0..<w {
                let m = magnitude[y * w + x]
                guard m > threshold else { continue }
                let (dy, dx) = across[Int((direction[y * w + x] / (.pi / 4)).rounded()) % 4]
                if m >= at(x + dx, y + dy) && m >= at(x - dx, y - dy) { edges[y * w + x] = m }
            }
        }
        return edges
    }

    /// Contour pieces: from the strongest unassigned edge cell, 8-connected edge cells are added
    /// while the orientation changes along the way sum to at most π/2.
    private static func pieces(_ edges: [Float], direction: [Float], width w: Int, height h: Int)
        -> (pieceOf: [Int32], pieces: [Piece], centres: [(x: Float, y: Float, angle: Float)])
    {
        var pieceOf = [Int32](repeating: -1, count: w * h)
        var pieces = [Piece]()
        var centres = [(x: Float, y: Float, angle: Float)]()
        let seeds = edges.indices.filter { edges[$0] > 0 }.sorted { (edges[$0], -$0) > (edges[$1], -$1) }
        var stack = [Int]()
        for seed in seeds where pieceOf[seed] < 0 {
            let id = Int32(pieces.count)
            var piece = Piece()
            var (sx, sy, sc, ss): (Float, Float, Float, Float) = (0, 0, 0, 0)
            var turned: Float = 0
            pieceOf[seed] = id
            stack.append(seed)
            var cells = [seed]
            while let cell = stack.popLast() {
                let (cx, cy) = (cell % w, cell / w)
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let (nx, ny) = (cx + dx, cy + dy)
                        guard nx >= 0, nx < w, ny >= 0, ny < h else { continue }
                        let n = ny * w + nx
                        guard edges[n] > 0, pieceOf[n] < 0 else { continue }
                        let d = abs(direction[n] - direction[cell])
                        let turn = min(d, .pi - d)
                        guard turned + turn <= .pi / 2 else { continue }
                        turned += turn
                        pieceOf[n] = id
                        stack.append(n)
                        cells.append(n)
                    }
                }
            }
            for cell in cells {
                let (x, y, m) = (cell % w, cell / w, edges[cell])
                piece.magnitude += m
                piece.minX = min(piece.minX, x)
                piece.minY = min(piece.minY, y)
                piece.maxX = max(piece.maxX, x + 1)
                piece.maxY = max(piece.maxY, y + 1)
                sx += m * Float(x)
                sy += m * Float(y)
                sc += m * cosf(2 * direction[cell])
                ss += m * sinf(2 * direction[cell])
            }
            pieces.append(piece)
            // The mean of directions modulo π is taken on doubled angles.
            centres.append((sx / piece.magnitude, sy / piece.magnitude, atan2f(ss, sc) / 2))
        }
        return (pieceOf, pieces, centres)
    }

    /// The affinities of pieces with 8-neighbouring cells.
    private static func affinities(
        _ pieceOf: [Int32], centres: [(x: Float, y: Float, angle: Float)], width w: Int, height h: Int
    ) -> [[(piece: Int32, affinity: Float)]] {
        var result = [[(piece: Int32, affinity: Float)]](repeating: [], count: centres.count)
        var linked = Set<Int64>()
        for y in 0..<h {
            for x in 0..<w {
                let a = pieceOf[y * w + x]
                guard a >= 0 else { continue }
                for (dy, dx) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    let (nx, ny) = (x + dx, y + dy)
                    guard nx >= 0, nx < w, ny < h else { continue }
                    let b = pieceOf[ny * w + nx]
                    guard b >= 0, b != a, linked.insert(Int64(min(a, b)) << 32 | Int64(max(a, b))).inserted else {
                        continue
                    }
                    let (p, q) = (centres[Int(a)], centres[Int(b)])
                    let between = atan2f(q.y - p.y, q.x - p.x)
                    // The stored angles are gradient directions; contours run across them.
                    let c = cosf(p.angle + .pi / 2 - between) * cosf(q.angle + .pi / 2 - between)
                    let affinity = c * c
                    guard affinity >= 0.05 else { continue }
                    result[Int(a)].append((b, affinity))
                    result[Int(b)].append((a, affinity))
                }
            }
        }
        return result
    }

    /// The Edge Boxes score of `box` (cells): ≥ 0 when it holds whole contours, lower (possibly
    /// negative) when its border cuts them or its middle is busier than its outline.
    func score(_ box: CellBox) -> Float {
        let (x0, y0) = (max(box.minX, 0), max(box.minY, 0))
        let (x1, y1) = (min(box.maxX, width), min(box.maxY, height))
        guard x1 > x0, y1 > y0 else { return 0 }
        // Pieces in the order the scan meets them (arrays, not dictionaries, so that the sum is
        // taken in the same order every time and the score is deterministic).
        var inside = [Int32](), crossing = [Int32]()
        var seen = [Bool](repeating: false, count: pieces.count)
        var isInside = [Bool](repeating: false, count: pieces.count)
        for y in y0..<y1 {
            for x in x0..<x1 {
                let id = pieceOf[y * width + x]
                guard id >= 0, !seen[Int(id)] else { continue }
                seen[Int(id)] = true
                let p = pieces[Int(id)]
                if p.minX >= x0 && p.maxX <= x1 && p.minY >= y0 && p.maxY <= y1 {
                    inside.append(id)
                    isInside[Int(id)] = true
                } else {
                    crossing.append(id)
                }
            }
        }
        // Strongest chains from the crossing pieces into the box (products of affinities ≤ 1, so
        // the best-first order of Dijkstra's algorithm applies), over pieces wholly inside.
        var chain = [Float](repeating: 0, count: pieces.count)
        var done = [Bool](repeating: false, count: pieces.count)
        var frontier = crossing.map { (piece: $0, chain: Float(1)) }
        while let best = frontier.indices.max(by: { frontier[$0].chain < frontier[$1].chain }) {
            let (piece, reached) = frontier.remove(at: best)
            guard !done[Int(piece)] else { continue }
            done[Int(piece)] = true
            for (next, affinity) in affinities[Int(piece)] {
                let n = Int(next)
                guard isInside[n], !done[n], reached * affinity > chain[n] else { continue }
                chain[n] = reached * affinity
                frontier.append((next, reached * affinity))
            }
        }
        var sum: Float = 0
        for id in inside { sum += (1 - chain[Int(id)]) * pieces[Int(id)].magnitude }
        let (bw, bh) = (x1 - x0, y1 - y0)
        let (ix0, ix1, iy0, iy1) = (x0 + bw / 4, x1 - bw / 4, y0 + bh / 4, y1 - bh / 4)
        let row = width + 1
        let middle = edgeTable[iy1 * row + ix1] - edgeTable[iy0 * row + ix1] - edgeTable[iy1 * row + ix0]
            + edgeTable[iy0 * row + ix0]
        return (sum - Float(middle)) / powf(Float(2 * (bw + bh)), Self.kappa)
    }
}

/// Minimum-cost bipartite assignment (the Hungarian method, in its shortest-augmenting-path form
/// with row and column potentials), with gating.
///
/// Used by the tracker to pair tracks with observations and by the tracking metrics to pair ground
/// truth with hypotheses. Runs in O(n²·m) for an n × m matrix (n ≤ m after transposing).
package enum HungarianSolver {
    /// The pairs (row, column) of a minimum-cost assignment that uses only allowed entries.
    ///
    /// - Parameters:
    ///   - cost: the cost of pairing (row, column); pairs whose cost is not finite are never returned.
    ///   - allowed: whether (row, column) may be paired at all (the gate).
    /// - Returns: the pairs, sorted by row. Among assignments, the one with the most allowed pairs
    ///   is chosen, and among those the cheapest.
    package static func solve(rows: Int, columns: Int, cost: (Int, Int) -> Double, allowed: (Int, Int) -> Bool)
        -> [(row: Int, column: Int)]
    {
        guard rows > 0, columns > 0 else { return [] }
        // The algorithm below needs no more rows than columns; transpose otherwise.
        let transposed = rows > columns
        let n = transposed ? columns : rows
        let m = transposed ? rows : columns
        // Forbidden pairs get a cost so high that any assignment using fewer of them is cheaper,
        // which makes the optimum maximise the number of allowed pairs first.
        var matrix = [Double](repeating: 0, count: n * m)
        var largest = 0.0
        var allowedMask = [Bool](repeating: false, count: n * m)
        for i in 0..<n {
            for j in 0..<m {
                let (r, c) = transposed ? (j, i) : (i, j)
                let value = cost(r, c)
                if allowed(r, c), value.isFinite {
                    matrix[i * m + j] = value
                    allowedMask[i * m + j] = true
                    largest = max(largest, abs(value))
                }
            }
        }
        let forbidden = (largest + 1) * Double(n + 1) * 4
        for k in 0..<(n * m) where !allowedMask[k] { matrix[k] = forbidden }

        let columnOwner = assign(matrix, n: n, m: m)
        var pairs = [(row: Int, column: Int)]()
        for j in 0..<m {
            guard let i = columnOwner[j], allowedMask[i * m + j] else { continue }
            pairs.append(transposed ? (row: j, column: i) : (row: i, column: j))
        }
        pairs.sort { $0.row < $1.row }
        return pairs
    }

    /// For each column, the row assigned to it (nil: none) in a minimum-cost assignment of all `n`
    /// rows of the row-major `n × m` matrix (`n ≤ m`, every entry finite).
    private static func assign(_ a: [Double], n: Int, m: Int) -> [Int?] {
        // 1-based indices; column 0 is the virtual column from which each new row's search starts.
        var rowPotential = [Double](repeating: 0, count: n + 1)
        var columnPotential = [Double](repeating: 0, count: m + 1)
        var owner = [Int](repeating: 0, count: m + 1)  // row owning column j, 0 = free
        var previous = [Int](repeating: 0, count: m + 1)  // column before j on the alternating path
        var slack = [Double](repeating: 0, count: m + 1)
        var visited = [Bool](repeating: false, count: m + 1)

        for row in 1...n {
            owner[0] = row
            var current = 0
            for j in 0...m {
                slack[j] = .infinity
                visited[j] = false
            }
            // Grow a tree of tight edges (Dijkstra on reduced costs) until a free column is reached.
            repeat {
                visited[current] = true
                let i = owner[current]
                var delta = Double.infinity
                var next = 0
                for j in 1...m where !visited[j] {
                    let reduced = a[(i - 1) * m + (j - 1)] - rowPotential[i] - columnPotential[j]
                    if reduced < slack[j] {
                        slack[j] = reduced
                        previous[j] = current
                    }
                    if slack[j] < delta {
                        delta = slack[j]
                        next = j
                    }
                }
                // Every column visited cannot happen while n ≤ m; guard anyway rather than loop forever.
                guard next != 0 else { break }
                for j in 0...m {
                    if visited[j] {
                        rowPotential[owner[j]] += delta
                        columnPotential[j] -= delta
                    } else {
                        slack[j] -= delta
                    }
                }
                current = next
            } while owner[current] != 0
            // Flip the alternating path back to the virtual column.
            while current != 0 {
                let before = previous[current]
                owner[current] = owner[before]
                current = before
            }
        }
        return (0..<m).map { owner[$0 + 1] == 0 ? nil : owner[$0 + 1] - 1 }
    }
}

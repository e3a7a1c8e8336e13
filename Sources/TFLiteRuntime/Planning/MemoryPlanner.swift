/// A tensor that needs arena memory for the steps `firstUse...lastUse` of a plan.
struct AllocationRequest: Equatable {
    let tensor: Int
    let size: Int
    let firstUse: Int
    let lastUse: Int

    func overlaps(_ other: AllocationRequest) -> Bool {
        firstUse <= other.lastUse && other.firstUse <= lastUse
    }
}

/// Where each tensor lives in the arena, and how big the arena is.
struct ArenaPlan {
    var offsets: [Int: Int]
    var size: Int
}

/// Decides arena offsets for tensors from their sizes and lifetimes.
protocol MemoryPlanner {
    func plan(_ requests: [AllocationRequest]) -> ArenaPlan
}

/// Byte alignment of every arena offset (a cache line, and enough for any SIMD load).
let arenaAlignment = 64

@inline(__always) func alignUp(_ value: Int, _ alignment: Int = arenaAlignment) -> Int {
    (value + alignment - 1) / alignment * alignment
}

/// Gives every tensor its own slot: simple and obviously correct, used to check the greedy planner.
struct LinearPlanner: MemoryPlanner {
    func plan(_ requests: [AllocationRequest]) -> ArenaPlan {
        var offsets = [Int: Int]()
        var next = 0
        for r in requests {
            offsets[r.tensor] = next
            next += alignUp(r.size)
        }
        return ArenaPlan(offsets: offsets, size: next)
    }
}

/// Reuses memory between tensors whose lifetimes do not overlap.
///
/// Tensors are placed largest first; each goes at the lowest offset where it does not collide with
/// an already placed tensor that is alive at the same time (the strategy of TFLite's arena planner).
struct GreedyBySizePlanner: MemoryPlanner {
    func plan(_ requests: [AllocationRequest]) -> ArenaPlan {
        let order = requests.sorted { a, b in
            a.size != b.size ? a.size > b.size : a.firstUse < b.firstUse
        }
        var placed = [(request: AllocationRequest, offset: Int)]()
        var offsets = [Int: Int]()
        var size = 0
        for r in order {
            let conflicts = placed.filter { $0.request.overlaps(r) }.sorted { $0.offset < $1.offset }
            var candidate = 0
            for c in conflicts {
                if candidate + r.size <= c.offset { break }
                candidate = max(candidate, alignUp(c.offset + c.request.size))
            }
            placed.append((r, candidate))
            offsets[r.tensor] = candidate
            size = max(size, alignUp(candidate + r.size))
        }
        return ArenaPlan(offsets: offsets, size: size)
    }
}

import Testing

@testable import TFLiteRuntime

@Suite("Memory planners")
struct MemoryPlannerTests {
    static func randomRequests(_ count: Int, seed: UInt64) -> [AllocationRequest] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let first = Int.random(in: 0..<40, using: &rng)
            return AllocationRequest(
                tensor: i, size: Int.random(in: 1...5000, using: &rng), firstUse: first,
                lastUse: first + Int.random(in: 0..<8, using: &rng))
        }
    }

    /// No two tensors alive at the same time may share bytes.
    static func isValid(_ plan: ArenaPlan, _ requests: [AllocationRequest]) -> Bool {
        for a in requests {
            guard let oa = plan.offsets[a.tensor], oa % arenaAlignment == 0, oa + a.size <= plan.size else { return false }
            for b in requests where b.tensor > a.tensor && a.overlaps(b) {
                guard let ob = plan.offsets[b.tensor] else { return false }
                if oa < ob + b.size && ob < oa + a.size { return false }
            }
        }
        return true
    }

    @Test("greedy plans never overlap live tensors and use no more than linear plans", arguments: [1, 2, 3, 4, 5])
    func greedyIsValidAndSmaller(seed: Int) {
        let requests = MemoryPlannerTests.randomRequests(60, seed: UInt64(seed))
        let greedy = GreedyBySizePlanner().plan(requests)
        let linear = LinearPlanner().plan(requests)
        #expect(MemoryPlannerTests.isValid(greedy, requests))
        #expect(MemoryPlannerTests.isValid(linear, requests))
        #expect(greedy.size <= linear.size)
    }

    @Test("tensors with disjoint lifetimes share memory")
    func reuse() {
        let requests = [
            AllocationRequest(tensor: 0, size: 1000, firstUse: 0, lastUse: 1),
            AllocationRequest(tensor: 1, size: 1000, firstUse: 2, lastUse: 3),
        ]
        let plan = GreedyBySizePlanner().plan(requests)
        #expect(plan.offsets[0] == plan.offsets[1])
        #expect(plan.size == 1024)
    }
}

/// The byte layout of a small CONCATENATION or SPLIT (one thread's work: at most 64 KiB), worked
/// out at prepare, so that a run only gathers addresses and copies: no arrays are built and no
/// sizes are derived from shapes on every invoke (a streaming model concatenates and splits its
/// state on every invoke, a few hundred bytes each time, and the glue cost more than the copies).
///
/// A value holding one heap block that its kernel frees (`deallocate`) when it prepares again or
/// goes away; copying the value copies no array and retains nothing.
struct SmallAxisPlan {
    /// Each part's bytes per outer block, then each part's total bytes, then the whole's bytes.
    private let values: UnsafeMutableBufferPointer<Int>
    private let outer: Int
    let parts: Int

    /// Largest whole (in bytes) planned this way; larger ones split across threads instead.
    static let maximumBytes = 1 << 16

    /// The plan for a whole of `partBytes.reduce(0, +)` bytes cut into `outer` blocks, each block
    /// holding, part after part, `partBytes[i] / outer` bytes of part `i`. Nil when too large.
    init?(outer: Int, partBytes: [Int]) {
        let whole = partBytes.reduce(0, +)
        guard whole <= SmallAxisPlan.maximumBytes, outer >= 0 else { return nil }
        parts = partBytes.count
        self.outer = outer
        values = .allocate(capacity: 2 * parts + 1)
        for (i, bytes) in partBytes.enumerated() {
            values[i] = outer == 0 ? 0 : bytes / outer
            values[parts + i] = bytes
        }
        values[2 * parts] = whole
    }

    func deallocate() { values.deallocate() }

    /// Concatenates the node's inputs into its output 0; false (nothing written) when a tensor
    /// does not hold the bytes planned, which the general path then reports.
    @inline(__always)
    func join(_ node: Node) -> Bool {
        guard node.inputs.count == parts, let y = node.outputs.first, let out = y.data, y.byteCount >= values[2 * parts]
        else { return false }
        for i in 0..<parts {
            guard let t = node.inputs[i], t.byteCount >= values[parts + i], t.data != nil || values[parts + i] == 0 else {
                return false
            }
        }
        var at = out
        for o in 0..<outer {
            for i in 0..<parts {
                let run = values[i]
                if run > 0, let source = node.inputs[i]?.data { at.copyMemory(from: source + o * run, byteCount: run) }
                at += run
            }
        }
        return true
    }

    /// Splits input `valueIndex` into the node's outputs; false (nothing written) when a tensor
    /// does not hold the bytes planned.
    @inline(__always)
    func split(_ node: Node, valueIndex: Int) -> Bool {
        guard node.outputs.count == parts, valueIndex < node.inputs.count, let x = node.inputs[valueIndex],
            let whole = x.data, x.byteCount >= values[2 * parts]
        else { return false }
        for i in 0..<parts {
            let t = node.outputs[i]
            guard t.byteCount >= values[parts + i], t.data != nil || values[parts + i] == 0 else { return false }
        }
        var at = UnsafeRawPointer(whole)
        for o in 0..<outer {
            for i in 0..<parts {
                let run = values[i]
                if run > 0, let target = node.outputs[i].data { (target + o * run).copyMemory(from: at, byteCount: run) }
                at += run
            }
        }
        return true
    }
}

extension BroadcastPlan {
    /// `out[i] = f(a[ia], b[ib])` along the broadcast, one inner row at a time, for operators whose
    /// result type differs from their operands' (comparisons) or that `BinaryFunctor` does not cover.
    ///
    /// The pointers must hold the operands' and the output's element counts (the kernel checks).
    @inline(__always)
    func map<T, U>(
        _ a: UnsafePointer<T>, _ b: UnsafePointer<T>, _ out: UnsafeMutablePointer<U>, _ f: (T, T) -> U
    ) {
        guard outputCount > 0 else { return }
        switch kind {
        case .elementwise:
            for i in 0..<outputCount { out[i] = f(a[i], b[i]) }
        case .scalarA:
            let s = a[0]
            for i in 0..<outputCount { out[i] = f(s, b[i]) }
        case .scalarB:
            let s = b[0]
            for i in 0..<outputCount { out[i] = f(a[i], s) }
        case .general:
            let n = innerCount
            let aStep = aStrides[aStrides.count - 1] != 0 ? 1 : 0
            let bStep = bStrides[bStrides.count - 1] != 0 ? 1 : 0
            forEachRow(in: 0..<rowCount) { row, aOffset, bOffset in
                let o = out + row * n
                for i in 0..<n { o[i] = f(a[aOffset + i * aStep], b[bOffset + i * bStep]) }
            }
        }
    }
}

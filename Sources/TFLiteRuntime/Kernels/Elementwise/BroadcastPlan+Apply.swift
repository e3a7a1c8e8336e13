extension BroadcastPlan {
    /// Computes `out[i] = f(a[ia], b[ib])` over the whole output, where `ia` and `ib` follow the
    /// broadcast. Splits the rows over `threads` workers when there are enough elements.
    ///
    /// The pointers must hold the operands' and the output's element counts (the kernel checks).
    @inline(__always)
    func apply<F: BinaryFunctor>(
        _ f: F, _ a: UnsafePointer<F.Element>, _ b: UnsafePointer<F.Element>, _ out: UnsafeMutablePointer<F.Element>,
        threads: Int, minimumPerThread: Int
    ) {
        switch kind {
        case .elementwise:
            parallelFor(outputCount, threads: threads, minimumPerThread: minimumPerThread) { range in
                for i in range { out[i] = f(a[i], b[i]) }
            }
        case .scalarA:
            let s = a[0]
            parallelFor(outputCount, threads: threads, minimumPerThread: minimumPerThread) { range in
                for i in range { out[i] = f(s, b[i]) }
            }
        case .scalarB:
            let s = b[0]
            parallelFor(outputCount, threads: threads, minimumPerThread: minimumPerThread) { range in
                for i in range { out[i] = f(a[i], s) }
            }
        case .general:
            let n = innerCount
            let aRuns = aStrides[aStrides.count - 1] != 0, bRuns = bStrides[bStrides.count - 1] != 0
            parallelFor(rowCount, threads: threads, minimumPerThread: max(1, minimumPerThread / max(n, 1))) { rows in
                forEachRow(in: rows) { row, aOffset, bOffset in
                    let o = out + row * n, pa = a + aOffset, pb = b + bOffset
                    if aRuns && bRuns {
                        for i in 0..<n { o[i] = f(pa[i], pb[i]) }
                    } else if aRuns {
                        let s = pb[0]
                        for i in 0..<n { o[i] = f(pa[i], s) }
                    } else {
                        let s = pa[0]
                        for i in 0..<n { o[i] = f(s, pb[i]) }
                    }
                }
            }
        }
    }
}

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
                BroadcastPlan.rowVectorVector(
                    f, a + range.lowerBound, b + range.lowerBound, out + range.lowerBound, range.count)
            }
        case .scalarA:
            parallelFor(outputCount, threads: threads, minimumPerThread: minimumPerThread) { range in
                BroadcastPlan.rowScalarVector(f, a[0], b + range.lowerBound, out + range.lowerBound, range.count)
            }
        case .scalarB:
            parallelFor(outputCount, threads: threads, minimumPerThread: minimumPerThread) { range in
                BroadcastPlan.rowVectorScalar(f, a + range.lowerBound, b[0], out + range.lowerBound, range.count)
            }
        case .general:
            let n = innerCount
            let aRuns = aStrides[aStrides.count - 1] != 0
            let bRuns = bStrides[bStrides.count - 1] != 0
            parallelFor(rowCount, threads: threads, minimumPerThread: max(1, minimumPerThread / max(n, 1))) { rows in
                forEachRow(in: rows) { row, aOffset, bOffset in
                    if aRuns && bRuns {
                        BroadcastPlan.rowVectorVector(f, a + aOffset, b + bOffset, out + row * n, n)
                    } else if aRuns {
                        BroadcastPlan.rowVectorScalar(f, a + aOffset, b[bOffset], out + row * n, n)
                    } else {
                        BroadcastPlan.rowScalarVector(f, a[aOffset], b + bOffset, out + row * n, n)
                    }
                }
            }
        }
    }

    // The row loops are kept out of line on purpose: each is a small function the loop vectorizer
    // handles on its own (inlined into the odometer walk, LLVM left them scalar: 10x slower).

    @inline(never)
    static func rowVectorVector<F: BinaryFunctor>(
        _ f: F, _ a: UnsafePointer<F.Element>, _ b: UnsafePointer<F.Element>, _ out: UnsafeMutablePointer<F.Element>,
        _ n: Int
    ) {
        for i in 0..<n { out[i] = f(a[i], b[i]) }
    }

    @inline(never)
    static func rowVectorScalar<F: BinaryFunctor>(
        _ f: F, _ a: UnsafePointer<F.Element>, _ s: F.Element, _ out: UnsafeMutablePointer<F.Element>, _ n: Int
    ) {
        for i in 0..<n { out[i] = f(a[i], s) }
    }

    @inline(never)
    static func rowScalarVector<F: BinaryFunctor>(
        _ f: F, _ s: F.Element, _ b: UnsafePointer<F.Element>, _ out: UnsafeMutablePointer<F.Element>, _ n: Int
    ) {
        for i in 0..<n { out[i] = f(s, b[i]) }
    }
}

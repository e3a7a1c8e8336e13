/// A copy of an N-dimensional box of elements between two strided layouts.
///
/// This is the inner loop of most data-movement kernels: SLICE, STRIDED_SLICE, TRANSPOSE, the
/// space/depth shuffles, and the pieces of CONCATENATION and SPLIT. Strides are in elements and
/// may be negative (reversed slices). The plan drops unit dimensions and merges dimensions that are
/// contiguous in both layouts, so contiguous runs become single `copyMemory` calls.
///
/// A class, immutable once made: kernels keep a plan for their shapes, and using a kept plan must
/// not copy its three arrays (that was most of a small slice's cost).
final class StridedCopy {
    // `let`, so that reading them costs no dynamic exclusivity check (a `var` of a class is
    // checked on every access).
    let extents: [Int]
    let sourceStrides: [Int]
    let destinationStrides: [Int]
    let elementSize: Int
    /// Number of elements copied.
    let count: Int

    init(extents rawExtents: [Int], sourceStrides rawSource: [Int], destinationStrides rawDestination: [Int], elementSize: Int) {
        precondition(rawExtents.count == rawSource.count && rawExtents.count == rawDestination.count)
        self.elementSize = elementSize
        count = rawExtents.reduce(1, *)
        var extents = [Int](), sourceStrides = [Int](), destinationStrides = [Int]()
        if count > 0 {
            for i in rawExtents.indices where rawExtents[i] != 1 {
                if let last = extents.indices.last,
                    sourceStrides[last] == rawSource[i] * rawExtents[i],
                    destinationStrides[last] == rawDestination[i] * rawExtents[i]
                {
                    // The previous (outer) dimension steps exactly over this one in both layouts.
                    extents[last] *= rawExtents[i]
                    sourceStrides[last] = rawSource[i]
                    destinationStrides[last] = rawDestination[i]
                } else {
                    extents.append(rawExtents[i])
                    sourceStrides.append(rawSource[i])
                    destinationStrides.append(rawDestination[i])
                }
            }
            StridedCopy.moveLongUnitStrideDimensionInward(&extents, &sourceStrides, &destinationStrides)
        }
        (self.extents, self.sourceStrides, self.destinationStrides) = (extents, sourceStrides, destinationStrides)
    }

    /// When the innermost run is short and strided (a transpose ending in a small dimension), loop
    /// innermost over a long dimension that is contiguous on one side instead; order does not matter
    /// because every element is written exactly once.
    private static func moveLongUnitStrideDimensionInward(
        _ extents: inout [Int], _ sourceStrides: inout [Int], _ destinationStrides: inout [Int]
    ) {
        guard let inner = extents.indices.last, extents[inner] < 16 else { return }
        if sourceStrides[inner] == 1 && destinationStrides[inner] == 1 { return }
        var best = inner
        for i in extents.indices where i != inner {
            let unit = abs(sourceStrides[i]) == 1 || abs(destinationStrides[i]) == 1
            if unit && extents[i] > extents[best] { best = i }
        }
        guard best != inner, extents[best] >= 2 * extents[inner] else { return }
        extents.swapAt(best, inner)
        sourceStrides.swapAt(best, inner)
        destinationStrides.swapAt(best, inner)
    }

    /// Copies from `source` to `destination` (each pointing at the box's first element).
    func run(from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, threads: Int = 1) {
        guard count > 0 else { return }
        let rank = extents.count
        if rank == 0 {
            destination.copyMemory(from: source, byteCount: elementSize)
            return
        }
        // The two innermost dimensions run in a tight loop; the rest are walked by an odometer.
        let outerRank = max(rank - 2, 0)
        if outerRank == 0 {
            // One block (most slices of small models, once contiguous dimensions are merged).
            copyInner(source, 0, destination, 0)
            return
        }
        let outerCount = MoveSupport.product(extents, 0..<outerRank)
        let rowBytes = (rank >= 2 ? extents[rank - 2] * extents[rank - 1] : extents[0]) * elementSize
        let minimum = max(1, (1 << 16) / max(rowBytes, 1))
        if threads <= 1 || outerCount < 2 * minimum {
            walk(0..<outerCount, outerRank, source, destination)
            return
        }
        parallelFor(outerCount, threads: threads, minimumPerThread: minimum) { range in
            walk(range, outerRank, source, destination)
        }
    }

    /// Copies the blocks `range` of the outer dimensions (row-major), each by `copyInner`.
    private func walk(
        _ range: Range<Int>, _ outerRank: Int, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer
    ) {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: outerRank) { index in
            var rest = range.lowerBound
            var sourceOffset = 0
            var destinationOffset = 0
            for d in stride(from: outerRank - 1, through: 0, by: -1) {
                index[d] = rest % extents[d]
                rest /= extents[d]
                sourceOffset += index[d] * sourceStrides[d]
                destinationOffset += index[d] * destinationStrides[d]
            }
            for _ in range {
                copyInner(source, sourceOffset, destination, destinationOffset)
                var d = outerRank - 1
                while d >= 0 {
                    index[d] += 1
                    sourceOffset += sourceStrides[d]
                    destinationOffset += destinationStrides[d]
                    if index[d] < extents[d] { break }
                    sourceOffset -= extents[d] * sourceStrides[d]
                    destinationOffset -= extents[d] * destinationStrides[d]
                    index[d] = 0
                    d -= 1
                }
            }
        }
    }

    /// Copies the two innermost dimensions (or the only one) starting at the given element offsets.
    @inline(__always)
    private func copyInner(
        _ source: UnsafeRawPointer, _ sourceOffset: Int, _ destination: UnsafeMutableRawPointer, _ destinationOffset: Int
    ) {
        let rank = extents.count
        let n = extents[rank - 1]
        let ss = sourceStrides[rank - 1]
        let ds = destinationStrides[rank - 1]
        let rows = rank >= 2 ? extents[rank - 2] : 1
        let rowSource = rank >= 2 ? sourceStrides[rank - 2] : 0
        let rowDestination = rank >= 2 ? destinationStrides[rank - 2] : 0
        let es = elementSize
        if rows >= 16 && n >= 16 && !(ss == 1 && ds == 1) {
            // A transpose-like pair: walk it in square tiles so both sides stay in cache.
            let tile = 16
            for r0 in stride(from: 0, to: rows, by: tile) {
                for i0 in stride(from: 0, to: n, by: tile) {
                    let count = min(tile, n - i0)
                    for r in r0..<min(r0 + tile, rows) {
                        let s = source + (sourceOffset + r * rowSource + i0 * ss) * es
                        let d = destination + (destinationOffset + r * rowDestination + i0 * ds) * es
                        StridedCopy.copyRun(s, ss, d, ds, count, es)
                    }
                }
            }
            return
        }
        for r in 0..<rows {
            let s = source + (sourceOffset + r * rowSource) * es
            let d = destination + (destinationOffset + r * rowDestination) * es
            if ss == 1 && ds == 1 {
                d.copyMemory(from: s, byteCount: n * es)
            } else {
                StridedCopy.copyRun(s, ss, d, ds, n, es)
            }
        }
    }

    /// Copies `n` elements stepping `ss` and `ds` elements apart.
    @inline(__always)
    private static func copyRun(
        _ s: UnsafeRawPointer, _ ss: Int, _ d: UnsafeMutableRawPointer, _ ds: Int, _ n: Int, _ es: Int
    ) {
        switch es {
        case 1: gather(UInt8.self, s, ss, d, ds, n)
        case 2: gather(UInt16.self, s, ss, d, ds, n)
        case 4: gather(UInt32.self, s, ss, d, ds, n)
        case 8: gather(UInt64.self, s, ss, d, ds, n)
        default:
            for i in 0..<n { (d + i * ds * es).copyMemory(from: s + i * ss * es, byteCount: es) }
        }
    }

    @inline(__always)
    private static func gather<T: FixedWidthInteger>(
        _: T.Type, _ s: UnsafeRawPointer, _ ss: Int, _ d: UnsafeMutableRawPointer, _ ds: Int, _ n: Int
    ) {
        let size = MemoryLayout<T>.size
        for i in 0..<n {
            d.storeBytes(of: s.loadUnaligned(fromByteOffset: i * ss * size, as: T.self), toByteOffset: i * ds * size, as: T.self)
        }
    }
}

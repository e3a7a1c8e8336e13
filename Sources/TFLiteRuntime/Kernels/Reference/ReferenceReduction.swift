/// Plain scalar versions of the reductions: the oracle the kernels in `Kernels/Reduction/` are
/// tested against.
///
/// Every input element is mapped to its output element by decomposing its index; no merged
/// dimensions, no threads.
enum ReferenceReduction {
    /// The output shape and, for each input element, the index of the output element it folds into.
    /// Nil when an axis is out of range.
    static func mapping(shape: [Int], axes: [Int], keepDims: Bool) -> (shape: [Int], target: [Int])? {
        let rank = shape.count
        var isReduced = Set<Int>()
        if rank > 0 {
            for a in axes {
                guard a >= -rank, a < rank else { return nil }
                isReduced.insert(a < 0 ? a + rank : a)
            }
        }
        var outShape = [Int]()
        for d in 0..<rank {
            if isReduced.contains(d) {
                if keepDims { outShape.append(1) }
            } else {
                outShape.append(shape[d])
            }
        }
        let count = shape.reduce(1, *)
        var target = [Int](repeating: 0, count: count)
        for flat in 0..<count {
            var rest = flat
            var index = [Int](repeating: 0, count: rank)
            for d in stride(from: rank - 1, through: 0, by: -1) {
                index[d] = rest % shape[d]
                rest /= shape[d]
            }
            var out = 0
            for d in 0..<rank where !isReduced.contains(d) {
                out = out * shape[d] + index[d]
            }
            target[flat] = out
        }
        return (outShape, target)
    }

    /// SUM (float sums in double), MEAN and REDUCE_MAX of float values.
    static func float(_ op: ReduceKernel.Operation, _ x: [Float], shape: [Int], axes: [Int], keepDims: Bool)
        -> (values: [Float], shape: [Int])?
    {
        guard let (outShape, target) = mapping(shape: shape, axes: axes, keepDims: keepDims) else { return nil }
        let outCount = outShape.reduce(1, *)
        if op == .mean && x.isEmpty { return ([Float](repeating: .nan, count: outCount), outShape) }
        var acc = [Double](repeating: op == .max ? -Double(Float.greatestFiniteMagnitude) : 0, count: outCount)
        var counts = [Int](repeating: 0, count: outCount)
        for (i, v) in x.enumerated() {
            let o = target[i]
            counts[o] += 1
            acc[o] = op == .max ? Swift.max(acc[o], Double(v)) : acc[o] + Double(v)
        }
        let values = (0..<outCount).map { o in Float(op == .mean ? acc[o] / Double(counts[o]) : acc[o]) }
        return (values, outShape)
    }

    /// SUM and REDUCE_MAX (wrapping sums) and MEAN (64-bit sum, truncated) of integers.
    static func integer<T: FixedWidthInteger & SignedInteger>(
        _ op: ReduceKernel.Operation, _ x: [T], shape: [Int], axes: [Int], keepDims: Bool
    ) -> (values: [T], shape: [Int])? {
        guard let (outShape, target) = mapping(shape: shape, axes: axes, keepDims: keepDims) else { return nil }
        let outCount = outShape.reduce(1, *)
        if op == .mean && x.isEmpty { return ([T](repeating: 0, count: outCount), outShape) }
        var sums = [Int64](repeating: 0, count: outCount)
        var maxima = [T](repeating: T.min, count: outCount)
        var wrapped = [T](repeating: 0, count: outCount)
        var counts = [Int64](repeating: 0, count: outCount)
        for (i, v) in x.enumerated() {
            let o = target[i]
            counts[o] += 1
            sums[o] = sums[o] &+ Int64(v)
            wrapped[o] = wrapped[o] &+ v
            maxima[o] = Swift.max(maxima[o], v)
        }
        switch op {
        case .sum: return (wrapped, outShape)
        case .max: return (maxima, outShape)
        case .mean: return ((0..<outCount).map { T(truncatingIfNeeded: sums[$0] / Swift.max(counts[$0], 1)) }, outShape)
        }
    }

    /// ARG_MAX (`isMax`) or ARG_MIN along `axis`: the first index of the extreme value among the
    /// values that are not NaN; 0 when all are NaN.
    static func argMinMax<T: Comparable>(_ x: [T], shape: [Int], axis: Int, isMax: Bool) -> (
        values: [Int], shape: [Int]
    )? {
        let rank = shape.count
        guard rank > 0, axis >= -rank, axis < rank else { return nil }
        let a = axis < 0 ? axis + rank : axis
        let outer = shape[..<a].reduce(1, *)
        let n = shape[a]
        let inner = shape[(a + 1)...].reduce(1, *)
        var outShape = shape
        outShape.remove(at: a)
        guard n > 0 else { return outer * inner == 0 ? ([], outShape) : nil }
        var result = [Int]()
        for o in 0..<outer {
            for j in 0..<inner {
                let column = (0..<n).map { x[(o * n + $0) * inner + j] }
                let numbers = column.filter { $0 == $0 }  // NaN is the one value unequal to itself
                guard let extreme = isMax ? numbers.max() : numbers.min() else {
                    result.append(0)
                    continue
                }
                result.append(column.firstIndex(of: extreme) ?? 0)
            }
        }
        return (result, outShape)
    }
}

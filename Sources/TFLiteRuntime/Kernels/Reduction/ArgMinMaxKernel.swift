/// ARG_MAX and ARG_MIN: the index of the largest (smallest) value along the axis in input 1 (a
/// one-element int32 or int64 tensor, negative counting from the end), which is removed from the
/// shape. The index type is `ArgMaxOptions`/`ArgMinOptions.output_type` (field 0): int32 or int64.
///
/// Ties resolve to the lowest index, as in LiteRT: a later value replaces the best only when it is
/// strictly greater (smaller). NaNs are skipped (see `ArgComparable`). Inputs: float32, int32,
/// int64 (which LiteRT refuses), bool (false < true) and int8/uint8 (a quantized tensor's order is
/// that of its stored integers, so no dequantizing is needed).
final class ArgMinMaxKernel: OpKernel {
    let isMax: Bool
    let indexType: TensorType
    /// Resolved in `prepare`: the element counts before, along and after the axis.
    private var outer = 0, axisSize = 0, inner = 0

    init(_ node: Node, isMax: Bool) throws {
        self.isMax = isMax
        try node.expect(inputs: 2, outputs: 1)
        let raw = try ArgMinMaxParameters(node).outputType
        guard let type = TensorType(rawValue: raw), type == .int32 || type == .int64 else {
            throw node.error("output_type \(raw) is not supported; supported: INT32, INT64")
        }
        indexType = type
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let axis = try node.input(1)
        try node.expect(x, type: .float32, .int32, .int64, .uint8, .int8, .bool, role: "input")
        try node.expect(axis, type: .int32, .int64, role: "axis")
        guard axis.elementCount == 1 else { throw node.error("axis must have one element, has shape \(axis.shape)") }
        guard x.rank >= 1 else { throw node.error("input must have at least one dimension") }
        guard node.knowsValues(of: axis) else {
            node.markOutputsDynamic()
            return
        }
        let values = try ReduceKernel.values(of: axis, node)
        let rank = x.rank
        guard let value = values.first, value >= -rank, value < rank else {
            throw node.error("axis \(values) is out of range for input of rank \(rank)")
        }
        let a = value < 0 ? value + rank : value
        outer = x.shape[..<a].reduce(1, *)
        axisSize = x.shape[a]
        inner = x.shape[(a + 1)...].reduce(1, *)
        if indexType == .int32 && axisSize > Int(Int32.max) {
            throw node.error("axis size \(axisSize) does not fit INT32 indices")
        }
        if axisSize == 0 && outer * inner > 0 {
            throw node.error("cannot take the arg \(isMax ? "max" : "min") along an empty axis")
        }
        var shape = x.shape
        shape.remove(at: a)
        try node.setOutput(0, type: indexType, shape: shape)
    }

    func eval(_ node: Node) throws {
        switch try node.input(0).type {
        case .float32: try run(Float.self, node)
        case .int32: try run(Int32.self, node)
        case .int64: try run(Int64.self, node)
        case .uint8, .bool: try run(UInt8.self, node)
        case .int8: try run(Int8.self, node)
        case let type: throw node.error("input type \(type.name) is not supported")
        }
    }

    private func run<T: ArgComparable>(_: T.Type, _ node: Node) throws {
        let x = try node.elementwiseBuffer(try node.input(0), T.self, role: "input")
        guard x.count == outer * axisSize * inner else { throw node.error("input does not match the prepared shape") }
        switch indexType {
        case .int32: try scan(x, try node.elementwiseBuffer(try node.output(0), Int32.self, role: "output"), node)
        default: try scan(x, try node.elementwiseBuffer(try node.output(0), Int64.self, role: "output"), node)
        }
    }

    private func scan<T: ArgComparable, I: FixedWidthInteger>(
        _ x: UnsafeMutableBufferPointer<T>, _ y: UnsafeMutableBufferPointer<I>, _ node: Node
    ) throws {
        guard y.count == outer * inner else { throw node.error("output does not match the prepared shape") }
        guard let px = x.baseAddress, let py = y.baseAddress, axisSize > 0 else { return }
        let n = axisSize
        let inner = self.inner
        let isMax = self.isMax
        let block = n * inner
        if outer >= inner || inner == 1 {
            // One worker per group of outer slices.
            parallelFor(outer, threads: node.threadCount, minimumPerThread: max(1, 32768 / max(block, 1))) { range in
                for o in range {
                    ArgMinMaxKernel.slice(px + o * block, py + o * inner, n, inner, 0..<inner, isMax)
                }
            }
        } else {
            // Few outer slices with long rows: split each row of positions instead.
            for o in 0..<outer {
                parallelFor(inner, threads: node.threadCount, minimumPerThread: max(1, 32768 / n)) { part in
                    ArgMinMaxKernel.slice(px + o * block, py + o * inner, n, inner, part, isMax)
                }
            }
        }
    }

    /// One `[n, inner]` slice: for each position in `part`, the index along `n` of its best value.
    @inline(__always)
    static func slice<T: ArgComparable, I: FixedWidthInteger>(
        _ x: UnsafePointer<T>, _ y: UnsafeMutablePointer<I>, _ n: Int, _ inner: Int, _ part: Range<Int>, _ isMax: Bool
    ) {
        if inner == 1 {
            var index = 0
            if isMax {
                var best = T.leastValue
                for k in 0..<n where x[k] > best {
                    best = x[k]
                    index = k
                }
            } else {
                var best = T.greatestValue
                for k in 0..<n where x[k] < best {
                    best = x[k]
                    index = k
                }
            }
            y[0] = I(truncatingIfNeeded: index)
            return
        }
        // Walk the slice row by row (in memory order), keeping the best values of the part's positions.
        withUnsafeTemporaryAllocation(of: T.self, capacity: part.count) { best in
            guard let b = best.baseAddress else { return }
            let start = part.lowerBound
            let y = y + start
            b.initialize(repeating: isMax ? T.leastValue : T.greatestValue, count: part.count)
            for j in 0..<part.count { y[j] = 0 }
            for k in 0..<n {
                let row = x + k * inner + start
                if isMax {
                    for j in 0..<part.count where row[j] > b[j] {
                        b[j] = row[j]
                        y[j] = I(truncatingIfNeeded: k)
                    }
                } else {
                    for j in 0..<part.count where row[j] < b[j] {
                        b[j] = row[j]
                        y[j] = I(truncatingIfNeeded: k)
                    }
                }
            }
        }
    }
}

/// An element type ARG_MAX/ARG_MIN compare, with bounds to seed the search from.
///
/// Seeding with -infinity (+infinity) instead of the first element gives the same index for every
/// input without NaNs, and skips NaNs the way LiteRT does: `[NaN, 2, 1]` has arg max 1 and arg min
/// 2, and an all-NaN row gives 0.
protocol ArgComparable: Comparable {
    static var leastValue: Self { get }
    static var greatestValue: Self { get }
}

extension Float: ArgComparable {
    static var leastValue: Float { -.infinity }
    static var greatestValue: Float { .infinity }
}

extension ArgComparable where Self: FixedWidthInteger {
    static var leastValue: Self { .min }
    static var greatestValue: Self { .max }
}

extension Int32: ArgComparable {}
extension Int64: ArgComparable {}
extension UInt8: ArgComparable {}
extension Int8: ArgComparable {}

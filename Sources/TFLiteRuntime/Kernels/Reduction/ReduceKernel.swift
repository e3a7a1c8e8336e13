/// MEAN, SUM and REDUCE_MAX over the axes in input 1 (int32 or int64; negative and repeated axes
/// allowed), keeping reduced axes as 1 when `ReducerOptions.keep_dims` (field 0) is set.
///
/// Float32, int32 and int64. As in LiteRT: SUM and REDUCE_MAX accumulate in the element type
/// (integer sums wrap); float MEAN sums in float and divides by the count; integer MEAN sums in 64
/// bits and truncates toward zero; MEAN of an empty input is NaN (0 for integers) and REDUCE_MAX of
/// nothing is the lowest finite value. SUM and REDUCE_MAX copy a BOOL input given an empty axis list,
/// as LiteRT does.
final class ReduceKernel: OpKernel {
    enum Operation { case mean, sum, max }

    let operation: Operation
    let keepDims: Bool
    private var layout: ReductionLayout?
    /// 64-bit sums for integer MEAN, one per output element; sized in `prepare`.
    private var wideSums: [Int64] = []
    /// Quantized MEAN/SUM: int32 sums per output and the requantization.
    private var quantizedSums: [Int32] = []
    private var quantized: QuantizedReduceParams?

    init(_ node: Node, _ operation: Operation) throws {
        self.operation = operation
        try node.expect(inputs: 2, outputs: 1)
        keepDims = try ReducerParameters(node).keepDims
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let axis = try node.input(1)
        switch x.type {
        case .float32, .int32, .int64:
            break
        case .uint8, .int8, .int16:
            break
        case .bool where operation != .mean:
            break
        default:
            throw node.error("input type \(x.type.name) is not supported; supported: FLOAT32, INT32, INT64")
        }
        try node.expect(axis, type: .int32, .int64, role: "axis")
        guard axis.rank <= 1 else { throw node.error("axis must be a scalar or a vector, has shape \(axis.shape)") }
        guard node.knowsValues(of: axis) else {
            node.markOutputsDynamic()
            return
        }
        let axes = try ReduceKernel.values(of: axis, node)
        if x.type == .bool && !axes.isEmpty {
            throw node.error("BOOL input is only supported with an empty axis list (a copy)")
        }
        let layout = try ReductionLayout(node, shape: x.shape, axes: axes, keepDims: keepDims)
        self.layout = layout
        if operation == .mean && x.type != .float32 && wideSums.count != layout.outputCount {
            wideSums = [Int64](repeating: 0, count: layout.outputCount)
        }
        if x.type.quantizedRange != nil, x.type != .int32, operation != .max {
            quantized = try QuantizedReduceParams(
                node, sum: operation == .sum, input: x, output: try node.output(0), axes: axes, keepDims: keepDims,
                reducedCount: layout.reducedCount)
            if quantizedSums.count != layout.outputCount {
                quantizedSums = [Int32](repeating: 0, count: layout.outputCount)
            }
        }
        try node.setOutput(0, type: x.type, shape: layout.outputShape)
    }

    /// The input's bytes as the output's: LiteRT's copy when nothing is reduced (an empty axis list
    /// on a BOOL input, or quantized REDUCE_PROD over axes of size 1).
    static func copy(_ node: Node, _ layout: ReductionLayout) throws {
        let x = try node.input(0)
        let y = try node.output(0)
        guard x.elementCount == y.elementCount, x.type == y.type else {
            throw node.error("tensor sizes do not match the prepared reduction")
        }
        let src = try MoveSupport.source(x, node, role: "input")
        let dst = try MoveSupport.destination(y, node, role: "output")
        if src != UnsafeRawPointer(dst) { dst.copyMemory(from: src, byteCount: x.elementCount * x.type.byteSize) }
    }

    /// The integer values of a shape-like operand, checked to be all there.
    static func values(of tensor: RuntimeTensor, _ node: Node) throws -> [Int] {
        switch tensor.type {
        case .int32: return try node.elementwiseBuffer(tensor, Int32.self, role: "axis").map(Int.init)
        case .int64: return try node.elementwiseBuffer(tensor, Int64.self, role: "axis").map(Int.init)
        default: throw node.error("axis has type \(tensor.type.name); supported: INT32, INT64")
        }
    }

    func eval(_ node: Node) throws {
        guard let layout else { throw node.error("eval before prepare") }
        let type = try node.input(0).type
        switch (type, operation) {
        case (.float32, .mean): try meanOfFloats(node, layout)
        case (.int32, .mean): try meanOfIntegers(Int32.self, node, layout)
        case (.int64, .mean): try meanOfIntegers(Int64.self, node, layout)
        case (.float32, _): try fold(Float.self, node, layout)
        case (.int32, _): try fold(Int32.self, node, layout)
        case (.int64, _): try fold(Int64.self, node, layout)
        case (.uint8, _): try reduceQuantized(UInt8.self, node, layout)
        case (.int8, _): try reduceQuantized(Int8.self, node, layout)
        case (.int16, _): try reduceQuantized(Int16.self, node, layout)
        case (.bool, _): try ReduceKernel.copy(node, layout)
        default: throw node.error("input type \(type.name) is not supported")
        }
    }

    /// The input and output elements, checked against the prepared layout; nil when there is no output.
    private func buffers<T>(_: T.Type, _ node: Node, _ layout: ReductionLayout) throws
        -> (x: UnsafeMutableBufferPointer<T>, y: UnsafeMutableBufferPointer<T>)?
    {
        let x = try node.elementwiseBuffer(try node.input(0), T.self, role: "input")
        let y = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        guard x.count == layout.inputCount, y.count == layout.outputCount else {
            throw node.error("tensor sizes do not match the prepared reduction")
        }
        return y.count == 0 ? nil : (x, y)
    }

    private func fold<T: ElementwiseScalar>(_: T.Type, _ node: Node, _ layout: ReductionLayout) throws {
        guard let (x, y) = try buffers(T.self, node, layout) else { return }
        switch operation {
        case .sum: layout.fold(SumReducer<T>(), UnsafePointer(x.baseAddress), y, threads: node.threadCount)
        case .max: layout.fold(MaxReducer<T>(), UnsafePointer(x.baseAddress), y, threads: node.threadCount)
        case .mean: throw node.error("MEAN is not a plain fold")
        }
    }

    private func meanOfFloats(_ node: Node, _ layout: ReductionLayout) throws {
        guard let (x, y) = try buffers(Float.self, node, layout) else { return }
        guard layout.inputCount > 0 else {
            // LiteRT fills the output with NaN when there is nothing to average.
            y.initialize(repeating: .nan)
            return
        }
        layout.fold(SumReducer<Float>(), UnsafePointer(x.baseAddress), y, threads: node.threadCount)
        let count = Float(layout.reducedCount)
        for i in y.indices { y[i] /= count }
    }

    private func meanOfIntegers<T: ElementwiseScalar & FixedWidthInteger & SignedInteger>(
        _: T.Type, _ node: Node, _ layout: ReductionLayout
    ) throws {
        guard let (x, y) = try buffers(T.self, node, layout) else { return }
        guard layout.inputCount > 0 else {
            // LiteRT's NaN fill, which for integers is 0.
            y.initialize(repeating: 0)
            return
        }
        guard wideSums.count == layout.outputCount else { throw node.error("eval before prepare") }
        let count = Int64(layout.reducedCount)
        wideSums.withUnsafeMutableBufferPointer { sums in
            layout.fold(WideSumReducer<T>(), UnsafePointer(x.baseAddress), sums, threads: node.threadCount)
            // Int64 division truncates toward zero, as LiteRT's does.
            for i in y.indices { y[i] = T(truncatingIfNeeded: sums[i] / count) }
        }
    }

    private func reduceQuantized<T: QuantizedElement>(_: T.Type, _ node: Node, _ layout: ReductionLayout) throws {
        guard let (x, y) = try buffers(T.self, node, layout) else { return }
        if operation == .max {
            layout.fold(QuantizedMaxReducer<T>(), UnsafePointer(x.baseAddress), y, threads: node.threadCount)
            return
        }
        guard let quantized, quantizedSums.count == layout.outputCount else { throw node.error("eval before prepare") }
        guard layout.inputCount > 0 else {
            // LiteRT leaves zeros (its NaN fill, for integers) when there is nothing to reduce.
            y.initialize(repeating: 0)
            return
        }
        let qmin = Int32(T.min)
        let qmax = Int32(T.max)
        quantizedSums.withUnsafeMutableBufferPointer { sums in
            layout.fold(QuantizedSumReducer<T>(), UnsafePointer(x.baseAddress), sums, threads: node.threadCount)
            for i in 0..<y.count {
                y[i] = T(truncatingIfNeeded: quantized.output(sums[i], index: i, qmin: qmin, qmax: qmax))
            }
        }
    }
}

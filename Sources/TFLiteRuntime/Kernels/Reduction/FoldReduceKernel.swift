import Foundation

/// REDUCE_PROD, REDUCE_MIN, REDUCE_ANY and REDUCE_ALL over the axes in input 1 (int32; negative and
/// repeated axes allowed, an empty list copies), keeping reduced axes as 1 when
/// `ReducerOptions.keep_dims` is set.
///
/// Types, as LiteRT accepts them:
/// - REDUCE_MIN: float32, int32, int64, and int8/uint8/int16 compared as stored integers (input and
///   output must share scale and zero point).
/// - REDUCE_PROD: float32, int32, int64 (integers wrap), unquantized int8/uint8/int16 (wrap), and
///   quantized int8/int16 with LiteRT's per-step requantization (see `QuantizedProdReducer`).
/// - REDUCE_ANY / REDUCE_ALL: bool.
///
/// MIN and PROD copy a BOOL input given an empty axis list, as LiteRT does. An empty input gives the
/// operation's neutral element (the type's maximum for MIN, 1 for PROD).
final class FoldReduceKernel: OpKernel {
    enum Operation { case prod, min, any, all }

    let operation: Operation
    let keepDims: Bool
    private var layout: ReductionLayout?
    /// Quantized REDUCE_PROD: the multiplier applied after every step and once at the end.
    private var prodScaling: FixedPoint.Multiplier?
    private var wideProducts: [Int64] = []
    /// Quantized REDUCE_PROD that folds one element per output: LiteRT copies the stored values
    /// unchanged (no requantization), whatever the output's scale.
    private var copiesQuantized = false

    init(_ node: Node, _ operation: Operation) throws {
        self.operation = operation
        try node.expect(inputs: 2, outputs: 1)
        keepDims = try ReducerParameters(node).keepDims
    }

    func prepare(_ node: Node) throws {
        let x = try node.input(0)
        let axis = try node.input(1)
        let y = try node.output(0)
        switch operation {
        case .any, .all:
            try node.expect(x, type: .bool, role: "input")
        case .min, .prod:
            try node.expect(x, type: .float32, .int32, .int64, .int8, .uint8, .int16, .bool, role: "input")
        }
        try node.expect(axis, type: .int32, role: "axis")
        guard axis.rank <= 1 else { throw node.error("axis must be a scalar or a vector, has shape \(axis.shape)") }
        let quantized = x.quantization != nil && [.int8, .uint8, .int16].contains(x.type)
        if quantized && operation == .prod && x.type == .uint8 {
            throw node.error("quantized UINT8 is not supported by REDUCE_PROD")
        }
        if quantized && x.type == .int16 && (x.zeroPoint != 0 || y.zeroPoint != 0) {
            throw node.error("quantized INT16 needs zero points of 0")
        }
        if quantized && operation == .min && (x.scale != y.scale || x.zeroPoint != y.zeroPoint) {
            throw node.error("input and output must have the same scale and zero point")
        }
        guard node.knowsValues(of: axis) else {
            node.markOutputsDynamic()
            return
        }
        let axes = try ReduceKernel.values(of: axis, node)
        if x.type == .bool && (operation == .min || operation == .prod) && !axes.isEmpty {
            throw node.error("BOOL input is only supported with an empty axis list (a copy)")
        }
        let layout = try ReductionLayout(node, shape: x.shape, axes: axes, keepDims: keepDims)
        self.layout = layout
        prodScaling = nil
        copiesQuantized = operation == .prod && quantized && layout.inputCount > 0 && layout.reducedCount == 1
        if operation == .prod && quantized && !copiesQuantized {
            guard layout.inputCount > 0, layout.outputCount > 0 else {
                throw node.error("quantized REDUCE_PROD of an empty tensor is not supported")
            }
            guard x.scale > 0, y.scale > 0 else { throw node.error("quantized tensors need positive scales") }
            let n = Double(layout.inputCount / layout.outputCount)
            let scaling = Double(x.scale) / Foundation.pow(Double(y.scale), 1.0 / n)
            let m = FixedPoint.quantizeMultiplier(scaling)
            // The 64-bit multiply shifts right by 15 - shift bits, which must be a valid shift.
            guard m.shift < 15, m.shift > -48 else {
                throw node.error("REDUCE_PROD scaling \(scaling) is out of range")
            }
            prodScaling = m
            if wideProducts.count != layout.outputCount {
                wideProducts = [Int64](repeating: 0, count: layout.outputCount)
            }
        }
        try node.setOutput(0, type: x.type, shape: layout.outputShape)
    }

    func eval(_ node: Node) throws {
        guard let layout else { throw node.error("eval before prepare") }
        let type = try node.input(0).type
        switch (operation, type) {
        case (.min, .bool), (.prod, .bool): try ReduceKernel.copy(node, layout)
        case (.prod, .int8) where copiesQuantized, (.prod, .int16) where copiesQuantized:
            try ReduceKernel.copy(node, layout)
        case (.any, _): try fold(AnyReducer(), UInt8.self, node, layout)
        case (.all, _): try fold(AllReducer(), UInt8.self, node, layout)
        case (.min, .float32): try fold(MinReducer<Float>(), Float.self, node, layout)
        case (.min, .int32): try fold(MinReducer<Int32>(), Int32.self, node, layout)
        case (.min, .int64): try fold(MinReducer<Int64>(), Int64.self, node, layout)
        case (.min, .int8): try fold(MinReducer<Int8>(), Int8.self, node, layout)
        case (.min, .uint8): try fold(MinReducer<UInt8>(), UInt8.self, node, layout)
        case (.min, .int16): try fold(MinReducer<Int16>(), Int16.self, node, layout)
        case (.prod, .float32): try fold(FloatProductReducer(), Float.self, node, layout)
        case (.prod, .int32): try fold(IntegerProductReducer<Int32>(), Int32.self, node, layout)
        case (.prod, .int64): try fold(IntegerProductReducer<Int64>(), Int64.self, node, layout)
        case (.prod, .uint8): try fold(IntegerProductReducer<UInt8>(), UInt8.self, node, layout)
        case (.prod, .int8):
            if prodScaling != nil {
                try quantizedProd(Int8.self, node, layout)
            } else {
                try fold(IntegerProductReducer<Int8>(), Int8.self, node, layout)
            }
        case (.prod, .int16):
            if prodScaling != nil {
                try quantizedProd(Int16.self, node, layout)
            } else {
                try fold(IntegerProductReducer<Int16>(), Int16.self, node, layout)
            }
        default: throw node.error("input type \(type.name) is not supported")
        }
    }

    private func fold<R: Reducer, T>(_ reducer: R, _: T.Type, _ node: Node, _ layout: ReductionLayout) throws
    where R.Element == T, R.Accumulator == T {
        let x = try node.elementwiseBuffer(try node.input(0), T.self, role: "input")
        let y = try node.elementwiseBuffer(try node.output(0), T.self, role: "output")
        guard x.count == layout.inputCount, y.count == layout.outputCount else {
            throw node.error("tensor sizes do not match the prepared reduction")
        }
        guard y.count > 0 else { return }
        layout.fold(reducer, UnsafePointer(x.baseAddress), y, threads: node.threadCount)
    }

    private func quantizedProd<T: QuantizedElement>(_: T.Type, _ node: Node, _ layout: ReductionLayout) throws {
        guard let m = prodScaling, wideProducts.count == layout.outputCount else {
            throw node.error("eval before prepare")
        }
        let xt = try node.input(0)
        let yt = try node.output(0)
        let x = try node.elementwiseBuffer(xt, T.self, role: "input")
        let y = try node.elementwiseBuffer(yt, T.self, role: "output")
        guard x.count == layout.inputCount, y.count == layout.outputCount, y.count > 0 else {
            throw node.error("tensor sizes do not match the prepared reduction")
        }
        let reducer = QuantizedProdReducer<T>(zeroPoint: Int32(xt.zeroPoint), scaling: m)
        let outputZeroPoint = Int32(yt.zeroPoint)
        let qmin = Int32(T.min)
        let qmax = Int32(T.max)
        wideProducts.withUnsafeMutableBufferPointer { products in
            // One thread: the per-step rescaling makes partial products impossible to merge.
            layout.fold(reducer, UnsafePointer(x.baseAddress), products, threads: 1)
            for i in 0..<y.count {
                let r =
                    QuantizedProdReducer<T>.multiply(Int64(Int32(truncatingIfNeeded: products[i])), m)
                    &+ outputZeroPoint
                y[i] = T(truncatingIfNeeded: Swift.min(qmax, Swift.max(qmin, r)))
            }
        }
    }
}

/// Minimum as LiteRT computes it, `acc < x ? acc : x` (so a NaN replaces the minimum so far, and
/// a later number replaces the NaN); an empty input gives the type's maximum.
struct MinReducer<T: Comparable & MinIdentity>: Reducer {
    var identity: T { T.minimumIdentity }
    var emptyValue: T { T.minimumEmpty }
    @inline(__always) func callAsFunction(_ accumulator: T, _ x: T) -> T { accumulator < x ? accumulator : x }
    @inline(__always) func merge(_ a: T, _ b: T) -> T { a < b ? a : b }
}

/// Types REDUCE_MIN folds: the value to start from (+infinity for floats, so a first element of
/// +infinity stays) and LiteRT's fill for an empty input (`numeric_limits::max()`).
protocol MinIdentity {
    static var minimumIdentity: Self { get }
    static var minimumEmpty: Self { get }
}

extension Float: MinIdentity {
    static var minimumIdentity: Float { .infinity }
    static var minimumEmpty: Float { .greatestFiniteMagnitude }
}

extension MinIdentity where Self: FixedWidthInteger {
    static var minimumIdentity: Self { .max }
    static var minimumEmpty: Self { .max }
}

extension Int32: MinIdentity {}
extension Int64: MinIdentity {}
extension Int8: MinIdentity {}
extension UInt8: MinIdentity {}
extension Int16: MinIdentity {}

struct FloatProductReducer: Reducer {
    var identity: Float { 1 }
    var emptyValue: Float { 1 }
    @inline(__always) func callAsFunction(_ accumulator: Float, _ x: Float) -> Float { accumulator * x }
    @inline(__always) func merge(_ a: Float, _ b: Float) -> Float { a * b }
}

/// Integer product in the element type; wraps on overflow, as LiteRT's does.
struct IntegerProductReducer<T: FixedWidthInteger>: Reducer {
    var identity: T { 1 }
    var emptyValue: T { 1 }
    @inline(__always) func callAsFunction(_ accumulator: T, _ x: T) -> T { accumulator &* x }
    @inline(__always) func merge(_ a: T, _ b: T) -> T { a &* b }
}

/// Bools are stored as bytes; any nonzero byte is true, results are 0 or 1.
struct AnyReducer: Reducer {
    var identity: UInt8 { 0 }
    var emptyValue: UInt8 { 0 }
    @inline(__always) func callAsFunction(_ accumulator: UInt8, _ x: UInt8) -> UInt8 { accumulator | (x != 0 ? 1 : 0) }
    @inline(__always) func merge(_ a: UInt8, _ b: UInt8) -> UInt8 { a | b }
}

struct AllReducer: Reducer {
    var identity: UInt8 { 1 }
    var emptyValue: UInt8 { 1 }
    @inline(__always) func callAsFunction(_ accumulator: UInt8, _ x: UInt8) -> UInt8 { accumulator & (x != 0 ? 1 : 0) }
    @inline(__always) func merge(_ a: UInt8, _ b: UInt8) -> UInt8 { a & b }
}

/// Quantized REDUCE_PROD: the first element of each output is taken as `q - zp`; every further one
/// multiplies in 64 bits and is rescaled at once by `s_in / s_out^(1/n)` (LiteRT's 64-bit
/// `MultiplyByQuantizedMultiplier`), so the running product stays in range. The accumulator is a
/// 64-bit value whose `notStarted` sentinel marks an output that has seen no element yet.
struct QuantizedProdReducer<T: QuantizedElement>: Reducer {
    static var notStarted: Int64 { .min }
    let zeroPoint: Int32
    let scaling: FixedPoint.Multiplier
    var identity: Int64 { Self.notStarted }
    var emptyValue: Int64 { 0 }

    @inline(__always) func callAsFunction(_ accumulator: Int64, _ x: T) -> Int64 {
        let v = Int32(x) &- zeroPoint
        if accumulator == Self.notStarted { return Int64(v) }
        let product = Int64(Int32(truncatingIfNeeded: accumulator)) &* Int64(v)
        return Int64(Self.multiply(product, scaling))
    }

    func merge(_ a: Int64, _ b: Int64) -> Int64 { a }

    /// LiteRT's `MultiplyByQuantizedMultiplier(int64_t, ...)`: a 16-bit rounded multiplier and one
    /// rounding shift, the result truncated to 32 bits as C++'s conversion does.
    @inline(__always) static func multiply(_ x: Int64, _ m: FixedPoint.Multiplier) -> Int32 {
        let reduced: Int64 = m.multiplier < 0x7FFF_0000 ? (Int64(m.multiplier) + (1 << 15)) >> 16 : 0x7FFF
        let totalShift = Int64(15 - m.shift)
        return Int32(truncatingIfNeeded: (x &* reduced &+ (Int64(1) << (totalShift - 1))) >> totalShift)
    }
}

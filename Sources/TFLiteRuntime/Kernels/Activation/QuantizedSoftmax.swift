import Foundation

/// SOFTMAX on uint8/int8 as LiteRT's optimized kernel computes it (`optimized_ops::Softmax` with
/// `PopulateSoftmaxLookupTable`; LiteRT's x86 builds do not define `TFLITE_SOFTMAX_USE_UINT16_LUT`):
///
/// - a 256-entry float table `table[255 − d] = expf(−s_in × beta × d)` of the distance `d` of a raw
///   value below the row maximum;
/// - per row, a float sum of table values in order, `inv = 1 / (sum × s_out)`;
/// - each output `table[…] × inv` quantized as `Int(p + 0.5)` for uint8 (x86's path) and
///   `round(p) + zp` for int8 and int16 (a uint8/int8 input may have an int16 output).
struct QuantizedSoftmax {
    var table = [Float](repeating: 0, count: 256)
    var outputScale: Float = 0
    var outputZeroPoint: Int32 = 0

    init() {}

    init(_ node: Node, beta: Float, input x: RuntimeTensor, output y: RuntimeTensor) throws {
        guard y.type == x.type || y.type == .int16 else {
            throw node.error("output type \(y.type.name) differs from input \(x.type.name)")
        }
        guard x.quantization != nil, y.quantization != nil, y.scale > 0 else {
            throw node.error("quantized input and output need scales")
        }
        if y.type == .int8 {
            guard y.zeroPoint == -128, Swift.abs(y.scale - 1.0 / 256) <= 0.001 / 256 else {
                throw node.error("int8 output needs zero point -128 and scale 1/256")
            }
        }
        table = ReferenceQuantizedActivation.softmaxTable(inputScale: x.scale, beta: beta)
        outputScale = y.scale
        outputZeroPoint = Int32(y.zeroPoint)
    }

    func apply<T: QuantizedElement>(_ node: Node, _: T.Type, _ x: RuntimeTensor, _ y: RuntimeTensor) throws {
        if y.type == .int16 { return try apply(node, T.self, Int16.self, x, y) }
        try apply(node, T.self, T.self, x, y)
    }

    func apply<T: QuantizedElement, U: QuantizedElement>(
        _ node: Node, _: T.Type, _: U.Type, _ x: RuntimeTensor, _ y: RuntimeTensor
    ) throws {
        let input = try node.elementwiseBuffer(x, T.self, role: "input")
        let output = try node.elementwiseBuffer(y, U.self, role: "output")
        guard input.count == output.count else { throw node.error("output is not sized like the input") }
        let depth = x.rank == 0 ? 1 : x.shape[x.rank - 1]
        guard depth > 0, let px = input.baseAddress, let py = output.baseAddress else { return }
        let rows = input.count / depth
        let scale = outputScale, zp = outputZeroPoint
        let unsigned = U.self == UInt8.self
        table.withUnsafeBufferPointer { t in
            guard let tp = t.baseAddress else { return }
            parallelFor(rows, threads: node.threadCount, minimumPerThread: max(1, 8192 / depth)) { range in
                for r in range {
                    QuantizedSoftmax.row(px + r * depth, py + r * depth, depth, tp, scale, zp, unsigned)
                }
            }
        }
    }

    @inline(__always)
    static func row<T: QuantizedElement, U: QuantizedElement>(
        _ x: UnsafePointer<T>, _ y: UnsafeMutablePointer<U>, _ n: Int, _ table: UnsafePointer<Float>, _ scale: Float,
        _ zp: Int32, _ unsigned: Bool
    ) {
        var maximum = Int32(T.min)
        for j in 0..<n { maximum = Swift.max(maximum, Int32(x[j])) }
        let base = table + Int(255 - maximum)
        var sum: Float = 0
        for j in 0..<n { sum += base[Int(x[j])] }
        let inverse: Float = 1 / (sum * scale)
        let lo = Int32(U.min), hi = Int32(U.max)
        for j in 0..<n {
            let p = base[Int(x[j])] * inverse
            let q =
                unsigned
                ? ReferenceQuantizedActivation.truncateToInt32(p + 0.5)
                : ReferenceQuantizedActivation.truncateToInt32(p.rounded(.toNearestOrAwayFromZero)) &+ zp
            y[j] = U(truncatingIfNeeded: Swift.min(hi, Swift.max(lo, q)))
        }
    }
}

extension ReferenceQuantizedActivation {
    /// `PopulateSoftmaxLookupTable`: `table[255 − v] = expf(−s_in × beta × v)`, in float.
    static func softmaxTable(inputScale: Float, beta: Float) -> [Float] {
        let scale = -inputScale * beta
        var table = [Float](repeating: 0, count: 256)
        for v in 0...255 { table[255 - v] = Foundation.exp(scale * Float(v)) }
        return table
    }

    /// Scalar quantized softmax of one row of raw values (the oracle for `QuantizedSoftmax`).
    static func softmax(
        _ row: [Int32], inputScale: Float, beta: Float, outputScale: Float, outputZeroPoint: Int32, unsigned: Bool
    ) -> [Int32] {
        let table = softmaxTable(inputScale: inputScale, beta: beta)
        let maximum = row.max() ?? 0
        var sum: Float = 0
        for v in row { sum += table[Int(255 - maximum + v)] }
        let inverse: Float = 1 / (sum * outputScale)
        let (lo, hi): (Int32, Int32) = unsigned ? (0, 255) : (-128, 127)
        return row.map { v in
            let p = table[Int(255 - maximum + v)] * inverse
            let q = unsigned ? truncateToInt32(p + 0.5) : truncateToInt32(p.rounded(.toNearestOrAwayFromZero)) + outputZeroPoint
            return min(hi, max(lo, q))
        }
    }
}

/// SOFTMAX on int16 (zero points 0, output scale 2^-15), as LiteRT's `reference_ops::SoftmaxInt16`:
/// the difference to the row maximum rescaled so [-65535, 0] spans [-10, 0], an interpolated exp
/// table, a Q16.15 sum normalised by its leading zeros, and an interpolated 1/(1+x) table.
struct QuantizedSoftmaxInt16 {
    var expTable: [Int16] = []
    var reciprocalTable: [Int16] = []
    var multiplier = FixedPoint.Multiplier(multiplier: 0, shift: 0)

    init() {}

    init(_ node: Node, beta: Float, input x: RuntimeTensor, output y: RuntimeTensor) throws {
        guard x.quantization != nil, y.quantization != nil, x.zeroPoint == 0, y.zeroPoint == 0 else {
            throw node.error("int16 input and output need zero points of 0")
        }
        guard Swift.abs(y.scale - 1.0 / 32768) <= 0.001 / 32768 else { throw node.error("int16 output scale must be 2^-15") }
        let range = 65535.0
        expTable = FixedPoint.lookupTable16(
            inputScale: 10.0 / range, inputZeroPoint: 32767, outputScale: 2.0 / range, outputZeroPoint: 0) { Foundation.exp($0) }
        reciprocalTable = FixedPoint.lookupTable16(
            inputScale: 1.0 / range, inputZeroPoint: -32768, outputScale: 2.0 / range, outputZeroPoint: 0) { 1.0 / (1.0 + $0) }
        multiplier = FixedPoint.quantizeMultiplier(Double(x.scale * beta) / (10.0 / 65535.0))
    }

    func apply(_ node: Node, _ x: RuntimeTensor, _ y: RuntimeTensor) throws {
        let input = try node.elementwiseBuffer(x, Int16.self, role: "input")
        let output = try node.elementwiseBuffer(y, Int16.self, role: "output")
        guard input.count == output.count, expTable.count == 513, reciprocalTable.count == 513 else {
            throw node.error("eval before prepare")
        }
        let depth = x.rank == 0 ? 1 : x.shape[x.rank - 1]
        guard depth > 0 else { return }
        expTable.withUnsafeBufferPointer { e in
            reciprocalTable.withUnsafeBufferPointer { r in
                guard let ep = e.baseAddress, let rp = r.baseAddress else { return }
                for row in 0..<(input.count / depth) {
                    QuantizedSoftmaxInt16.row(input, output, row * depth, depth, multiplier, ep, rp)
                }
            }
        }
    }

    static func row(
        _ x: UnsafeMutableBufferPointer<Int16>, _ y: UnsafeMutableBufferPointer<Int16>, _ start: Int, _ n: Int,
        _ m: FixedPoint.Multiplier, _ expTable: UnsafePointer<Int16>, _ reciprocalTable: UnsafePointer<Int16>
    ) {
        var maximum = Int16.min
        for c in 0..<n { maximum = Swift.max(maximum, x[start + c]) }
        var sum: Int32 = 0
        for c in 0..<n {
            let scaled = FixedPoint.multiply(Int32(x[start + c]) - Int32(maximum), by: m) &+ 32767
            let e = FixedPoint.lookup16(Int16(clamping: scaled), expTable)
            y[start + c] = e
            sum &+= Int32(e)
        }
        let headroomPlusOne = UInt32(bitPattern: sum).leadingZeroBitCount
        let shifted = Int32(truncatingIfNeeded: ((Int64(sum) << Int64(headroomPlusOne - 1)) + (1 << 13)) >> 14)
        let symmetric = shifted &- ((1 << 15) + (1 << 16))
        let reciprocal = Int64(FixedPoint.lookup16(Int16(clamping: symmetric), reciprocalTable))
        let rightShift = Int64(31 - headroomPlusOne)
        let round = Int64(1) << (rightShift - 1)
        for c in 0..<n {
            let r = (Int64(y[start + c]) * reciprocal + round) >> rightShift
            y[start + c] = Int16(Swift.min(Swift.max(r, 0), 32767))
        }
    }
}

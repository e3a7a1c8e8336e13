import Foundation

/// The integer parameters of a quantized ADD/SUB/MUL, computed once in `prepare` exactly as
/// LiteRT's `add.cc`/`sub.cc`/`mul.cc` do.
struct QuantizedBinaryParams {
    var input1Offset: Int32 = 0
    var input2Offset: Int32 = 0
    var outputOffset: Int32 = 0
    var leftShift: Int32 = 0
    var input1 = FixedPoint.Multiplier(multiplier: 0, shift: 0)
    var input2 = FixedPoint.Multiplier(multiplier: 0, shift: 0)
    var output = FixedPoint.Multiplier(multiplier: 0, shift: 0)
    var activationMin: Int32 = 0
    var activationMax: Int32 = 0

    /// ADD and SUB: both inputs rescaled to twice the larger input scale after a left shift of 20
    /// (8-bit) or 15 (int16 general-scale path).
    static func addSub(
        a: RuntimeTensor, b: RuntimeTensor, out: RuntimeTensor, activation: FusedActivation
    ) -> QuantizedBinaryParams {
        var p = QuantizedBinaryParams()
        p.input1Offset = -Int32(a.zeroPoint)
        p.input2Offset = -Int32(b.zeroPoint)
        p.outputOffset = Int32(out.zeroPoint)
        p.leftShift = out.type == .int16 ? 15 : 20
        // As in LiteRT: the doubled maximum is computed in float, the ratios in double.
        let twiceMax = Double(2 * max(a.scale, b.scale))
        p.input1 = FixedPoint.quantizeMultiplier(Double(a.scale) / twiceMax)
        p.input2 = FixedPoint.quantizeMultiplier(Double(b.scale) / twiceMax)
        p.output = FixedPoint.quantizeMultiplier(twiceMax / Double(Float(1 << p.leftShift) * out.scale))
        let range = out.type.quantizedRange ?? (0, 0)
        (p.activationMin, p.activationMax) = FixedPoint.activationRange(
            activation, scale: out.scale, zeroPoint: out.zeroPoint, qmin: range.min, qmax: range.max)
        return p
    }

    /// MUL: one multiplier `s1 × s2 / s_out` (computed in float as LiteRT does, then widened).
    static func multiply(
        a: RuntimeTensor, b: RuntimeTensor, out: RuntimeTensor, activation: FusedActivation
    ) -> QuantizedBinaryParams {
        var p = QuantizedBinaryParams()
        p.input1Offset = -Int32(a.zeroPoint)
        p.input2Offset = -Int32(b.zeroPoint)
        p.outputOffset = Int32(out.zeroPoint)
        p.output = doubleRoundingMultiplier(Double(a.scale * b.scale / out.scale))
        let range = out.type.quantizedRange ?? (0, 0)
        (p.activationMin, p.activationMax) = FixedPoint.activationRange(
            activation, scale: out.scale, zeroPoint: out.zeroPoint, qmin: range.min, qmax: range.max)
        return p
    }

    /// `QuantizeMultiplier` as LiteRT's double-rounding build (the x86 wheel) compiles it: the shift
    /// saturates at 30 only under `TFLITE_SINGLE_ROUNDING`, so a multiplier of 2^30 or more keeps
    /// its exponent (a MUL into an output scale near 1e-35, as in traffic_model's conv-LSTM cell,
    /// has a shift near 90, and its vector blocks then shift every product out: see
    /// `multiplyBlock`). Below that, `FixedPoint.quantizeMultiplier`.
    static func doubleRoundingMultiplier(_ real: Double) -> FixedPoint.Multiplier {
        guard real.isFinite, real >= 0x1p30 else { return FixedPoint.quantizeMultiplier(real) }
        let (fraction, exponent) = frexp(real)
        var fixed = Int64((fraction * 0x1p31).rounded(.toNearestOrAwayFromZero))
        var shift = exponent
        if fixed == Int64(1) << 31 {
            fixed /= 2
            shift += 1
        }
        return FixedPoint.Multiplier(multiplier: Int32(fixed), shift: shift)
    }

    /// SQUARED_DIFFERENCE (int8 only in LiteRT): inputs rescaled as for ADD but with a left shift of
    /// 7, the difference squared, then `twiceMax² / (2^14 · s_out)`.
    static func squaredDifference(a: RuntimeTensor, b: RuntimeTensor, out: RuntimeTensor) -> QuantizedBinaryParams {
        var p = QuantizedBinaryParams()
        p.input1Offset = -Int32(a.zeroPoint)
        p.input2Offset = -Int32(b.zeroPoint)
        p.outputOffset = Int32(out.zeroPoint)
        p.leftShift = 7
        let twiceMax = Double(2 * max(a.scale, b.scale))
        p.input1 = FixedPoint.quantizeMultiplier(Double(a.scale) / twiceMax)
        p.input2 = FixedPoint.quantizeMultiplier(Double(b.scale) / twiceMax)
        p.output = FixedPoint.quantizeMultiplier(twiceMax * twiceMax / Double(Float(1 << 14) * out.scale))
        (p.activationMin, p.activationMax) = (-128, 127)
        return p
    }

    @inline(__always)
    func squaredDifference(_ x: Int32, _ y: Int32) -> Int32 {
        let s1 = FixedPoint.multiply((x + input1Offset) &<< leftShift, by: input1)
        let s2 = FixedPoint.multiply((y + input2Offset) &<< leftShift, by: input2)
        let d = s1 &- s2
        let raw = FixedPoint.multiply(d &* d, by: output) &+ outputOffset
        return min(activationMax, max(activationMin, raw))
    }

    /// One quantized ADD (or SUB when `subtract`) of raw values.
    @inline(__always)
    func add(_ x: Int32, _ y: Int32, subtract: Bool) -> Int32 {
        let s1 = FixedPoint.multiply((x + input1Offset) &<< leftShift, by: input1)
        let s2 = FixedPoint.multiply((y + input2Offset) &<< leftShift, by: input2)
        let raw = FixedPoint.multiply(subtract ? s1 &- s2 : s1 &+ s2, by: output) &+ outputOffset
        return min(activationMax, max(activationMin, raw))
    }

    /// One quantized MUL of raw values.
    @inline(__always)
    func multiply(_ x: Int32, _ y: Int32) -> Int32 {
        let raw = FixedPoint.multiply((x + input1Offset) &* (y + input2Offset), by: output) &+ outputOffset
        return min(activationMax, max(activationMin, raw))
    }
}

struct QuantizedAddFunctor<T: QuantizedElement>: BinaryFunctor {
    let p: QuantizedBinaryParams
    let subtract: Bool
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T {
        T(truncatingIfNeeded: p.add(Int32(a), Int32(b), subtract: subtract))
    }
}

struct QuantizedMultiplyFunctor<T: QuantizedElement>: BinaryFunctor {
    let p: QuantizedBinaryParams
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T {
        T(truncatingIfNeeded: p.multiply(Int32(a), Int32(b)))
    }
}

struct QuantizedSquaredDifferenceFunctor<T: QuantizedElement>: BinaryFunctor {
    let p: QuantizedBinaryParams
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T {
        T(truncatingIfNeeded: p.squaredDifference(Int32(a), Int32(b)))
    }
}

/// MAXIMUM/MINIMUM on raw quantized values (LiteRT compares the stored integers; the model
/// gives inputs and output one scale).
struct QuantizedMaxMinFunctor<T: QuantizedElement>: BinaryFunctor {
    let maximum: Bool
    @inline(__always) func callAsFunction(_ a: T, _ b: T) -> T { maximum ? Swift.max(a, b) : Swift.min(a, b) }
}

/// The vector blocks of LiteRT's optimized 8-bit ADD and MUL without broadcasting, as its x86
/// build runs them (NEON through NEON_2_SSE; see `FixedPoint.neonRoundingDoublingHighMul`).
/// `AddElementwiseInt8` and int8 `MulElementwise` take blocks of 16 elements, the uint8 versions
/// blocks of 8; the remaining tail uses the scalar formulas above.
extension QuantizedBinaryParams {
    /// int8 ADD block lane: one combined left shift `left_shift + input_shift` before `vqrdmulh`.
    @inline(__always)
    func addBlockInt8(_ x: Int32, _ y: Int32) -> Int32 {
        let a = FixedPoint.neonRoundingDoublingHighMul(
            FixedPoint.neonShift(x + input1Offset, Int(leftShift) + input1.shift), input1.multiplier)
        let b = FixedPoint.neonRoundingDoublingHighMul(
            FixedPoint.neonShift(y + input2Offset, Int(leftShift) + input2.shift), input2.multiplier)
        let s = FixedPoint.roundingDivideByPOT(
            FixedPoint.neonRoundingDoublingHighMul(a &+ b, output.multiplier), max(0, -output.shift))
        let r = Int16(truncatingIfNeeded: s) &+ Int16(truncatingIfNeeded: outputOffset)
        return min(activationMax, max(activationMin, min(127, max(-128, Int32(r)))))
    }

    /// uint8 ADD block lane (and every `AddScalarBroadcast` block): `vqrdmulh` after the left shift,
    /// then a truncating shift by the input shift; saturates to `[lower, upper]`.
    @inline(__always)
    func addBlockShiftAfter(_ x: Int32, _ y: Int32, lower: Int32, upper: Int32) -> Int32 {
        let a = FixedPoint.neonShift(
            FixedPoint.neonRoundingDoublingHighMul((x + input1Offset) &<< leftShift, input1.multiplier), input1.shift)
        let b = FixedPoint.neonShift(
            FixedPoint.neonRoundingDoublingHighMul((y + input2Offset) &<< leftShift, input2.multiplier), input2.shift)
        let s = FixedPoint.roundingDivideByPOT(
            FixedPoint.neonRoundingDoublingHighMul(a &+ b, output.multiplier), max(0, -output.shift))
        let r = Int16(truncatingIfNeeded: s) &+ Int16(truncatingIfNeeded: outputOffset)
        return min(activationMax, max(activationMin, min(upper, max(lower, Int32(r)))))
    }

    /// MUL block lane (both 8-bit types): saturating narrow to int16, wrapping offset add,
    /// saturating narrow to the element type.
    @inline(__always)
    /// `saturating` false is uint8 `MulSimpleBroadcast`, which narrows with `vmovn` (truncating).
    func multiplyBlock(_ x: Int32, _ y: Int32, lower: Int32, upper: Int32, saturating: Bool = true) -> Int32 {
        // `vshlq_s32` by 32 or more (a shift kept above 30, see `doubleRoundingMultiplier`) gives 0.
        let left = max(0, output.shift)
        let p = left >= 32 ? 0 : FixedPoint.neonShift((x + input1Offset) &* (y + input2Offset), left)
        let s = FixedPoint.roundingDivideByPOT(
            FixedPoint.neonRoundingDoublingHighMul(p, output.multiplier), max(0, -output.shift))
        let r = (saturating ? Int16(clamping: s) : Int16(truncatingIfNeeded: s)) &+ Int16(truncatingIfNeeded: outputOffset)
        return min(activationMax, max(activationMin, min(upper, max(lower, Int32(r)))))
    }

    /// Elementwise (same-shape) 8-bit ADD or MUL with LiteRT's block/tail split, on one thread: the
    /// reference `QuantizedBinaryRuns` (what the kernel runs) is tested against.
    func applyElementwise8<T: QuantizedElement>(
        multiply: Bool, _ a: UnsafePointer<T>, _ b: UnsafePointer<T>, _ out: UnsafeMutablePointer<T>, _ count: Int
    ) {
        let signed = T.self == Int8.self
        let block = signed ? 16 : 8
        let blocked = count / block * block
        let lower = Int32(T.min), upper = Int32(T.max)
        let vectorised = !multiply && addBlocksSIMD(a, b, out, blocked)
        for i in (vectorised ? blocked : 0)..<blocked {
            let x = Int32(a[i]), y = Int32(b[i])
            let r =
                multiply
                ? multiplyBlock(x, y, lower: lower, upper: upper)
                : signed ? addBlockInt8(x, y) : addBlockShiftAfter(x, y, lower: lower, upper: upper)
            out[i] = T(truncatingIfNeeded: r)
        }
        for i in blocked..<count {
            let x = Int32(a[i]), y = Int32(b[i])
            out[i] = T(truncatingIfNeeded: multiply ? self.multiply(x, y) : add(x, y, subtract: false))
        }
    }
}

/// LiteRT's optimized 8-bit broadcasting (`BinaryBroadcastFiveFold` after `ProcessBroadcastShapes`):
/// the output is walked as runs handed to the elementwise function (when the innermost broadcast
/// dimension `y4` > 1) or to the scalar-broadcast function, each of which splits its run into
/// NEON blocks and a scalar tail. Shapes LiteRT classes as generic broadcasts use the scalar
/// formulas everywhere (`BroadcastAdd6DSlow`), as does this runtime's plain broadcast loop.
struct FiveFoldBroadcast {
    /// Whether LiteRT swaps the inputs (the second input is the one that broadcasts fast).
    let swap: Bool
    let y: [Int]

    /// nil for same shapes and for LiteRT's generic broadcasts.
    init?(_ shape0: [Int], _ shape1: [Int]) {
        let rank = max(shape0.count, shape1.count)
        let s0 = [Int](repeating: 1, count: rank - shape0.count) + shape0
        let s1 = [Int](repeating: 1, count: rank - shape1.count) + shape1
        if s0 == s1 { return nil }
        var firstFast: Bool?
        for i in stride(from: rank - 1, through: 0, by: -1) {
            if s0[i] == s1[i] { continue }
            if s0[i] == 1 { firstFast = true; break }
            if s1[i] == 1 { firstFast = false; break }
            return nil
        }
        guard let first = firstFast else { return nil }
        swap = !first
        let a = first ? s0 : s1, b = first ? s1 : s0
        var y = [1, 1, 1, 1, 1]
        var i = rank - 1
        while i >= 0 && a[i] == b[i] { y[4] *= b[i]; i -= 1 }
        while i >= 0 && a[i] == 1 { y[3] *= b[i]; i -= 1 }
        while i >= 0 && a[i] == b[i] { y[2] *= a[i]; i -= 1 }
        while i >= 0 && b[i] == 1 { y[1] *= a[i]; i -= 1 }
        while i >= 0 && a[i] == b[i] { y[0] *= b[i]; i -= 1 }
        if i >= 0 { return nil }
        self.y = y
    }
}

extension QuantizedBinaryParams {
    /// The parameters with the two inputs' roles exchanged (LiteRT's `swap_data`).
    func swapped() -> QuantizedBinaryParams {
        var p = self
        swap(&p.input1Offset, &p.input2Offset)
        swap(&p.input1, &p.input2)
        return p
    }

    /// One elementwise run of LiteRT's broadcast loop (blocks from the run's start).
    @inline(__always)
    func elementwiseRun<T: QuantizedElement>(
        multiply: Bool, _ a: UnsafePointer<T>, _ b: UnsafePointer<T>, _ out: UnsafeMutablePointer<T>, _ n: Int
    ) {
        applyElementwise8(multiply: multiply, a, b, out, n)
    }

    /// One scalar-broadcast run (`AddScalarBroadcast` / `MulSimpleBroadcast`): the scalar is input 1.
    @inline(__always)
    func scalarRun<T: QuantizedElement>(
        multiply: Bool, _ s: T, _ b: UnsafePointer<T>, _ out: UnsafeMutablePointer<T>, _ n: Int
    ) {
        let signed = T.self == Int8.self
        let block = multiply && signed ? 16 : 8
        let blocked = n / block * block
        let lower = Int32(T.min), upper = Int32(T.max)
        let x = Int32(s)
        for i in 0..<blocked {
            let y = Int32(b[i])
            let r =
                multiply
                ? multiplyBlock(x, y, lower: lower, upper: upper, saturating: signed)
                : addBlockShiftAfter(x, y, lower: lower, upper: upper)
            out[i] = T(truncatingIfNeeded: r)
        }
        for i in blocked..<n {
            let y = Int32(b[i])
            out[i] = T(truncatingIfNeeded: multiply ? self.multiply(x, y) : add(x, y, subtract: false))
        }
    }

    /// `BinaryBroadcastFiveFold` for 8-bit ADD or MUL, LiteRT's loops as written, on one thread (the
    /// reference for `QuantizedBinaryRuns`). `a`, `b` are the kernel's inputs 0 and 1.
    func applyFiveFold<T: QuantizedElement>(
        multiply: Bool, _ f: FiveFoldBroadcast, _ a: UnsafePointer<T>, _ b: UnsafePointer<T>,
        _ out: UnsafeMutablePointer<T>
    ) {
        let p = f.swap ? swapped() : self
        var in1 = f.swap ? b : a
        var in2Reset = f.swap ? a : b
        var o = out
        let (y0, y1, y2, y3, y4) = (f.y[0], f.y[1], f.y[2], f.y[3], f.y[4])
        if y4 > 1 {
            for _ in 0..<y0 {
                var in2 = in2Reset
                for _ in 0..<y1 {
                    in2 = in2Reset
                    for _ in 0..<y2 {
                        for _ in 0..<y3 {
                            p.elementwiseRun(multiply: multiply, in1, in2, o, y4)
                            in2 += y4
                            o += y4
                        }
                        in1 += y4
                    }
                }
                in2Reset = in2
            }
        } else {
            for _ in 0..<y0 {
                var in2 = in2Reset
                for _ in 0..<y1 {
                    in2 = in2Reset
                    for _ in 0..<y2 {
                        p.scalarRun(multiply: multiply, in1[0], in2, o, y3)
                        in2 += y3
                        o += y3
                        in1 += 1
                    }
                }
                in2Reset = in2
            }
        }
    }
}

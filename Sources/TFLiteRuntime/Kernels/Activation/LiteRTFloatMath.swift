import Foundation

/// The exponential and the row sums of LiteRT's float SOFTMAX and LOG_SOFTMAX, bit for bit as its x86
/// build computes them (Eigen on SSE, no FMA: each multiply-add is a rounded product, then a rounded
/// sum). Measured against LiteRT 2.3 on rows of 1 to 1001 logits, several betas and ranks: 0 differing
/// bits.
extension LiteRTActivation {
    /// Eigen's packet `exp` (the one used on whole blocks of 4): a reduction by ln 2 in two parts, a
    /// degree-6 polynomial, then `2^m` applied in four exact steps so denormal results round once.
    /// Below -104 the answer is 0; +inf stays +inf; NaN stays NaN.
    @inline(__always)
    static func exp(_ value: Float) -> Float {
        // NaN and arguments below -104 are computed as 0 and selected at the end: the reduction then
        // sees a bounded argument (no trapping conversion, a loop that vectorizes).
        let x0 = value.isNaN || value < -104 ? 0 : value
        let x = 88.723 < x0 ? 88.723 : x0
        let m = floorBounded(x * 1.442_695_040_888_963_41 + 0.5)
        var r = m * -0.693_359_375 + x
        r = m * 2.121_944_40e-4 + r
        let r2 = r * r
        var even = r2 * 1.374_496_379_867_196_083_068_847_656_25e-3 + 4.166_965_186_595_916_748_046_875e-2
        let odd = r2 * 8.368_944_749_236_106_872_558_593_75e-3 + 0.166_665_181_517_601_013_183_593_75
        even = r2 * even + 0.499_999_880_790_710_449_218_75
        var y = r * odd + even
        y = r2 * y + (r + 1)
        // y · 2^m as y · 2^b · 2^b · 2^b · 2^(m − 3b), b = ⌊m / 4⌋: every factor is a normal float.
        // m is an integer in -150...128 here; adding 1.5 · 2^23 puts it in the low bits of the pattern.
        let e = Int32(bitPattern: (m + 12_582_912).bitPattern &- 0x4B40_0000)
        let b = e >> 2
        let c = Float(bitPattern: UInt32(truncatingIfNeeded: b &+ 127) << 23)
        let rest = Float(bitPattern: UInt32(truncatingIfNeeded: e &- 3 &* b &+ 127) << 23)
        let scaled = Swift.max(((y * c) * c) * c * rest, x0)
        return value.isNaN ? value : (value < -104 ? 0 : scaled)
    }

    /// Eigen's vectorized sum of `n >= 1` floats whose first SIMD-aligned element is at `start`: packets
    /// of 4 from `start` in two interleaved accumulators, folded as (l0 + l2) + (l1 + l3), then the
    /// elements before `start` and after the last whole packet one by one.
    @inline(__always)
    static func sum(_ v: UnsafePointer<Float>, _ n: Int, alignedStart: Int) -> Float {
        let start = Swift.min(alignedStart, n)
        let size4 = (n - start) / 4 * 4
        let size8 = (n - start) / 8 * 8
        guard size4 > 0 else {
            var total = v[0]
            for i in 1..<n { total += v[i] }
            return total
        }
        func load(_ i: Int) -> SIMD4<Float> { UnsafeRawPointer(v + i).loadUnaligned(as: SIMD4<Float>.self) }
        var first = load(start)
        if size4 > 4 {
            var second = load(start + 4)
            var i = start + 8
            while i < start + size8 {
                first += load(i)
                second += load(i + 4)
                i += 8
            }
            first += second
            if size4 > size8 { first += load(start + size8) }
        }
        var total = (first[0] + first[2]) + (first[1] + first[3])
        for i in 0..<start { total += v[i] }
        for i in (start + size4)..<n { total += v[i] }
        return total
    }
}

/// The same formulas eight lanes at a time (each lane rounds exactly like the scalar form), so the loops
/// vectorize: the selects replace the scalar forms' branches, and a NaN lane stays NaN.
extension LiteRTActivation {
    typealias Lanes = SIMD8<Float>

    @inline(__always)
    static func tanh(_ v: Lanes) -> Lanes {
        let clamp: Float = 7.907_389_640_808_105_47
        var x = v.replacing(with: clamp, where: v .> clamp)
        x.replace(with: -clamp, where: x .< -clamp)
        let x2 = x * x
        let x3 = x2 * x
        var p = 1.394_553_628e-8 * x2 + 2.102_733_560e-5
        p = p * x2 + 3.520_756_727e-3
        p = p * x2 + 1.340_216_100e-1
        var q = 8.015_776_984e-7 * x2 + 3.326_951_409e-4
        q = q * x2 + 2.597_254_514e-2
        q = q * x2 + 4.673_548_340e-1
        q = q * x2 + 1
        p = x3 * p + x
        return p / q
    }

    @inline(__always)
    static func exp(_ v: Lanes) -> Lanes {
        let nan = v .!= v
        let zero = v .< -104
        var x0 = v.replacing(with: 0, where: nan .| zero)
        let x = x0.replacing(with: 88.723, where: x0 .> 88.723)
        let m = floorBounded(x * 1.442_695_040_888_963_41 + 0.5)
        var r = m * -0.693_359_375 + x
        r = m * 2.121_944_40e-4 + r
        let r2 = r * r
        var even = r2 * 1.374_496_379_867_196_083_068_847_656_25e-3 + 4.166_965_186_595_916_748_046_875e-2
        let odd = r2 * 8.368_944_749_236_106_872_558_593_75e-3 + 0.166_665_181_517_601_013_183_593_75
        even = r2 * even + 0.499_999_880_790_710_449_218_75
        var y = r * odd + even
        y = r2 * y + (r + 1)
        let e = unsafeBitCast(m + 12_582_912, to: SIMD8<Int32>.self) &- 0x4B40_0000
        let b = e &>> 2
        let c = unsafeBitCast((b &+ 127) &<< 23, to: Lanes.self)
        let rest = unsafeBitCast((e &- 3 &* b &+ 127) &<< 23, to: Lanes.self)
        var scaled = ((y * c) * c) * c * rest
        scaled.replace(with: x0, where: x0 .> scaled)
        x0 = scaled.replacing(with: 0, where: zero)
        x0.replace(with: v, where: nan)
        return x0
    }

    @inline(__always)
    static func floorBounded(_ t: Lanes) -> Lanes {
        let nearest = (t + 12_582_912) - 12_582_912
        return nearest.replacing(with: nearest - 1, where: nearest .> t)
    }

    /// `y[i] = f(x[i])` for `i` in `range`, eight at a time, then one by one; `vector` and `scalar`
    /// must round identically lane by lane.
    @inline(__always)
    static func map(
        _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ range: Range<Int>,
        _ vector: (Lanes) -> Lanes, _ scalar: (Float) -> Float
    ) {
        var i = range.lowerBound
        while i + 8 <= range.upperBound {
            let v = UnsafeRawPointer(x + i).loadUnaligned(as: Lanes.self)
            UnsafeMutableRawPointer(y + i).storeBytes(of: vector(v), as: Lanes.self)
            i += 8
        }
        while i < range.upperBound {
            y[i] = scalar(x[i])
            i += 1
        }
    }
}

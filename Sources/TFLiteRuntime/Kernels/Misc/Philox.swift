import Foundation

/// TensorFlow's Philox-4x32-10 counter-based generator (Salmon et al., "Parallel random numbers: as
/// easy as 1, 2, 3", SC 2011) with TensorFlow's seeding and its conversions to floats, so seeded
/// random operators reproduce LiteRT's numbers exactly.
struct Philox {
    private var counter: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
    private var key: (UInt32, UInt32)

    /// `seed` is the key; `seed2` the high half of the counter (TensorFlow's two-seed form).
    init(seed: UInt64, seed2: UInt64) {
        key = (UInt32(truncatingIfNeeded: seed), UInt32(truncatingIfNeeded: seed >> 32))
        counter.2 = UInt32(truncatingIfNeeded: seed2)
        counter.3 = UInt32(truncatingIfNeeded: seed2 >> 32)
    }

    /// The next four 32-bit numbers (ten rounds on the counter, then the counter moves on by one).
    mutating func next() -> (UInt32, UInt32, UInt32, UInt32) {
        var c = counter
        var k = key
        for round in 0..<10 {
            let p0 = UInt64(0xD251_1F53) &* UInt64(c.0)
            let p1 = UInt64(0xCD9E_8D57) &* UInt64(c.2)
            c = (
                UInt32(truncatingIfNeeded: p1 >> 32) ^ c.1 ^ k.0, UInt32(truncatingIfNeeded: p1),
                UInt32(truncatingIfNeeded: p0 >> 32) ^ c.3 ^ k.1, UInt32(truncatingIfNeeded: p0)
            )
            if round < 9 {
                k.0 = k.0 &+ 0x9E37_79B9
                k.1 = k.1 &+ 0xBB67_AE85
            }
        }
        skip(1)
        return c
    }

    /// Moves the 128-bit counter on by `count` blocks of four numbers.
    mutating func skip(_ count: UInt64) {
        let low = UInt32(truncatingIfNeeded: count)
        var high = UInt32(truncatingIfNeeded: count >> 32)
        counter.0 = counter.0 &+ low
        if counter.0 < low { high &+= 1 }
        counter.1 = counter.1 &+ high
        if counter.1 < high {
            counter.2 = counter.2 &+ 1
            if counter.2 == 0 { counter.3 = counter.3 &+ 1 }
        }
    }

    /// A float in [0, 1) from the low 23 bits (a mantissa under exponent 0, minus 1).
    static func uniformFloat(_ x: UInt32) -> Float {
        Float(bitPattern: (127 << 23) | (x & 0x7f_ffff)) - 1
    }

    /// A double in [0, 1) from 52 bits: 20 of `x0` and all of `x1`.
    static func uniformDouble(_ x0: UInt32, _ x1: UInt32) -> Double {
        let mantissa = (UInt64(x0 & 0xf_ffff) << 32) | UInt64(x1)
        return Double(bitPattern: (1023 << 52) | mantissa) - 1
    }

    /// Two standard normal floats by Box–Muller, with TensorFlow's float steps (the angle is
    /// 2π·u formed in double and rounded to float; the radius uses float log and sqrt).
    static func normalPair(_ x0: UInt32, _ x1: UInt32) -> (Float, Float) {
        var u1 = uniformFloat(x0)
        if u1 < 1.0e-7 { u1 = 1.0e-7 }
        let v1 = Float(2.0 * Double.pi * Double(uniformFloat(x1)))
        let u2 = (-2.0 * logf(u1)).squareRoot()
        return (sinf(v1) * u2, cosf(v1) * u2)
    }
}

/// FarmHash's `Fingerprint64` (farmhashna's 64-bit hash), which LSH_PROJECTION hashes its inputs
/// with: written from FarmHash's published definition, on little-endian bytes.
enum FarmHash {
    private static let k0: UInt64 = 0xc3a5_c85c_97cb_3127
    private static let k1: UInt64 = 0xb492_b66f_be98_f273
    private static let k2: UInt64 = 0x9ae1_6a3b_2f90_404f

    /// The fingerprint of `bytes`.
    static func fingerprint64(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let n = bytes.count
        if n <= 16 { return hashLen0to16(bytes, n) }
        if n <= 32 { return hashLen17to32(bytes, n) }
        if n <= 64 { return hashLen33to64(bytes, n) }
        return hashLong(bytes, n)
    }

    @inline(__always) private static func fetch64(_ s: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
        UInt64(littleEndian: s.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    @inline(__always) private static func fetch32(_ s: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
        UInt64(UInt32(littleEndian: s.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
    }

    @inline(__always) private static func rotate(_ v: UInt64, _ shift: UInt64) -> UInt64 {
        shift == 0 ? v : (v >> shift) | (v << (64 - shift))
    }

    @inline(__always) private static func shiftMix(_ v: UInt64) -> UInt64 { v ^ (v >> 47) }

    @inline(__always) private static func hashLen16(_ u: UInt64, _ v: UInt64, _ mul: UInt64) -> UInt64 {
        var a = (u ^ v) &* mul
        a ^= a >> 47
        var b = (v ^ a) &* mul
        b ^= b >> 47
        return b &* mul
    }

    private static func hashLen0to16(_ s: UnsafeRawBufferPointer, _ n: Int) -> UInt64 {
        let len = UInt64(n)
        if n >= 8 {
            let mul = k2 &+ len &* 2
            let a = fetch64(s, 0) &+ k2
            let b = fetch64(s, n - 8)
            let c = rotate(b, 37) &* mul &+ a
            let d = (rotate(a, 25) &+ b) &* mul
            return hashLen16(c, d, mul)
        }
        if n >= 4 {
            let mul = k2 &+ len &* 2
            let a = fetch32(s, 0)
            return hashLen16(len &+ (a << 3), fetch32(s, n - 4), mul)
        }
        if n > 0 {
            let a = UInt64(s[0])
            let b = UInt64(s[n >> 1])
            let c = UInt64(s[n - 1])
            let y = UInt64(UInt32(truncatingIfNeeded: a &+ (b << 8)))
            let z = UInt64(UInt32(truncatingIfNeeded: len &+ (c << 2)))
            return shiftMix((y &* k2) ^ (z &* k0)) &* k2
        }
        return k2
    }

    private static func hashLen17to32(_ s: UnsafeRawBufferPointer, _ n: Int) -> UInt64 {
        let mul = k2 &+ UInt64(n) &* 2
        let a = fetch64(s, 0) &* k1
        let b = fetch64(s, 8)
        let c = fetch64(s, n - 8) &* mul
        let d = fetch64(s, n - 16) &* k2
        return hashLen16(rotate(a &+ b, 43) &+ rotate(c, 30) &+ d, a &+ rotate(b &+ k2, 18) &+ c, mul)
    }

    private static func hashLen33to64(_ s: UnsafeRawBufferPointer, _ n: Int) -> UInt64 {
        let mul = k2 &+ UInt64(n) &* 2
        let a = fetch64(s, 0) &* k2
        let b = fetch64(s, 8)
        let c = fetch64(s, n - 8) &* mul
        let d = fetch64(s, n - 16) &* k2
        let y = rotate(a &+ b, 43) &+ rotate(c, 30) &+ d
        let z = hashLen16(y, a &+ rotate(b &+ k2, 18) &+ c, mul)
        let e = fetch64(s, 16) &* mul
        let f = fetch64(s, 24)
        let g = (y &+ fetch64(s, n - 32)) &* mul
        let h = (z &+ fetch64(s, n - 24)) &* mul
        return hashLen16(rotate(e &+ f, 43) &+ rotate(g, 30) &+ h, e &+ rotate(f &+ a, 18) &+ g, mul)
    }

    /// 16 bytes from 32 bytes at `at` and two seeds.
    @inline(__always) private static func weakHash32(
        _ s: UnsafeRawBufferPointer, _ at: Int, _ seedA: UInt64, _ seedB: UInt64
    ) -> (UInt64, UInt64) {
        let w = fetch64(s, at), x = fetch64(s, at + 8), y = fetch64(s, at + 16), z = fetch64(s, at + 24)
        var a = seedA &+ w
        var b = rotate(seedB &+ a &+ z, 21)
        let c = a
        a = a &+ x
        a = a &+ y
        b = b &+ rotate(a, 44)
        return (a &+ z, b &+ c)
    }

    /// More than 64 bytes: 64-byte blocks, then the last 64 bytes.
    private static func hashLong(_ s: UnsafeRawBufferPointer, _ n: Int) -> UInt64 {
        let seed: UInt64 = 81
        var x = seed
        var y = seed &* k1 &+ 113
        var z = shiftMix(y &* k2 &+ 113) &* k2
        var v: (UInt64, UInt64) = (0, 0)
        var w: (UInt64, UInt64) = (0, 0)
        x = x &* k2 &+ fetch64(s, 0)
        let end = ((n - 1) / 64) * 64
        let last64 = end + ((n - 1) & 63) - 63
        var at = 0
        repeat {
            x = rotate(x &+ y &+ v.0 &+ fetch64(s, at + 8), 37) &* k1
            y = rotate(y &+ v.1 &+ fetch64(s, at + 48), 42) &* k1
            x ^= w.1
            y = y &+ v.0 &+ fetch64(s, at + 40)
            z = rotate(z &+ w.0, 33) &* k1
            v = weakHash32(s, at, v.1 &* k1, x &+ w.0)
            w = weakHash32(s, at + 32, z &+ w.1, y &+ fetch64(s, at + 16))
            swap(&z, &x)
            at += 64
        } while at != end
        let mul = k1 &+ ((z & 0xff) << 1)
        at = last64
        w.0 = w.0 &+ UInt64((n - 1) & 63)
        v.0 = v.0 &+ w.0
        w.0 = w.0 &+ v.0
        x = rotate(x &+ y &+ v.0 &+ fetch64(s, at + 8), 37) &* mul
        y = rotate(y &+ v.1 &+ fetch64(s, at + 48), 42) &* mul
        x ^= w.1 &* 9
        y = y &+ v.0 &* 9 &+ fetch64(s, at + 40)
        z = rotate(z &+ w.0, 33) &* mul
        v = weakHash32(s, at, v.1 &* mul, x &+ w.0)
        w = weakHash32(s, at + 32, z &+ w.1, y &+ fetch64(s, at + 16))
        swap(&z, &x)
        return hashLen16(
            hashLen16(v.0, w.0, mul) &+ shiftMix(y) &* k0 &+ z, hashLen16(v.1, w.1, mul) &+ x, mul)
    }
}

import Foundation

/// Element-at-a-time versions of CAST and DEQUANTIZE (the test oracle), written from LiteRT's
/// definitions rather than from the fast kernels.
enum ReferenceConversion {
    /// One element as LiteRT's cast sees it: an exact integer, or a floating value.
    enum Value {
        case integer(Int64)
        case unsigned(UInt64)
        case real(Double)
    }

    static func read(_ bytes: [UInt8], _ index: Int, _ type: TensorType) -> Value {
        let es = type.byteSize
        var raw: UInt64 = 0
        for b in 0..<es { raw |= UInt64(bytes[index * es + b]) << (8 * UInt64(b)) }
        switch type {
        case .bool: return .integer(raw != 0 ? 1 : 0)
        case .uint8, .uint16, .uint32: return .integer(Int64(raw))
        case .uint64: return .unsigned(raw)
        case .int8: return .integer(Int64(Int8(truncatingIfNeeded: raw)))
        case .int16: return .integer(Int64(Int16(truncatingIfNeeded: raw)))
        case .int32: return .integer(Int64(Int32(truncatingIfNeeded: raw)))
        case .int64: return .integer(Int64(bitPattern: raw))
        case .float16: return .real(Double(halfToFloat(UInt16(raw))))
        case .bfloat16: return .real(Double(Float(bitPattern: UInt32(raw) << 16)))
        case .float32: return .real(Double(Float(bitPattern: UInt32(raw))))
        default: return .real(Double(bitPattern: raw))
        }
    }

    /// The bytes of `value` converted to `type` with C++ conversion rules plus LiteRT's saturation.
    static func write(_ value: Value, _ type: TensorType) -> [UInt8] {
        let raw: UInt64
        switch type {
        case .bool:
            switch value {
            case .integer(let v): raw = v != 0 ? 1 : 0
            case .unsigned(let v): raw = v != 0 ? 1 : 0
            case .real(let v): raw = v != 0 ? 1 : 0
            }
        case .float32: raw = UInt64(asFloat(value).bitPattern)
        case .float64:
            switch value {
            case .integer(let v): raw = Double(v).bitPattern
            case .unsigned(let v): raw = Double(v).bitPattern
            case .real(let v): raw = v.bitPattern
            }
        case .float16: raw = UInt64(floatToHalf(asFloat(value)))
        case .bfloat16: raw = UInt64(floatToBFloat16(asFloat(value)))
        default:
            let bits = type.byteSize * 8
            let signed = [TensorType.int8, .int16, .int32, .int64].contains(type)
            switch value {
            case .integer(let v): raw = UInt64(bitPattern: v)
            case .unsigned(let v): raw = v
            case .real(let v):
                let minimum = signed ? -pow(2.0, Double(bits - 1)) : 0
                let limit = signed ? pow(2.0, Double(bits - 1)) : pow(2.0, Double(bits))
                let maxBits: UInt64 = signed ? (UInt64(1) << UInt64(bits - 1)) - 1 : (bits == 64 ? .max : (UInt64(1) << UInt64(bits)) - 1)
                if v.isNaN || v >= limit {
                    raw = maxBits
                } else if v < minimum {
                    raw = signed ? UInt64(bitPattern: Int64(minimum)) : 0
                } else {
                    raw = signed ? UInt64(bitPattern: Int64(v.rounded(.towardZero))) : UInt64(v.rounded(.towardZero))
                }
            }
        }
        return (0..<type.byteSize).map { UInt8(truncatingIfNeeded: raw >> (8 * UInt64($0))) }
    }

    private static func asFloat(_ value: Value) -> Float {
        switch value {
        case .integer(let v): return Float(v)
        case .unsigned(let v): return Float(v)
        case .real(let v): return Float(v)
        }
    }

    /// LiteRT copies a type onto itself unchanged, except float16, which it rounds through float32
    /// (turning every NaN into the canonical one).
    static func cast(_ input: [UInt8], from: TensorType, to: TensorType, count: Int) -> [UInt8] {
        if from == to && from != .float16 { return input }
        return (0..<count).flatMap { write(read(input, $0, from), to) }
    }

    /// binary16 → float, from the format's definition: (-1)^s × 2^(e-15) × 1.m, or 2^-14 × 0.m.
    static func halfToFloat(_ h: UInt16) -> Float {
        let sign: Float = h & 0x8000 != 0 ? -1 : 1
        let e = Int((h >> 10) & 0x1F), m = Float(h & 0x3FF)
        if e == 0 { return sign * m * powf(2, -24) }
        if e == 31 {
            // Infinity, or NaN widened with its payload (as a float32 conversion instruction does).
            return m == 0 ? sign * .infinity : Float(bitPattern: UInt32(h & 0x8000) << 16 | 0x7F80_0000 | UInt32(h & 0x3FF) << 13)
        }
        return sign * (1 + m / 1024) * powf(2, Float(e - 15))
    }

    /// float → binary16 by searching the two neighbouring representable values (round to nearest,
    /// ties to even); NaN becomes the canonical quiet NaN.
    static func floatToHalf(_ f: Float) -> UInt16 {
        let sign: UInt16 = f.sign == .minus ? 0x8000 : 0
        if f.isNaN { return sign | 0x7E00 }
        let a = Double(abs(f))
        if a >= 65520 { return sign | 0x7C00 }  // at or past the midpoint above the largest finite half
        var best: UInt16 = 0
        var bestError = Double.infinity
        // Candidates: the half values just below and just above `a`, found by a scan of exponents.
        for bits in candidateHalves(a) {
            let v = Double(halfToFloat(bits))
            let error = abs(v - a)
            if error < bestError || (error == bestError && bits & 1 == 0) {
                best = bits
                bestError = error
            }
        }
        return sign | best
    }

    private static func candidateHalves(_ a: Double) -> [UInt16] {
        var lo: UInt16 = 0
        var hi: UInt16 = 0x7BFF
        while lo < hi {  // largest half value <= a
            let mid = (lo + hi + 1) / 2
            if Double(halfToFloat(mid)) <= a { lo = mid } else { hi = mid - 1 }
        }
        return lo < 0x7BFF ? [lo, lo + 1] : [lo]
    }

    static func floatToBFloat16(_ f: Float) -> UInt16 {
        if f.isNaN { return (f.sign == .minus ? 0x8000 : 0) | 0x7FC0 }
        let bits = f.bitPattern
        let lower = bits & 0xFFFF, upper = bits >> 16
        let roundUp = lower > 0x8000 || (lower == 0x8000 && upper & 1 == 1)
        return UInt16(truncatingIfNeeded: roundUp ? upper + 1 : upper)
    }

    /// DEQUANTIZE of one element at coordinates-derived channel `channel`.
    static func dequantize(
        _ input: [UInt8], type: TensorType, shape: [Int], scales: [Float], zeroPoints: [Int64], quantizedDimension: Int
    ) -> [Float] {
        let n = shape.reduce(1, *)
        return (0..<n).map { i in
            switch type {
            case .float16:
                return halfToFloat(UInt16(input[2 * i]) | UInt16(input[2 * i + 1]) << 8)
            default:
                guard case .integer(let q) = read(input, i, type) else { return .nan }
                if scales.count > 1 {
                    let c = ReferenceDataMovement.coordinates(i, shape)[quantizedDimension]
                    return scales[c] * Float(q - zeroPoints[c])
                }
                return Float(Double(scales[0]) * Double(q - zeroPoints[0]))
            }
        }
    }
}

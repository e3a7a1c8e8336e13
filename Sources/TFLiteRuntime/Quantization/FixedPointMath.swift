import Foundation

/// The integer element types of quantized tensors, as kernels handle them generically.
protocol QuantizedElement: FixedWidthInteger {
    static var tensorType: TensorType { get }
}
extension UInt8: QuantizedElement { static var tensorType: TensorType { .uint8 } }
extension Int8: QuantizedElement { static var tensorType: TensorType { .int8 } }
extension Int16: QuantizedElement { static var tensorType: TensorType { .int16 } }

extension FixedPoint {
    /// LiteRT's `LUTPopulateInt8`: a 256-entry table of `transform` applied to each dequantized
    /// input byte, requantized into the output (float math, `round` half away from zero).
    /// Indexed by the input's raw byte (`UInt8(truncatingIfNeeded:)` of the value).
    static func lookupTable8<T: QuantizedElement>(
        _: T.Type, inputScale: Float, inputZeroPoint: Int32, outputScale: Float, outputZeroPoint: Int32,
        _ transform: (Float) -> Float
    ) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: 256)
        let inverseScale: Float = 1 / outputScale
        let lo = Int32(T.min), hi = Int32(T.max)
        for v in lo...hi {
            let dequantized = inputScale * Float(v - inputZeroPoint)
            let rescaled = (transform(dequantized) * inverseScale).rounded(.toNearestOrAwayFromZero)
            let sum = rescaled + Float(outputZeroPoint)
            // C++ static_cast<int32_t> of a float: truncation; out-of-range saturates here.
            let q: Int32 = sum.isNaN ? 0 : (sum >= 2_147_483_648 ? Int32.max : (sum <= -2_147_483_648 ? Int32.min : Int32(sum)))
            table[Int(UInt8(truncatingIfNeeded: v))] = UInt8(truncatingIfNeeded: min(hi, max(lo, q)))
        }
        return table
    }

    /// A 256-entry table from an exact integer function of the input value (for 8-bit unary ops
    /// whose LiteRT kernels compute per element: the table gives the same bytes).
    static func integerTable8<T: QuantizedElement>(_: T.Type, _ f: (Int32) -> Int32) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: 256)
        let lo = Int32(T.min), hi = Int32(T.max)
        for v in lo...hi {
            table[Int(UInt8(truncatingIfNeeded: v))] = UInt8(truncatingIfNeeded: min(hi, max(lo, f(v))))
        }
        return table
    }
}

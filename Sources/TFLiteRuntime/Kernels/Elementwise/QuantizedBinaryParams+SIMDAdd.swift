import CKernels

/// The vector blocks of the same-shape 8-bit ADD in C (`omk_q8_add`: AVX-512, AVX2 or NEON): the
/// integers of `addBlockInt8` (int8) and `addBlockShiftAfter` (uint8), 16, 8 or 8 lanes at a time.
extension QuantizedBinaryParams {
    /// The parameters as the C kernels take them; nil outside what they reproduce exactly (a
    /// multiplier of `Int32.min`, whose doubling high multiply saturates, or a shift outside
    /// `quantizeMultiplier`'s range — neither comes from positive scales).
    var simdAddParameters: omk_q8_add_params? {
        func exact(_ m: FixedPoint.Multiplier) -> Bool { m.multiplier != .min && (-31...30).contains(m.shift) }
        guard exact(input1), exact(input2), exact(output) else { return nil }
        return omk_q8_add_params(
            input1_offset: input1Offset, input2_offset: input2Offset, output_offset: outputOffset,
            left_shift: leftShift,
            input1_multiplier: input1.multiplier, input1_shift: Int32(input1.shift),
            input2_multiplier: input2.multiplier, input2_shift: Int32(input2.shift),
            output_multiplier: output.multiplier, output_shift: Int32(output.shift),
            activation_min: activationMin, activation_max: activationMax)
    }

    /// ADD of `count` int8 or uint8 elements, every one as a vector-block lane, with the CPU's C kernel
    /// (`level` left at `CPUFeatures.level`) or, for tests, a lower x86 one (2: AVX-512, 1: AVX2).
    /// Returns false, writing nothing, when no C kernel applies (portable, other element types,
    /// parameters above).
    func addBlocksSIMD<T: QuantizedElement>(
        _ a: UnsafePointer<T>, _ b: UnsafePointer<T>, _ out: UnsafeMutablePointer<T>, _ count: Int,
        level: Int = CPUFeatures.level
    ) -> Bool {
        let signed: Int32
        if T.self == Int8.self { signed = 1 } else if T.self == UInt8.self { signed = 0 } else { return false }
        guard var p = simdAddParameters else { return false }
        if level == CPUFeatures.level {
            guard CPUFeatures.add8 else { return false }
            if count > 0 { omk_q8_add(a, b, out, count, signed, &p) }
            return true
        }
        guard level >= 1, level < CPUFeatures.level else { return false }
        if count == 0 { return true }
        if level >= 2 {
            omk_q8_add_avx512(a, b, out, count, signed, &p)
        } else {
            omk_q8_add_avx2(a, b, out, count, signed, &p)
        }
        return true
    }
}

extension OpRegistry {
    /// Element-wise math beyond the arithmetic operators (SIN, COS, FLOOR, CEIL, ROUND, SIGN, SQUARE,
    /// ZEROS_LIKE, POW, ATAN2, RIGHT_SHIFT, BITWISE_XOR, ADD_N). RELU_0_TO_1 and the quantized forms of
    /// EXP/LOG/NEG live with the other unary operators in `activationKernels`.
    static var mathKernels: [BuiltinOperator: KernelFactory] {
        var table: [BuiltinOperator: KernelFactory] = [
            .addN: { try MathAddNKernel($0) }
        ]
        for code in [BuiltinOperator.sin, .cos, .floor, .ceil, .round, .sign, .square, .zerosLike] {
            guard let op = MathUnaryKernel.Operator(code) else { continue }
            table[code] = { try MathUnaryKernel($0, op) }
        }
        for code in [BuiltinOperator.pow, .atan2, .rightShift, .bitwiseXor] {
            guard let op = MathBinaryKernel.Operator(code) else { continue }
            table[code] = { try MathBinaryKernel($0, op) }
        }
        return table
    }
}

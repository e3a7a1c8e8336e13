extension OpRegistry {
    /// Element-wise math beyond the arithmetic operators (SIN, COS, FLOOR, CEIL, ROUND, SIGN, SQUARE,
    /// POW, ATAN2, ...).
    static var mathKernels: [BuiltinOperator: KernelFactory] {
        [:]
    }
}

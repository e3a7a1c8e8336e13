extension OpRegistry {
    /// Comparisons, logical operators, SELECT/SELECT_V2 and WHERE.
    static var logicalKernels: [BuiltinOperator: KernelFactory] {
        [:]
    }
}

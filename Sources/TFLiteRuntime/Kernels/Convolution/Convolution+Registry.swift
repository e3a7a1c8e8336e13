extension OpRegistry {
    static var convolutionKernels: [BuiltinOperator: KernelFactory] {
        [:]
    }
}

extension OpRegistry {
    /// Custom operators, by custom code.
    static var customKernels: [String: KernelFactory] {
        [:]
    }
}

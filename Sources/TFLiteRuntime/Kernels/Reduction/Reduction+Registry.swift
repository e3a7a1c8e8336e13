extension OpRegistry {
    static var reductionKernels: [BuiltinOperator: KernelFactory] {
        [:]
    }
}

extension OpRegistry {
    static var conversionKernels: [BuiltinOperator: KernelFactory] {
        [:]
    }
}

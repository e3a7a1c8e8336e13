extension OpRegistry {
    static var poolingKernels: [BuiltinOperator: KernelFactory] {
        [:]
    }
}

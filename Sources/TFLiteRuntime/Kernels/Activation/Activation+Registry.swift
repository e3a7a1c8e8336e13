extension OpRegistry {
    static var activationKernels: [BuiltinOperator: KernelFactory] {
        [:]
    }
}

extension OpRegistry {
    static var dataMovementKernels: [BuiltinOperator: KernelFactory] {
        [:]
    }
}

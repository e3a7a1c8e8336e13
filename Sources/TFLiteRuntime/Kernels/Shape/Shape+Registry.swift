extension OpRegistry {
    static var shapeKernels: [BuiltinOperator: KernelFactory] {
        [:]
    }
}

extension OpRegistry {
    static var poolingKernels: [BuiltinOperator: KernelFactory] {
        [
            .maxPool2D: { try Pool2DKernel($0, kind: .max) },
            .averagePool2D: { try Pool2DKernel($0, kind: .average) },
        ]
    }
}

extension OpRegistry {
    static var recurrentKernels: [BuiltinOperator: KernelFactory] {
        [
            .unidirectionalSequenceLstm: { try UnidirectionalSequenceLSTMKernel($0) },
        ]
    }
}

extension OpRegistry {
    static var reductionKernels: [BuiltinOperator: KernelFactory] {
        [
            .mean: { try ReduceKernel($0, .mean) },
            .sum: { try ReduceKernel($0, .sum) },
            .reduceMax: { try ReduceKernel($0, .max) },
            .argMax: { try ArgMinMaxKernel($0, isMax: true) },
            .argMin: { try ArgMinMaxKernel($0, isMax: false) },
        ]
    }
}

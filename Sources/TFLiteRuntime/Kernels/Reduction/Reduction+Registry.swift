extension OpRegistry {
    static var reductionKernels: [BuiltinOperator: KernelFactory] {
        [
            .mean: { try ReduceKernel($0, .mean) },
            .sum: { try ReduceKernel($0, .sum) },
            .reduceMax: { try ReduceKernel($0, .max) },
            .argMax: { try ArgMinMaxKernel($0, isMax: true) },
            .argMin: { try ArgMinMaxKernel($0, isMax: false) },
            .reduceProd: { try FoldReduceKernel($0, .prod) },
            .reduceMin: { try FoldReduceKernel($0, .min) },
            .reduceAny: { try FoldReduceKernel($0, .any) },
            .reduceAll: { try FoldReduceKernel($0, .all) },
        ]
    }
}

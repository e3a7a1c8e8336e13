extension OpRegistry {
    /// The StableHLO operators LiteRT's built-in kernels run, and DILATE and REDUCE_WINDOW.
    static var stablehloKernels: [BuiltinOperator: KernelFactory] {
        [:]
    }
}

extension OpRegistry {
    /// Index-driven operators: CUMSUM, RANGE, TOPK_V2, ONE_HOT, BROADCAST_TO, SCATTER_ND, REVERSE_V2,
    /// segment sums, EMBEDDING_LOOKUP, MATRIX_DIAG, DYNAMIC_UPDATE_SLICE, ...
    static var indexingKernels: [BuiltinOperator: KernelFactory] {
        [:]
    }
}

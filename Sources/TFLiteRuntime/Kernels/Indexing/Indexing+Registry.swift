extension OpRegistry {
    /// Index-driven operators: CUMSUM, RANGE, TOPK_V2, ONE_HOT, BROADCAST_TO, SCATTER_ND, REVERSE_V2,
    /// segment sums, EMBEDDING_LOOKUP, MATRIX_DIAG, DYNAMIC_UPDATE_SLICE, ...
    static var indexingKernels: [BuiltinOperator: KernelFactory] {
        [
            .cumsum: { try CumsumKernel($0) },
            .range: { try RangeKernel($0) },
            .rank: { try RankKernel($0) },
            .broadcastArgs: { try BroadcastArgsKernel($0) },
            .broadcastTo: { try BroadcastToKernel($0) },
            .oneHot: { try OneHotKernel($0) },
            .topkV2: { try TopKKernel($0) },
            .scatterND: { try ScatterNDKernel($0) },
            .sparseToDense: { try SparseToDenseKernel($0) },
            .dynamicUpdateSlice: { try DynamicUpdateSliceKernel($0) },
            .reverseV2: { try ReverseKernel($0) },
            .reverseSequence: { try ReverseSequenceKernel($0) },
            .matrixDiag: { try MatrixDiagKernel($0) },
            .matrixSetDiag: { try MatrixSetDiagKernel($0) },
        ]
    }
}

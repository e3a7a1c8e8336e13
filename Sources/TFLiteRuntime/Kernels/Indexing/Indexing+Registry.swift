extension OpRegistry {
    /// Index-driven operators: CUMSUM, RANGE, RANK, TOPK_V2, ONE_HOT, BROADCAST_TO/ARGS, SCATTER_ND,
    /// SPARSE_TO_DENSE, DYNAMIC_UPDATE_SLICE, REVERSE_V2/SEQUENCE, MATRIX_DIAG/SET_DIAG, segment
    /// reductions, EMBEDDING_LOOKUP, UNIQUE and BUCKETIZE.
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
            .segmentSum: { try SegmentKernel($0, .sum, sorted: true) },
            .unsortedSegmentSum: { try SegmentKernel($0, .sum, sorted: false) },
            .unsortedSegmentProd: { try SegmentKernel($0, .prod, sorted: false) },
            .unsortedSegmentMax: { try SegmentKernel($0, .max, sorted: false) },
            .unsortedSegmentMin: { try SegmentKernel($0, .min, sorted: false) },
            .embeddingLookup: { try EmbeddingLookupKernel($0) },
            .unique: { try UniqueKernel($0) },
            .bucketize: { try BucketizeKernel($0) },
        ]
    }
}

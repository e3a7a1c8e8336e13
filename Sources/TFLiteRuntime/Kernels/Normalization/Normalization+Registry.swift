extension OpRegistry {
    /// Normalizations, L2 pooling, 3-D convolutions, non-max suppression, RFFT2D and the classic
    /// recurrent cells (RNN, SVDF, bidirectional sequence models).
    static var normalizationKernels: [BuiltinOperator: KernelFactory] {
        [
            .l2Normalization: { try L2NormalizationKernel($0) },
            .localResponseNormalization: { try LocalResponseNormalizationKernel($0) },
            .l2Pool2D: { try L2Pool2DKernel($0) },
        ]
    }
}

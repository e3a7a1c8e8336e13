extension OpRegistry {
    /// Normalizations, L2 pooling, 3-D convolutions, non-max suppression, RFFT2D and the classic
    /// recurrent cells (RNN, SVDF, bidirectional sequence models).
    static var normalizationKernels: [BuiltinOperator: KernelFactory] {
        [:]
    }
}

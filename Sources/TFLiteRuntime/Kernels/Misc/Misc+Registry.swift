extension OpRegistry {
    /// Complex numbers (REAL, IMAG, COMPLEX_ABS), BITCAST, FAKE_QUANT, random sampling, and the
    /// classic text and embedding operators (HASHTABLE_LOOKUP, LSH_PROJECTION, SKIP_GRAM,
    /// EMBEDDING_LOOKUP_SPARSE).
    static var miscKernels: [BuiltinOperator: KernelFactory] {
        [
            .real: { try ComplexPartKernel($0, .real) },
            .imag: { try ComplexPartKernel($0, .imaginary) },
            .complexAbs: { try ComplexPartKernel($0, .magnitude) },
            .bitcast: { try BitcastKernel($0) },
            .fakeQuant: { try FakeQuantKernel($0) },
            .hashtableLookup: { try HashtableLookupKernel($0) },
            .embeddingLookupSparse: { try EmbeddingLookupSparseKernel($0) },
            .lshProjection: { try LSHProjectionKernel($0) },
            .skipGram: { try SkipGramKernel($0) },
            .randomUniform: { try RandomKernel($0, .uniform) },
            .randomStandardNormal: { try RandomKernel($0, .normal) },
            .multinomial: { try RandomKernel($0, .multinomial) },
        ]
    }
}

extension OpRegistry {
    /// Normalizations, L2 pooling, 3-D convolutions, non-max suppression, RFFT2D and the classic
    /// recurrent cells (RNN, SVDF, LSTM, bidirectional sequence models).
    static var normalizationKernels: [BuiltinOperator: KernelFactory] {
        [
            .l2Normalization: { try L2NormalizationKernel($0) },
            .localResponseNormalization: { try LocalResponseNormalizationKernel($0) },
            .l2Pool2D: { try L2Pool2DKernel($0) },
            .conv3D: { try Conv3DKernel($0, transposed: false) },
            .conv3DTranspose: { try Conv3DKernel($0, transposed: true) },
            .nonMaxSuppressionV4: { try NonMaxSuppressionKernel($0, soft: false) },
            .nonMaxSuppressionV5: { try NonMaxSuppressionKernel($0, soft: true) },
            .rfft2D: { try RFFT2DKernel($0) },
            .rnn: { try ClassicRNNKernel($0, form: .single) },
            .unidirectionalSequenceRnn: { try ClassicRNNKernel($0, form: .sequence) },
            .bidirectionalSequenceRnn: { try ClassicRNNKernel($0, form: .bidirectional) },
            .svdf: { try ClassicSVDFKernel($0) },
            .lstm: { node in
                if node.inputCount == 5 { return try ClassicLSTMBasicKernel(node) }
                if node.optionalInput(0)?.type == .int8 { return try ClassicLSTMIntegerKernel(node) }
                return try BidirectionalSequenceLSTMKernel(node, bidirectional: false)
            },
            .bidirectionalSequenceLstm: { try BidirectionalSequenceLSTMKernel($0, bidirectional: true) },
        ]
    }
}

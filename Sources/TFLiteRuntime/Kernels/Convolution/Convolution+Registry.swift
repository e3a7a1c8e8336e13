extension OpRegistry {
    static var convolutionKernels: [BuiltinOperator: KernelFactory] {
        [
            .conv2D: { try Conv2DKernel($0) },
            .depthwiseConv2D: { try DepthwiseConv2DKernel($0) },
            .fullyConnected: { try FullyConnectedKernel($0) },
            .transposeConv: { try TransposeConvKernel($0, variant: .builtin) },
            .batchMatmul: { try BatchMatMulKernel($0) },
        ]
    }
}

extension OpRegistry {
    /// Custom operators, by custom code.
    static var customKernels: [String: KernelFactory] {
        [
            // MediaPipe's transposed convolution with bias (selfie segmentation, hair segmentation).
            "Convolution2DTransposeBias": { try TransposeConvKernel($0, variant: .mediaPipeBias) },
        ]
    }
}

extension OpRegistry {
    /// The float, quantized and hybrid kernels of each operator, chosen by `KernelPath` from the
    /// node's activation and weight types.
    static var convolutionKernels: [BuiltinOperator: KernelFactory] {
        [
            .conv2D: { node in
                switch KernelPath(node, weights: 1) {
                case .hybrid: return try HybridConvolutionKernel(node, kind: .conv)
                case .quantized: return try QuantizedConvolutionKernel(node, kind: .conv)
                case .float: return try Conv2DKernel(node)
                }
            },
            .depthwiseConv2D: { node in
                switch KernelPath(node, weights: 1) {
                case .hybrid: return try HybridConvolutionKernel(node, kind: .depthwise)
                case .quantized: return try QuantizedConvolutionKernel(node, kind: .depthwise)
                case .float: return try DepthwiseConv2DKernel(node)
                }
            },
            .fullyConnected: { node in
                // The shuffled int8 weight layout has a kernel of its own, whatever the path.
                if ShuffledFullyConnectedKernel.isShuffled(node) { return try ShuffledFullyConnectedKernel(node) }
                switch KernelPath(node, weights: 1) {
                case .hybrid: return try HybridConvolutionKernel(node, kind: .fullyConnected)
                case .quantized: return try QuantizedConvolutionKernel(node, kind: .fullyConnected)
                case .float: return try FullyConnectedKernel(node)
                }
            },
            .transposeConv: { node in
                // Operands: output shape, weights, activation.
                switch KernelPath(node, activation: 2, weights: 1) {
                case .hybrid: return try HybridTransposeConvKernel(node)
                case .quantized: return try QuantizedTransposeConvKernel(node)
                case .float: return try TransposeConvKernel(node, variant: .builtin)
                }
            },
            .batchMatmul: { node in
                // One integer kernel runs both the full-integer and the hybrid products.
                switch KernelPath(node, weights: 1) {
                case .hybrid, .quantized: return try QuantizedBatchMatMulKernel(node)
                case .float: return try BatchMatMulKernel(node)
                }
            },
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

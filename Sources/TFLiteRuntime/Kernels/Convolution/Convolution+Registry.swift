extension OpRegistry {
    static var convolutionKernels: [BuiltinOperator: KernelFactory] {
        [
            .conv2D: { node in
                if HybridConvolutionKernel.isHybrid(node) { return try HybridConvolutionKernel(node, kind: .conv) }
                return try quantizedInput(node) ? QuantizedConvolutionKernel(node, kind: .conv) as OpKernel : Conv2DKernel(node)
            },
            .depthwiseConv2D: { node in
                if HybridConvolutionKernel.isHybrid(node) { return try HybridConvolutionKernel(node, kind: .depthwise) }
                return try quantizedInput(node)
                    ? QuantizedConvolutionKernel(node, kind: .depthwise) as OpKernel : DepthwiseConv2DKernel(node)
            },
            .fullyConnected: { node in
                if ShuffledFullyConnectedKernel.isShuffled(node) { return try ShuffledFullyConnectedKernel(node) }
                if HybridConvolutionKernel.isHybrid(node) { return try HybridConvolutionKernel(node, kind: .fullyConnected) }
                return try quantizedInput(node)
                    ? QuantizedConvolutionKernel(node, kind: .fullyConnected) as OpKernel : FullyConnectedKernel(node)
            },
            .transposeConv: { node in
                if HybridTransposeConvKernel.isHybrid(node) { return try HybridTransposeConvKernel(node) }
                if let x = node.optionalInput(2), QuantizedOperand.isQuantizedActivation(x.type) {
                    return try QuantizedTransposeConvKernel(node)
                }
                return try TransposeConvKernel(node, variant: .builtin)
            },
            .batchMatmul: { node in
                try QuantizedBatchMatMulKernel.handles(node) ? QuantizedBatchMatMulKernel(node) as OpKernel : BatchMatMulKernel(node)
            },
        ]
    }
}

extension OpRegistry {
    /// Whether input 0 of the node holds quantized integers (uint8, int8, int16): the node then runs
    /// an integer kernel; float inputs keep the float kernels.
    static func quantizedInput(_ node: Node) -> Bool {
        guard let t = node.optionalInput(0) else { return false }
        return QuantizedOperand.isQuantizedActivation(t.type)
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

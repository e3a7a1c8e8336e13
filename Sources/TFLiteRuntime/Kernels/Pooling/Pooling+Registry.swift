extension OpRegistry {
    static var poolingKernels: [BuiltinOperator: KernelFactory] {
        [
            .maxPool2D: { node in
                KernelPath(node) == .quantized
                    ? try QuantizedPool2DKernel(node, kind: .max) as OpKernel : try Pool2DKernel(node, kind: .max)
            },
            .averagePool2D: { node in
                KernelPath(node) == .quantized
                    ? try QuantizedPool2DKernel(node, kind: .average) as OpKernel : try Pool2DKernel(node, kind: .average)
            },
        ]
    }
}

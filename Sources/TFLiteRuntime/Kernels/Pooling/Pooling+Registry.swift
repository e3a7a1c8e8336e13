extension OpRegistry {
    static var poolingKernels: [BuiltinOperator: KernelFactory] {
        [
            .maxPool2D: { node in try Pool2DKernel.isQuantized(node) ? QuantizedPool2DKernel(node, kind: .max) as OpKernel : Pool2DKernel(node, kind: .max) },
            .averagePool2D: { node in
                try Pool2DKernel.isQuantized(node)
                    ? QuantizedPool2DKernel(node, kind: .average) as OpKernel : Pool2DKernel(node, kind: .average)
            },
        ]
    }
}

extension Pool2DKernel {
    /// Whether the node pools integer (quantized) tensors, handled by `QuantizedPool2DKernel`.
    static func isQuantized(_ node: Node) -> Bool {
        guard let t = node.optionalInput(0) else { return false }
        return QuantizedOperand.isQuantizedActivation(t.type)
    }
}

extension OpRegistry {
    static var shapeKernels: [BuiltinOperator: KernelFactory] {
        [
            .reshape: { try ReshapeRules.reshape($0) },
            .squeeze: { try ReshapeRules.squeeze($0) },
            .expandDims: { try ReshapeRules.expandDims($0) },
            .shape: { try ShapeKernel($0) },
            .fill: { try FillKernel($0) },
        ]
    }
}

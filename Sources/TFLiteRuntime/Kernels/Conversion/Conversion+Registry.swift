extension OpRegistry {
    static var conversionKernels: [BuiltinOperator: KernelFactory] {
        [
            .cast: { try CastKernel($0) },
            .dequantize: { try DequantizeKernel($0) },
            .densify: { try DensifyKernel($0) },
            .quantize: { try QuantizeKernel($0) },
        ]
    }
}

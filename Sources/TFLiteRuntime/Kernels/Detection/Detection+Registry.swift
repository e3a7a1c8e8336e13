extension OpRegistry {
    /// Custom detection operators, by custom code.
    static var detectionCustomKernels: [String: KernelFactory] {
        [
            "TFLite_Detection_PostProcess": { try DetectionPostProcessKernel($0) },
        ]
    }
}

extension OpRegistry {
    /// MediaPipe's custom operators, by custom code.
    static var mediaPipeCustomKernels: [String: KernelFactory] {
        [
            "MaxPoolingWithArgmax2D": { try MaxPoolingWithArgmaxKernel($0) },
            "MaxUnpooling2D": { try MaxUnpoolingKernel($0) },
            "TransformLandmarks": { try TransformLandmarksKernel($0) },
            "TransformTensorBilinear": { try TransformTensorBilinearKernel($0) },
            "Landmarks2TransformMatrix": { try LandmarksToTransformMatrixKernel($0) },
        ]
    }
}

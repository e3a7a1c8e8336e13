extension OpRegistry {
    /// MediaPipe's custom operators, by custom code.
    static var mediaPipeCustomKernels: [String: KernelFactory] {
        [:]
    }
}

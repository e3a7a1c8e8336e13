extension OpRegistry {
    /// TensorFlow Lite's audio custom operators (AudioSpectrogram, Mfcc), by custom code.
    static var audioCustomKernels: [String: KernelFactory] {
        [
            "AudioSpectrogram": { try AudioSpectrogramKernel($0) },
            "Mfcc": { try MfccKernel($0) },
        ]
    }
}

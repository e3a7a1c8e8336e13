import CKernels

/// The SIMD level the C microkernels may use on this CPU, read once.
///
/// 0: portable Swift kernels only; 1: AVX2 + FMA; 2: AVX-512; 3: AVX-512 with VNNI (8-bit dot
/// products for the quantized GEMM). `OPENMLKIT_KERNELS=portable|avx2|avx512` in the environment
/// caps it at 0, 1 or 2 (the tests run every path this way).
enum CPUFeatures {
    static let level = Int(omk_cpu_level())

    /// A name for the level, for `mlkit bench` and reports.
    static var name: String {
        switch level {
        case 3: return "avx512+vnni"
        case 2: return "avx512"
        case 1: return "avx2+fma"
        default: return "portable"
        }
    }
}

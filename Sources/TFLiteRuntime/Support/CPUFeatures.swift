import CKernels

/// The SIMD level the C microkernels may use on this CPU, read once.
///
/// 0: portable Swift kernels only; 1: AVX2 + FMA; 2: AVX-512. `OPENMLKIT_KERNELS=portable` in the
/// environment forces 0 (the tests run the portable path this way too).
enum CPUFeatures {
    static let level = Int(omk_cpu_level())

    /// A name for the level, for `mlkit bench` and reports.
    static var name: String {
        switch level {
        case 2: return "avx512"
        case 1: return "avx2+fma"
        default: return "portable"
        }
    }
}

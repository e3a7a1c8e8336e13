import CKernels

/// The C microkernels this CPU runs, chosen once (the C side's kernel table, `omk_kernels()`).
///
/// x86: AVX2 + FMA, AVX-512, AVX-512 with VNNI; aarch64: NEON, with the dot-product (SDOT) and I8MM
/// (USDOT) variants of the 8-bit GEMM. `OPENMLKIT_KERNELS=portable|avx2|avx512|neon|dotprod|i8mm` in
/// the environment lowers the choice (the tests run every path this way). Nodes read these flags
/// when they are prepared (or from these constants when they run); the table never changes.
enum CPUFeatures {
    /// The table itself (its entries are NULL where the portable Swift path runs).
    static let kernels = omk_kernels().pointee

    /// The x86 level: 0 portable (and every non-x86 CPU), 1 AVX2 + FMA, 2 AVX-512, 3 AVX-512 with VNNI.
    static let level = Int(kernels.x86_level)

    /// Float GEMM tiles and GEMV (`omk_f32_gemm_8x16`, `omk_f32_gemv_16`).
    static let floatGemm = kernels.f32_gemm_8x16 != nil
    /// Float depthwise pixels (`omk_f32_dwconv_pixel`, `omk_f32_dwconv_run`).
    static let floatDepthwise = kernels.f32_dwconv_pixel != nil
    /// The int16 GEMM tile (`omk_q16_gemm_8x8`) and depthwise pixel (`omk_q16_dwconv_pixel`).
    static let int16Gemm = kernels.q16_gemm_8x8 != nil
    static let int16Depthwise = kernels.q16_dwconv_pixel != nil
    /// The fused 8-bit GEMM and CONV_2D (`omk_q8_gemm`, `omk_q8_conv`).
    static let gemm8 = kernels.q8_gemm != nil
    /// The byte-storing output stages (`omk_requantize_to_8`, `omk_requantize_gemm_to_8`).
    static let requantizeTo8 = kernels.requantize_i32_to_8 != nil && kernels.requantize_gemm_to_8 != nil
    /// The same-shape 8-bit ADD (`omk_q8_add`).
    static let add8 = kernels.q8_add != nil
    /// The packed 8-bit depthwise kernels to try, best first (arguments of `omk_q8_dwconv_pack`).
    static let depthwise8Kernels: [Int32] = [kernels.q8_dwconv_kernel, kernels.q8_dwconv_fallback].filter { $0 != 0 }

    /// A name for the choice, for `mlkit bench` and reports ("avx512+vnni", "neon+dotprod", "portable", ...).
    static var name: String { String(cString: kernels.name) }
}

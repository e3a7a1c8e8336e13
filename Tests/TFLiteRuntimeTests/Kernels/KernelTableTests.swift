import CKernels
import Testing

@testable import TFLiteRuntime

/// The C kernel table as the Swift side sees it: one choice per process, consistent with the x86
/// level it reports, and named choices that never exceed the CPU.
@Suite("C kernel table")
struct KernelTableTests {
    @Test("the process table's entries follow its level")
    func entriesFollowLevel() {
        let t = CPUFeatures.kernels
        #expect(t.requantize_i32 != nil)
        if t.x86_level > 0 || t.arm_level > 0 {
            #expect(CPUFeatures.floatGemm && CPUFeatures.floatDepthwise && CPUFeatures.int16Gemm)
            #expect(CPUFeatures.add8)
        } else {
            #expect(!CPUFeatures.floatGemm && !CPUFeatures.int16Gemm && !CPUFeatures.gemm8 && !CPUFeatures.add8)
            #expect(CPUFeatures.name == "portable")
            #expect(CPUFeatures.depthwise8Kernels.isEmpty)
        }
        // The fused 8-bit GEMM runs on every SIMD level (vpmaddwd below VNNI); the byte-storing
        // output stages need AVX2 or NEON.
        if t.x86_level > 0 || t.arm_level > 0 {
            #expect(CPUFeatures.gemm8)
        }
        #expect(CPUFeatures.requantizeTo8 == (t.x86_level > 0 || t.arm_level > 0))
        #expect(Int(omk_cpu_level()) == CPUFeatures.level)
    }

    @Test("named tables: portable has no SIMD entry, each name its level")
    func namedTables() {
        var t = omk_kernel_table()
        #expect(omk_kernel_table_named("portable", &t) == 1)
        #expect(t.f32_gemm_8x16 == nil && t.q8_gemm == nil && t.q8_add == nil && t.requantize_i32 != nil)
        // Portable C entries the Swift side calls unconditionally: never NULL, on any CPU.
        #expect(t.f32_gemm_reorder != nil && t.f32_add != nil && t.f32_clamp != nil && t.f32_prelu != nil)
        #expect(t.f32_logistic != nil && t.f32_max_pixel != nil)
        #expect(String(cString: t.name) == "portable")
        #expect(omk_kernel_table_named("no-such-choice", &t) == 0)
        let cpu = CPUFeatures.kernels
        let levels: [(String, Int32, Int32, String)] = [
            ("avx2", 1, 0, "avx2+fma"), ("avx512", 2, 0, "avx512"), ("avx512+vnni", 3, 0, "avx512+vnni"),
            ("neon", 0, 1, "neon"), ("dotprod", 0, 2, "neon+dotprod"), ("i8mm", 0, 3, "neon+i8mm"),
        ]
        for (name, x86, arm, label) in levels where omk_kernel_table_named(name, &t) == 1 {
            #expect(t.x86_level == x86 && t.arm_level == arm && String(cString: t.name) == label, "\(name)")
        }
        // An x86 name on an aarch64 CPU (and the reverse) is not available.
        if cpu.x86_level > 0 { #expect(omk_kernel_table_named("neon", &t) == 0) }
    }
}

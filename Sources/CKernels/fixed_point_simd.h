#ifndef OMK_FIXED_POINT_SIMD_H
#define OMK_FIXED_POINT_SIMD_H

// SIMD pieces of gemmlowp's fixed-point arithmetic shared by the C microkernels (private: not part
// of the module's public header). Each function carries the target of the kernels that inline it.

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

/// Eight lanes of SaturatingRoundingDoublingHighMul(a, b) when b is never INT32_MIN, so the
/// saturating case cannot occur. Its sign-dependent nudge followed by division truncating toward
/// zero equals floor((a*b + 2^30) / 2^31) for either sign (for negative products,
/// ceil((p + 1 − 2^30) / 2^31) = floor((p + 2^30) / 2^31)); the quotient fits in 32 bits, so the low
/// half of a logical 64-bit shift is it. This is also NEON's `vqrdmulhq_s32` outside that case.
static __attribute__((target("avx2"))) inline __m256i omk_srdhm8(__m256i a, __m256i b) {
    const __m256i nudge = _mm256_set1_epi64x((int64_t)1 << 30);
    const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(a, b), nudge), 31);
    const __m256i odd = _mm256_srli_epi64(
        _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), nudge), 31);
    // Even results in the even 32-bit lanes, odd results moved up into the odd lanes.
    return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

/// The low 32 bits of `(p + 2^30) >> 31` in the 64-bit lanes of `p` (bits 31..62 of the sum decide
/// the quotient, so a logical shift serves).
static __attribute__((target("avx512f,avx512bw,avx512vl"))) inline __m512i omk_high_half16(__m512i p) {
    return _mm512_srli_epi64(_mm512_add_epi64(p, _mm512_set1_epi64((int64_t)1 << 30)), 31);
}

/// Sixteen lanes of SaturatingRoundingDoublingHighMul(a, b) when b is never INT32_MIN (see `omk_srdhm8`).
static __attribute__((target("avx512f,avx512bw,avx512vl"))) inline __m512i omk_srdhm16(__m512i a, __m512i b) {
    const __m512i even = omk_high_half16(_mm512_mul_epi32(a, b));
    const __m512i odd = omk_high_half16(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)));
    return _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
}

#endif
#endif

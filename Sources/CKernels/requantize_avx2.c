#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "fixed_point_simd.h"

#define OMK_TARGET __attribute__((target("avx2")))

OMK_TARGET void omk_requantize_i32_avx2(int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                        const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point,
                                        int32_t lo, int32_t hi) {
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1), mask31 = _mm256_set1_epi32(31);
    const __m256i zp = _mm256_set1_epi32(zero_point), vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
    size_t c = 0;
    for (; c + 8 <= count; c += 8) {
        const __m256i x = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(acc + c)),
                                           _mm256_loadu_si256((const __m256i *)(bias + c)));
        const __m256i s = _mm256_loadu_si256((const __m256i *)(shift + c));
        const __m256i m = _mm256_loadu_si256((const __m256i *)(multiplier + c));
        const __m256i left = _mm256_max_epi32(s, zero);
        const __m256i right = _mm256_max_epi32(_mm256_sub_epi32(zero, s), zero);
        const __m128i flags8 = _mm_loadl_epi64((const __m128i *)(gemm_rounding + c));
        const __m256i gemm = _mm256_cmpgt_epi32(_mm256_cvtepu8_epi32(flags8), zero);

        // Optimized GEMM: high = srdhm(x << (left & 31), m); result = (high + 2^(r-1)) >> r.
        const __m256i high_g = omk_srdhm8(_mm256_sllv_epi32(x, _mm256_and_si256(left, mask31)), m);
        const __m256i has_right = _mm256_cmpgt_epi32(right, zero);
        const __m256i half_bit = _mm256_and_si256(
            _mm256_srav_epi32(high_g, _mm256_sub_epi32(right, one)), _mm256_and_si256(one, has_right));
        const __m256i r_gemm = _mm256_add_epi32(_mm256_srav_epi32(high_g, right), half_bit);

        // Reference: RoundingDivideByPOT(srdhm(x << left, m), right); a shift of 32 or more gives 0.
        const __m256i high_r = omk_srdhm8(_mm256_sllv_epi32(x, left), m);
        const __m256i pot_mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
        const __m256i remainder = _mm256_and_si256(high_r, pot_mask);
        const __m256i threshold = _mm256_add_epi32(_mm256_srai_epi32(pot_mask, 1),
                                                   _mm256_and_si256(_mm256_cmpgt_epi32(zero, high_r), one));
        const __m256i r_ref = _mm256_add_epi32(_mm256_srav_epi32(high_r, right),
                                               _mm256_and_si256(_mm256_cmpgt_epi32(remainder, threshold), one));

        __m256i v = _mm256_add_epi32(_mm256_blendv_epi8(r_ref, r_gemm, gemm), zp);
        v = _mm256_min_epi32(_mm256_max_epi32(v, vlo), vhi);
        _mm256_storeu_si256((__m256i *)(acc + c), v);
    }
    if (c < count) {
        omk_requantize_i32(acc + c, count - c, bias + c, multiplier + c, shift + c, gemm_rounding + c, zero_point,
                           lo, hi);
    }
}

#else

void omk_requantize_i32_avx2(int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                             int32_t hi) {
    omk_requantize_i32(acc, count, bias, multiplier, shift, gemm_rounding, zero_point, lo, hi);
}

#endif

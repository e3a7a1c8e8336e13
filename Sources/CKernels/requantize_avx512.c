#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "fixed_point_simd.h"

#define OMK_TARGET __attribute__((target("avx512f,avx512bw,avx512vl")))

/// Requantizes 16 lanes: GEMM rounding where `gemm` has a bit, the reference rounding elsewhere
/// (each variant computed only when some lane needs it).
static OMK_TARGET inline __m512i block(__m512i x, __m512i mult, __m512i s, __mmask16 gemm) {
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
    const __m512i left = _mm512_max_epi32(s, zero);
    const __m512i right = _mm512_max_epi32(_mm512_sub_epi32(zero, s), zero);
    const __mmask16 has_right = _mm512_cmpgt_epi32_mask(right, zero);
    __m512i r_gemm = zero, r_ref = zero;
    if (gemm) {
        // Optimized GEMM (ruy): high = srdhm(x << (left & 31), m); (high + 2^(r-1)) >> r without overflow.
        const __m512i high = omk_srdhm16(_mm512_sllv_epi32(x, _mm512_and_si512(left, _mm512_set1_epi32(31))), mult);
        const __m512i below = _mm512_srav_epi32(high, _mm512_sub_epi32(right, one));
        const __m512i half_bit = _mm512_maskz_and_epi32(has_right, below, one);
        r_gemm = _mm512_add_epi32(_mm512_srav_epi32(high, right), half_bit);
    }
    if (gemm != 0xFFFF) {
        // Reference: RoundingDivideByPOT(srdhm(x << left, m), right); a shift of 32 or more gives 0.
        const __m512i high = omk_srdhm16(_mm512_sllv_epi32(x, left), mult);
        const __m512i pot_mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, right), one);
        const __m512i remainder = _mm512_and_si512(high, pot_mask);
        const __mmask16 negative = _mm512_cmplt_epi32_mask(high, zero);
        const __m512i threshold = _mm512_mask_add_epi32(_mm512_srai_epi32(pot_mask, 1), negative,
                                                        _mm512_srai_epi32(pot_mask, 1), one);
        const __mmask16 up = _mm512_cmpgt_epi32_mask(remainder, threshold);
        r_ref = _mm512_mask_add_epi32(_mm512_srav_epi32(high, right), up, _mm512_srav_epi32(high, right), one);
    }
    return _mm512_mask_blend_epi32(gemm, r_ref, r_gemm);
}

OMK_TARGET void omk_requantize_i32_to_8_avx512(const int32_t *acc, size_t count, const int32_t *bias,
                                               const int32_t *multiplier, const int32_t *shift,
                                               const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                                               int32_t hi, uint8_t *out) {
    const __m512i zp = _mm512_set1_epi32(zero_point), vlo = _mm512_set1_epi32(lo), vhi = _mm512_set1_epi32(hi);
    for (size_t c = 0; c < count; c += 16) {
        const size_t n = count - c < 16 ? count - c : 16;
        const __mmask16 m = (__mmask16)(n == 16 ? 0xFFFF : ((1u << n) - 1));
        const __m512i x = _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, acc + c), _mm512_maskz_loadu_epi32(m, bias + c));
        const __m512i mult = _mm512_maskz_loadu_epi32(m, multiplier + c);
        const __m512i s = _mm512_maskz_loadu_epi32(m, shift + c);
        const __m128i flags = _mm_maskz_loadu_epi8(m, gemm_rounding + c);
        const __mmask16 gemm = _mm_test_epi8_mask(flags, flags) | (__mmask16)~m;
        __m512i v = _mm512_add_epi32(block(x, mult, s, gemm), zp);
        v = _mm512_min_epi32(_mm512_max_epi32(v, vlo), vhi);
        // Clamped to an 8-bit type's range, the low byte is the value (int8 or uint8).
        _mm_mask_storeu_epi8(out + c, m, _mm512_cvtepi32_epi8(v));
    }
}

OMK_TARGET void omk_requantize_gemm_to_8_avx512(const int32_t *acc, size_t count, const int32_t *bias,
                                                const int32_t *multiplier, const int32_t *left, const int64_t *addend,
                                                const int64_t *shift, int32_t zero_point, int32_t lo, int32_t hi,
                                                uint8_t *out) {
    const __m512i zp = _mm512_set1_epi32(zero_point), vlo = _mm512_set1_epi32(lo), vhi = _mm512_set1_epi32(hi);
    for (size_t c = 0; c < count; c += 16) {
        const size_t n = count - c < 16 ? count - c : 16;
        const __mmask16 m = (__mmask16)(n == 16 ? 0xFFFF : ((1u << n) - 1));
        __m512i x = _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, acc + c), _mm512_maskz_loadu_epi32(m, bias + c));
        x = _mm512_sllv_epi32(x, _mm512_loadu_si512((const void *)(left + c)));
        const __m512i mult = _mm512_loadu_si512((const void *)(multiplier + c));
        // One rounding shift of the 64-bit product does both of ruy's roundings:
        // floor((floor((p + 2^30) / 2^31) + 2^(r-1)) / 2^r) = floor((p + 2^30 + 2^(30+r)) / 2^(31+r)).
        const __m512i even = _mm512_srav_epi64(
            _mm512_add_epi64(_mm512_mul_epi32(x, mult), _mm512_loadu_si512((const void *)(addend + c))),
            _mm512_loadu_si512((const void *)(shift + c)));
        const __m512i odd = _mm512_srav_epi64(
            _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(mult, 32)),
                             _mm512_loadu_si512((const void *)(addend + c + 8))),
            _mm512_loadu_si512((const void *)(shift + c + 8)));
        // The odd channels' low halves move up into the odd 32-bit lanes.
        __m512i v = _mm512_mask_shuffle_epi32(even, 0xAAAA, odd, _MM_PERM_CDAB);
        v = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(v, zp), vlo), vhi);
        _mm_mask_storeu_epi8(out + c, m, _mm512_cvtepi32_epi8(v));
    }
}

#else

void omk_requantize_i32_to_8_avx512(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                    const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                                    int32_t hi, uint8_t *out) {
    (void)acc; (void)count; (void)bias; (void)multiplier; (void)shift; (void)gemm_rounding; (void)zero_point;
    (void)lo; (void)hi; (void)out;
}

void omk_requantize_gemm_to_8_avx512(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                     const int32_t *left, const int64_t *addend, const int64_t *shift,
                                     int32_t zero_point, int32_t lo, int32_t hi, uint8_t *out) {
    (void)acc; (void)count; (void)bias; (void)multiplier; (void)left; (void)addend; (void)shift; (void)zero_point;
    (void)lo; (void)hi; (void)out;
}

#endif

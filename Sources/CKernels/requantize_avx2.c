#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "fixed_point_simd.h"

#define OMK_TARGET __attribute__((target("avx2")))

/// Requantizes 8 lanes (`x` = acc + bias): GEMM rounding in the lanes `gemm` marks (all bits), the
/// reference rounding in the others; each variant is computed only when some lane needs it.
static OMK_TARGET inline __m256i requantize8(__m256i x, __m256i m, __m256i s, __m256i gemm) {
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1), mask31 = _mm256_set1_epi32(31);
    const __m256i left = _mm256_max_epi32(s, zero);
    const __m256i right = _mm256_max_epi32(_mm256_sub_epi32(zero, s), zero);
    const int lanes = _mm256_movemask_ps(_mm256_castsi256_ps(gemm));
    __m256i r_gemm = zero, r_ref = zero;
    if (lanes != 0) {
        // Optimized GEMM: high = srdhm(x << (left & 31), m); result = (high + 2^(r-1)) >> r.
        const __m256i high_g = omk_srdhm8(_mm256_sllv_epi32(x, _mm256_and_si256(left, mask31)), m);
        const __m256i has_right = _mm256_cmpgt_epi32(right, zero);
        const __m256i half_bit = _mm256_and_si256(
            _mm256_srav_epi32(high_g, _mm256_sub_epi32(right, one)), _mm256_and_si256(one, has_right));
        r_gemm = _mm256_add_epi32(_mm256_srav_epi32(high_g, right), half_bit);
        if (lanes == 0xFF) return r_gemm;
    }
    // Reference: RoundingDivideByPOT(srdhm(x << left, m), right); a shift of 32 or more gives 0.
    const __m256i high_r = omk_srdhm8(_mm256_sllv_epi32(x, left), m);
    const __m256i pot_mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
    const __m256i remainder = _mm256_and_si256(high_r, pot_mask);
    const __m256i threshold = _mm256_add_epi32(_mm256_srai_epi32(pot_mask, 1),
                                               _mm256_and_si256(_mm256_cmpgt_epi32(zero, high_r), one));
    r_ref = _mm256_add_epi32(_mm256_srav_epi32(high_r, right),
                             _mm256_and_si256(_mm256_cmpgt_epi32(remainder, threshold), one));
    return lanes == 0 ? r_ref : _mm256_blendv_epi8(r_ref, r_gemm, gemm);
}

/// The low byte of each 32-bit lane, stored as 8 bytes (the lanes hold values of an 8-bit type).
static OMK_TARGET inline void store_low_bytes(uint8_t *out, __m256i v) {
    const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12,
                                          -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i b = _mm256_shuffle_epi8(v, pick);
    const __m128i both = _mm_unpacklo_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1));
    _mm_storel_epi64((__m128i *)out, both);
}

/// One block of 8 channels of omk_requantize_i32: zero point added and clamped.
static OMK_TARGET inline __m256i stage8(const int32_t *acc, const int32_t *bias, const int32_t *multiplier,
                                        const int32_t *shift, const uint8_t *gemm_rounding, __m256i zp, __m256i vlo,
                                        __m256i vhi) {
    const __m256i x = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)acc), _mm256_loadu_si256((const __m256i *)bias));
    const __m256i s = _mm256_loadu_si256((const __m256i *)shift);
    const __m256i m = _mm256_loadu_si256((const __m256i *)multiplier);
    const __m128i flags8 = _mm_loadl_epi64((const __m128i *)gemm_rounding);
    const __m256i gemm = _mm256_cmpgt_epi32(_mm256_cvtepu8_epi32(flags8), _mm256_setzero_si256());
    const __m256i v = _mm256_add_epi32(requantize8(x, m, s, gemm), zp);
    return _mm256_min_epi32(_mm256_max_epi32(v, vlo), vhi);
}

OMK_TARGET void omk_requantize_i32_avx2(int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                        const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point,
                                        int32_t lo, int32_t hi) {
    const __m256i zp = _mm256_set1_epi32(zero_point), vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
    size_t c = 0;
    for (; c + 8 <= count; c += 8) {
        const __m256i v = stage8(acc + c, bias + c, multiplier + c, shift + c, gemm_rounding + c, zp, vlo, vhi);
        _mm256_storeu_si256((__m256i *)(acc + c), v);
    }
    if (c < count) {
        omk_requantize_i32(acc + c, count - c, bias + c, multiplier + c, shift + c, gemm_rounding + c, zero_point,
                           lo, hi);
    }
}

OMK_TARGET void omk_requantize_i32_to_8_avx2(const int32_t *acc, size_t count, const int32_t *bias,
                                             const int32_t *multiplier, const int32_t *shift,
                                             const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo, int32_t hi,
                                             uint8_t *out) {
    const __m256i zp = _mm256_set1_epi32(zero_point), vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
    size_t c = 0;
    for (; c + 8 <= count; c += 8) {
        store_low_bytes(out + c, stage8(acc + c, bias + c, multiplier + c, shift + c, gemm_rounding + c, zp, vlo, vhi));
    }
    if (c < count) {
        int32_t tail[8];
        const size_t n = count - c;
        for (size_t i = 0; i < n; i++) tail[i] = acc[c + i];
        omk_requantize_i32(tail, n, bias + c, multiplier + c, shift + c, gemm_rounding + c, zero_point, lo, hi);
        for (size_t i = 0; i < n; i++) out[c + i] = (uint8_t)tail[i];
    }
}

/// floor((p + addend) / 2^shift) of the 64-bit lanes, for |p| < 2^62, 0 < addend <= 2^62 and a
/// shift of 31...62, or 63 (the result is then 0). AVX2 shifts 64-bit lanes only logically: the sum
/// plus 2^62 is positive and below 2^64, and 2^62 / 2^shift comes off again.
static OMK_TARGET inline __m256i rounding_shift64(__m256i p, __m256i addend, __m256i shift) {
    const __m256i offset = _mm256_set1_epi64x((int64_t)1 << 62);
    const __m256i q = _mm256_sub_epi64(_mm256_srlv_epi64(_mm256_add_epi64(_mm256_add_epi64(p, addend), offset), shift),
                                       _mm256_srlv_epi64(offset, shift));
    return _mm256_andnot_si256(_mm256_cmpeq_epi64(shift, _mm256_set1_epi64x(63)), q);
}

/// Eight channels (`c` is 0 or 8 within a block of 16) of omk_requantize_gemm_to_8's stage, from
/// `x` = acc + bias (see the AVX-512 version for the parameters' layout).
static OMK_TARGET inline __m256i gemm_stage8(__m256i x, const int32_t *multiplier, const int32_t *left,
                                             const int64_t *addend, const int64_t *shift, size_t half) {
    x = _mm256_sllv_epi32(x, _mm256_loadu_si256((const __m256i *)left));
    const __m256i m = _mm256_loadu_si256((const __m256i *)multiplier);
    // Channels 2j of this half are at 4·half + j of the block's 64-bit arrays, channels 2j + 1 at 8 + 4·half + j.
    const __m256i even = rounding_shift64(_mm256_mul_epi32(x, m), _mm256_loadu_si256((const __m256i *)(addend + 4 * half)),
                                          _mm256_loadu_si256((const __m256i *)(shift + 4 * half)));
    const __m256i odd = rounding_shift64(
        _mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(m, 32)),
        _mm256_loadu_si256((const __m256i *)(addend + 8 + 4 * half)), _mm256_loadu_si256((const __m256i *)(shift + 8 + 4 * half)));
    return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

OMK_TARGET void omk_requantize_gemm_to_8_avx2(const int32_t *acc, size_t count, const int32_t *bias,
                                              const int32_t *multiplier, const int32_t *left, const int64_t *addend,
                                              const int64_t *shift, int32_t zero_point, int32_t lo, int32_t hi,
                                              uint8_t *out) {
    const __m256i zp = _mm256_set1_epi32(zero_point), vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
    for (size_t c = 0; c < count; c += 8) {
        const size_t n = count - c < 8 ? count - c : 8, block = c / 16 * 16, half = (c % 16) / 8;
        __m256i x;
        if (n == 8) {
            x = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(acc + c)), _mm256_loadu_si256((const __m256i *)(bias + c)));
        } else {
            // acc and bias hold only `count` values; the per-channel arrays are padded to 16.
            int32_t a[8] = {0}, b[8] = {0};
            for (size_t i = 0; i < n; i++) { a[i] = acc[c + i]; b[i] = bias[c + i]; }
            x = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)a), _mm256_loadu_si256((const __m256i *)b));
        }
        __m256i v = gemm_stage8(x, multiplier + c, left + c, addend + block, shift + block, half);
        v = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, zp), vlo), vhi);
        if (n == 8) {
            store_low_bytes(out + c, v);
        } else {
            uint8_t bytes[8];
            store_low_bytes(bytes, v);
            for (size_t i = 0; i < n; i++) out[c + i] = bytes[i];
        }
    }
}

#else

void omk_requantize_i32_avx2(int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                             int32_t hi) {
    omk_requantize_i32(acc, count, bias, multiplier, shift, gemm_rounding, zero_point, lo, hi);
}

void omk_requantize_i32_to_8_avx2(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                  const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                                  int32_t hi, uint8_t *out) {
    (void)acc; (void)count; (void)bias; (void)multiplier; (void)shift; (void)gemm_rounding; (void)zero_point;
    (void)lo; (void)hi; (void)out;
}

void omk_requantize_gemm_to_8_avx2(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                   const int32_t *left, const int64_t *addend, const int64_t *shift, int32_t zero_point,
                                   int32_t lo, int32_t hi, uint8_t *out) {
    (void)acc; (void)count; (void)bias; (void)multiplier; (void)left; (void)addend; (void)shift; (void)zero_point;
    (void)lo; (void)hi; (void)out;
}

#endif

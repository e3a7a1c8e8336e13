#include "CKernels.h"
#include "hybrid_quantize.h"

#include <math.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define OMK_TARGET __attribute__((target("avx2")))

OMK_TARGET int omk_f32_minmax_avx2(const float *x, size_t count, float *lo, float *hi) {
    __m256 vlo = _mm256_set1_ps(x[0]), vhi = vlo, nan = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        vlo = _mm256_min_ps(v, vlo);
        vhi = _mm256_max_ps(v, vhi);
    }
    if (_mm256_movemask_ps(nan)) return 1;
    float l[8], h[8];
    _mm256_storeu_ps(l, vlo);
    _mm256_storeu_ps(h, vhi);
    float a = l[0], b = h[0];
    for (int k = 1; k < 8; k++) {
        a = l[k] < a ? l[k] : a;
        b = h[k] > b ? h[k] : b;
    }
    for (; i < count; i++) {
        if (isnan(x[i])) return 1;
        a = x[i] < a ? x[i] : a;
        b = x[i] > b ? x[i] : b;
    }
    *lo = a;
    *hi = b;
    return 0;
}

/// round half away from zero, exactly: truncate, then step away from zero when the dropped part is
/// at least one half (v - trunc(v) is exact for every float).
OMK_TARGET static inline __m256 round_away(__m256 v) {
    const __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256 sign = _mm256_and_ps(v, _mm256_set1_ps(-0.0f));
    const __m256 d = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), _mm256_sub_ps(v, t));
    const __m256 step = _mm256_and_ps(_mm256_cmp_ps(d, _mm256_set1_ps(0.5f), _CMP_GE_OQ),
                                      _mm256_or_ps(_mm256_set1_ps(1.0f), sign));
    return _mm256_add_ps(t, step);
}

/// One lane group of the quantization: `round_away(x · s) + off`, clamped to [lo, hi], as int32
/// with NaN lanes 0 (the offset still included).
OMK_TARGET static inline __m256i quantize8(const float *x, __m256 s, __m256 off, __m256 lo, __m256 hi) {
    const __m256 v = _mm256_add_ps(round_away(_mm256_mul_ps(_mm256_loadu_ps(x), s)), off);
    const __m256 ordered = _mm256_cmp_ps(v, v, _CMP_ORD_Q);
    const __m256 c = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    return _mm256_and_si256(_mm256_cvttps_epi32(c), _mm256_castps_si256(ordered));
}

/// The same for one element (the tails): the quantized value with the offset, 0 for NaN.
static inline int32_t quantize_one(float x, float scale_inv, int32_t offset, int32_t qmin, int32_t qmax) {
    const float p = x * scale_inv;
    const float t = truncf(p);
    const float r = fabsf(p - t) >= 0.5f ? t + copysignf(1.0f, p) : t;
    const float v = r + (float)offset;
    if (isnan(v)) return 0;
    return (int32_t)(v < (float)qmin ? (float)qmin : (v > (float)qmax ? (float)qmax : v));
}

OMK_TARGET void omk_f32_quantize_i16_avx2(const float *x, size_t count, float scale_inv, int32_t offset, int32_t qmin,
                                          int32_t qmax, int16_t *out) {
    const __m256 s = _mm256_set1_ps(scale_inv), off = _mm256_set1_ps((float)offset);
    const __m256 lo = _mm256_set1_ps((float)qmin), hi = _mm256_set1_ps((float)qmax);
    const __m256i voff = _mm256_set1_epi32(offset);
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        // Remove the offset: the int16 path holds q − zero.
        const __m256i q0 = _mm256_sub_epi32(quantize8(x + i, s, off, lo, hi), voff);
        const __m256i q1 = _mm256_sub_epi32(quantize8(x + i + 8, s, off, lo, hi), voff);
        // The values fit int16 ([-255, 255]); packs interleaves 128-bit lanes, permute restores the order.
        const __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(q0, q1), 0xD8);
        _mm256_storeu_si256((__m256i *)(out + i), packed);
    }
    for (; i < count; i++) out[i] = (int16_t)(quantize_one(x[i], scale_inv, offset, qmin, qmax) - offset);
}

/// The VNNI hybrid path's form of the same quantization: q + 128 as bytes (NaN lanes give q = 0).
OMK_TARGET void omk_f32_quantize_u8_hybrid_avx2(const float *x, size_t count, float scale_inv, int32_t offset,
                                                int32_t qmin, int32_t qmax, uint8_t *out) {
    const __m256 s = _mm256_set1_ps(scale_inv), off = _mm256_set1_ps((float)offset);
    const __m256 lo = _mm256_set1_ps((float)qmin), hi = _mm256_set1_ps((float)qmax);
    const __m256i flip = _mm256_set1_epi32(128);
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m256i q0 = _mm256_add_epi32(quantize8(x + i, s, off, lo, hi), flip);
        const __m256i q1 = _mm256_add_epi32(quantize8(x + i + 8, s, off, lo, hi), flip);
        // q + 128 lies in [0, 255]: packs to int16 (lanes interleaved, the permute restores the
        // order), then packus of the two halves to bytes.
        const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(q0, q1), 0xD8);
        const __m128i b = _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
        _mm_storeu_si128((__m128i *)(out + i), b);
    }
    for (; i < count; i++) out[i] = (uint8_t)(quantize_one(x[i], scale_inv, offset, qmin, qmax) + 128);
}

#else

int omk_f32_minmax_avx2(const float *x, size_t count, float *lo, float *hi) {
    (void)x; (void)count; (void)lo; (void)hi;
    return 1;
}

void omk_f32_quantize_i16_avx2(const float *x, size_t count, float scale_inv, int32_t offset, int32_t qmin,
                               int32_t qmax, int16_t *out) {
    (void)x; (void)count; (void)scale_inv; (void)offset; (void)qmin; (void)qmax; (void)out;
}

void omk_f32_quantize_u8_hybrid_avx2(const float *x, size_t count, float scale_inv, int32_t offset, int32_t qmin,
                                     int32_t qmax, uint8_t *out) {
    (void)x; (void)count; (void)scale_inv; (void)offset; (void)qmin; (void)qmax; (void)out;
}

#endif

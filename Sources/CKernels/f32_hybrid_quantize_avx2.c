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

OMK_TARGET void omk_f32_quantize_i16_avx2(const float *x, size_t count, float scale_inv, int32_t offset, int32_t qmin,
                                          int32_t qmax, int16_t *out) {
    const __m256 s = _mm256_set1_ps(scale_inv), off = _mm256_set1_ps((float)offset);
    const __m256 lo = _mm256_set1_ps((float)qmin), hi = _mm256_set1_ps((float)qmax);
    const __m256i voff = _mm256_set1_epi32(offset);
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m256i q[2];
        for (int h = 0; h < 2; h++) {
            const __m256 v = _mm256_add_ps(round_away(_mm256_mul_ps(_mm256_loadu_ps(x + i + 8 * h), s)), off);
            const __m256 ordered = _mm256_cmp_ps(v, v, _CMP_ORD_Q);
            // Clamp (NaN lanes are zeroed below), convert, zero NaN lanes, remove the offset.
            const __m256 c = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
            const __m256i qi = _mm256_and_si256(_mm256_cvttps_epi32(c), _mm256_castps_si256(ordered));
            q[h] = _mm256_sub_epi32(qi, voff);
        }
        // The values fit int16 ([-255, 255]); packs interleaves 128-bit lanes, permute restores the order.
        const __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(q[0], q[1]), 0xD8);
        _mm256_storeu_si256((__m256i *)(out + i), packed);
    }
    for (; i < count; i++) {
        const float p = x[i] * scale_inv;
        const float t = truncf(p);
        const float r = fabsf(p - t) >= 0.5f ? t + copysignf(1.0f, p) : t;
        const float v = r + (float)offset;
        int32_t q = 0;
        if (!isnan(v)) q = (int32_t)(v < (float)qmin ? (float)qmin : (v > (float)qmax ? (float)qmax : v));
        out[i] = (int16_t)(q - offset);
    }
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

#endif

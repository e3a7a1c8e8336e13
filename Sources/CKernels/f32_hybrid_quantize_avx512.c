#include "CKernels.h"

// omk_f32_quantize_i16_avx2 on sixteen lanes (the table's `hybrid_quantize_i16` at the AVX-512
// levels). Each lane takes the same steps: x · scale_inv, round half away from zero (truncate, then
// step away when the dropped part is at least one half), + offset, clamp to [qmin, qmax], NaN → 0
// with the offset included, − offset; the int32 to int16 narrowing saturates as packs does. The
// integers are therefore the AVX2 kernel's, lane for lane.

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define OMK_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

OMK_AVX512 static inline __m512i quantize16(const float *x, __m512 s, __m512 off, __m512 lo, __m512 hi) {
    const __m512 p = _mm512_mul_ps(_mm512_loadu_ps(x), s);
    const __m512 t = _mm512_roundscale_ps(p, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m512 d = _mm512_abs_ps(_mm512_sub_ps(p, t));
    const __mmask16 away = _mm512_cmp_ps_mask(d, _mm512_set1_ps(0.5f), _CMP_GE_OQ);
    const __m512 step = _mm512_or_ps(_mm512_set1_ps(1.0f), _mm512_and_ps(p, _mm512_set1_ps(-0.0f)));
    const __m512 v = _mm512_add_ps(_mm512_mask_add_ps(t, away, t, step), off);
    const __mmask16 ordered = _mm512_cmp_ps_mask(v, v, _CMP_ORD_Q);
    const __m512 c = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    return _mm512_maskz_mov_epi32(ordered, _mm512_cvttps_epi32(c));
}

OMK_AVX512 void omk_f32_quantize_i16_avx512(const float *x, size_t count, float scale_inv, int32_t offset,
                                            int32_t qmin, int32_t qmax, int16_t *out) {
    const __m512 s = _mm512_set1_ps(scale_inv), off = _mm512_set1_ps((float)offset);
    const __m512 lo = _mm512_set1_ps((float)qmin), hi = _mm512_set1_ps((float)qmax);
    const __m512i voff = _mm512_set1_epi32(offset);
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m512i q = _mm512_sub_epi32(quantize16(x + i, s, off, lo, hi), voff);
        _mm256_storeu_si256((__m256i *)(out + i), _mm512_cvtsepi32_epi16(q));
    }
    if (i < count) omk_f32_quantize_i16_avx2(x + i, count - i, scale_inv, offset, qmin, qmax, out + i);
}

#else

void omk_f32_quantize_i16_avx512(const float *x, size_t count, float scale_inv, int32_t offset, int32_t qmin,
                                 int32_t qmax, int16_t *out) {
    omk_f32_quantize_i16_avx2(x, count, scale_inv, offset, qmin, qmax, out);
}

#endif

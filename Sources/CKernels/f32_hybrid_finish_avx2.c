#include "CKernels.h"

// omk_hybrid_finish on eight lanes at a time (the per-pixel float step of the int16 hybrid GEMM was
// a sixth of a hybrid MobileNet's time as scalar code). Every lane computes what the portable loop
// computes, in the same order: the int32 to float conversion rounds to nearest as (float)acc does,
// the two products and the add are separate instructions (no FMA), and the clamp is the two
// comparisons of the portable expression (not min/max, whose results differ on equal signed zeros),
// so the outputs are bit-identical.

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define OMK_TARGET __attribute__((target("avx2")))

OMK_TARGET void omk_hybrid_finish_avx2(const int32_t *acc, size_t count, const float *weight_scale,
                                       float batch_scale, const float *bias, float lower, float upper, float *out) {
    const __m256 bs = _mm256_set1_ps(batch_scale), lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
    size_t c = 0;
    for (; c + 8 <= count; c += 8) {
        const __m256 scale = _mm256_mul_ps(_mm256_loadu_ps(weight_scale + c), bs);
        const __m256 a = _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(acc + c)));
        const __m256 v = _mm256_add_ps(_mm256_mul_ps(a, scale), _mm256_loadu_ps(bias + c));
        // m = lower >= v ? lower : v; out = upper < m ? upper : m (a NaN v fails both comparisons).
        const __m256 m = _mm256_blendv_ps(v, lo, _mm256_cmp_ps(lo, v, _CMP_GE_OQ));
        _mm256_storeu_ps(out + c, _mm256_blendv_ps(m, hi, _mm256_cmp_ps(hi, m, _CMP_LT_OQ)));
    }
    if (c < count) omk_hybrid_finish(acc + c, count - c, weight_scale + c, batch_scale, bias + c, lower, upper, out + c);
}

#else

void omk_hybrid_finish_avx2(const int32_t *acc, size_t count, const float *weight_scale, float batch_scale,
                            const float *bias, float lower, float upper, float *out) {
    omk_hybrid_finish(acc, count, weight_scale, batch_scale, bias, lower, upper, out);
}

#endif

#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define OMK_TARGET __attribute__((target("avx2,fma")))

static OMK_TARGET inline __m256 clamp8(__m256 v, __m256 lo, __m256 hi) {
    // maxps/minps return their second operand when either is NaN: with the bound first, NaN
    // passes through, as TFLite's std::min(std::max(x, lo), hi) lets it.
    return _mm256_min_ps(hi, _mm256_max_ps(lo, v));
}

static OMK_TARGET inline void store8(float *c, __m256 v, size_t columns) {
    if (columns >= 8) {
        _mm256_storeu_ps(c, v);
    } else {
        float tmp[8];
        _mm256_storeu_ps(tmp, v);
        for (size_t j = 0; j < columns; j++) c[j] = tmp[j];
    }
}

OMK_TARGET void omk_f32_gemm_8x8_fma(const float *const *a, size_t rows, size_t taps, size_t depth,
                                     const float *b, const float *bias, float lower, float upper, float *c,
                                     size_t ldc, size_t columns) {
    const __m256 init = _mm256_loadu_ps(bias);
    __m256 c0 = init, c1 = init, c2 = init, c3 = init, c4 = init, c5 = init, c6 = init, c7 = init;
    const float *w = b;
    for (size_t t = 0; t < taps; t++) {
        const float *const *r = a + t * 8;
        const float *a0 = r[0], *a1 = r[1], *a2 = r[2], *a3 = r[3];
        const float *a4 = r[4], *a5 = r[5], *a6 = r[6], *a7 = r[7];
        for (size_t k = 0; k < depth; k++) {
            const __m256 v = _mm256_loadu_ps(w);
            c0 = _mm256_fmadd_ps(v, _mm256_broadcast_ss(a0 + k), c0);
            c1 = _mm256_fmadd_ps(v, _mm256_broadcast_ss(a1 + k), c1);
            c2 = _mm256_fmadd_ps(v, _mm256_broadcast_ss(a2 + k), c2);
            c3 = _mm256_fmadd_ps(v, _mm256_broadcast_ss(a3 + k), c3);
            c4 = _mm256_fmadd_ps(v, _mm256_broadcast_ss(a4 + k), c4);
            c5 = _mm256_fmadd_ps(v, _mm256_broadcast_ss(a5 + k), c5);
            c6 = _mm256_fmadd_ps(v, _mm256_broadcast_ss(a6 + k), c6);
            c7 = _mm256_fmadd_ps(v, _mm256_broadcast_ss(a7 + k), c7);
            w += 8;
        }
    }
    const __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
    __m256 out[8] = {c0, c1, c2, c3, c4, c5, c6, c7};
    for (size_t i = 0; i < rows && i < 8; i++) store8(c + i * ldc, clamp8(out[i], lo, hi), columns);
}

#else

void omk_f32_gemm_8x8_fma(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                          const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns) {
    (void)a; (void)rows; (void)taps; (void)depth; (void)b; (void)bias; (void)lower; (void)upper; (void)c;
    (void)ldc; (void)columns;
}

#endif

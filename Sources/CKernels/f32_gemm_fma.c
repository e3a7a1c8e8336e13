#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define OMK_AVX2 __attribute__((target("avx2,fma")))
#define OMK_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,fma")))

static OMK_AVX2 inline __m256 clamp8(__m256 v, __m256 lo, __m256 hi) {
    // maxps/minps return their second operand when either is NaN: with the bound first, NaN
    // passes through, as TFLite's std::min(std::max(x, lo), hi) lets it.
    return _mm256_min_ps(hi, _mm256_max_ps(lo, v));
}

static OMK_AVX2 inline void store8(float *c, __m256 v, size_t columns) {
    if (columns >= 8) {
        _mm256_storeu_ps(c, v);
    } else {
        float tmp[8];
        _mm256_storeu_ps(tmp, v);
        for (size_t j = 0; j < columns; j++) c[j] = tmp[j];
    }
}

static OMK_AVX2 inline void store16(float *c, __m256 lo8, __m256 hi8, size_t columns) {
    store8(c, lo8, columns);
    if (columns > 8) store8(c + 8, hi8, columns - 8);
}

/// Rows first..first+3 of an 8-row tile: 4 rows x 16 columns in 8 ymm accumulators.
static OMK_AVX2 inline void gemm_4x16_fma(const float *const *a, size_t first, size_t rows, size_t taps,
                                          size_t depth, const float *b, const float *bias, float lower,
                                          float upper, float *c, size_t ldc, size_t columns) {
    const __m256 b0 = _mm256_loadu_ps(bias), b1 = _mm256_loadu_ps(bias + 8);
    const __m256 z = _mm256_setzero_ps();
    __m256 c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z;
    const float *w = b;
    for (size_t t = 0; t < taps; t++) {
        const float *const *r = a + t * 8 + first;
        const float *a0 = r[0], *a1 = r[1], *a2 = r[2], *a3 = r[3];
        for (size_t k = 0; k < depth; k++) {
            const __m256 v0 = _mm256_loadu_ps(w), v1 = _mm256_loadu_ps(w + 8);
            __m256 x = _mm256_broadcast_ss(a0 + k);
            c00 = _mm256_fmadd_ps(v0, x, c00);
            c01 = _mm256_fmadd_ps(v1, x, c01);
            x = _mm256_broadcast_ss(a1 + k);
            c10 = _mm256_fmadd_ps(v0, x, c10);
            c11 = _mm256_fmadd_ps(v1, x, c11);
            x = _mm256_broadcast_ss(a2 + k);
            c20 = _mm256_fmadd_ps(v0, x, c20);
            c21 = _mm256_fmadd_ps(v1, x, c21);
            x = _mm256_broadcast_ss(a3 + k);
            c30 = _mm256_fmadd_ps(v0, x, c30);
            c31 = _mm256_fmadd_ps(v1, x, c31);
            w += 16;
        }
    }
    c00 = _mm256_add_ps(c00, b0); c01 = _mm256_add_ps(c01, b1);
    c10 = _mm256_add_ps(c10, b0); c11 = _mm256_add_ps(c11, b1);
    c20 = _mm256_add_ps(c20, b0); c21 = _mm256_add_ps(c21, b1);
    c30 = _mm256_add_ps(c30, b0); c31 = _mm256_add_ps(c31, b1);
    const __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
    store16(c, clamp8(c00, lo, hi), clamp8(c01, lo, hi), columns);
    if (rows > 1) store16(c + ldc, clamp8(c10, lo, hi), clamp8(c11, lo, hi), columns);
    if (rows > 2) store16(c + 2 * ldc, clamp8(c20, lo, hi), clamp8(c21, lo, hi), columns);
    if (rows > 3) store16(c + 3 * ldc, clamp8(c30, lo, hi), clamp8(c31, lo, hi), columns);
}

OMK_AVX2 void omk_f32_gemm_8x16_fma(const float *const *a, size_t rows, size_t taps, size_t depth,
                                    const float *b, const float *bias, float lower, float upper, float *c,
                                    size_t ldc, size_t columns) {
    gemm_4x16_fma(a, 0, rows, taps, depth, b, bias, lower, upper, c, ldc, columns);
    if (rows > 4) gemm_4x16_fma(a, 4, rows - 4, taps, depth, b, bias, lower, upper, c + 4 * ldc, ldc, columns);
}

OMK_AVX512 void omk_f32_gemm_8x16_avx512(const float *const *a, size_t rows, size_t taps, size_t depth,
                                         const float *b, const float *bias, float lower, float upper, float *c,
                                         size_t ldc, size_t columns) {
    const __m512 init = _mm512_setzero_ps(), bv = _mm512_loadu_ps(bias);
    __m512 c0 = init, c1 = init, c2 = init, c3 = init, c4 = init, c5 = init, c6 = init, c7 = init;
    const float *w = b;
    for (size_t t = 0; t < taps; t++) {
        const float *const *r = a + t * 8;
        const float *a0 = r[0], *a1 = r[1], *a2 = r[2], *a3 = r[3];
        const float *a4 = r[4], *a5 = r[5], *a6 = r[6], *a7 = r[7];
        for (size_t k = 0; k < depth; k++) {
            const __m512 v = _mm512_loadu_ps(w);
            c0 = _mm512_fmadd_ps(v, _mm512_set1_ps(a0[k]), c0);
            c1 = _mm512_fmadd_ps(v, _mm512_set1_ps(a1[k]), c1);
            c2 = _mm512_fmadd_ps(v, _mm512_set1_ps(a2[k]), c2);
            c3 = _mm512_fmadd_ps(v, _mm512_set1_ps(a3[k]), c3);
            c4 = _mm512_fmadd_ps(v, _mm512_set1_ps(a4[k]), c4);
            c5 = _mm512_fmadd_ps(v, _mm512_set1_ps(a5[k]), c5);
            c6 = _mm512_fmadd_ps(v, _mm512_set1_ps(a6[k]), c6);
            c7 = _mm512_fmadd_ps(v, _mm512_set1_ps(a7[k]), c7);
            w += 16;
        }
    }
    const __m512 lo = _mm512_set1_ps(lower), hi = _mm512_set1_ps(upper);
    const __mmask16 mask = columns >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << columns) - 1);
    const __m512 out[8] = {_mm512_add_ps(c0, bv), _mm512_add_ps(c1, bv), _mm512_add_ps(c2, bv), _mm512_add_ps(c3, bv),
                           _mm512_add_ps(c4, bv), _mm512_add_ps(c5, bv), _mm512_add_ps(c6, bv), _mm512_add_ps(c7, bv)};
    for (size_t i = 0; i < rows && i < 8; i++) {
        _mm512_mask_storeu_ps(c + i * ldc, mask, _mm512_min_ps(hi, _mm512_max_ps(lo, out[i])));
    }
}

#else

void omk_f32_gemm_8x16_fma(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                           const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns) {
    (void)a; (void)rows; (void)taps; (void)depth; (void)b; (void)bias; (void)lower; (void)upper; (void)c;
    (void)ldc; (void)columns;
}

void omk_f32_gemm_8x16_avx512(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                              const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns) {
    (void)a; (void)rows; (void)taps; (void)depth; (void)b; (void)bias; (void)lower; (void)upper; (void)c;
    (void)ldc; (void)columns;
}

#endif

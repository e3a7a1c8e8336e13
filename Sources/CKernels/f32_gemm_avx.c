#include "CKernels.h"

// Products are rounded before they are added, as in LiteRT's builtin float kernels: no fused
// multiply-adds, not even ones the compiler could form from `a + x * w`.
#pragma STDC FP_CONTRACT OFF

// The summation order is LiteRT's builtin float GEMM (Eigen, in a build without FMA): every product
// is rounded before it is added. A fused multiply-add would be faster on some CPUs but rounds once,
// and the difference, an ulp here and there, becomes a whole quantum when a dynamic-range layer
// quantizes the result. On Zen-class CPUs the separate multiply and add issue on different pipes,
// so the cost is latency, which the independent accumulators hide.

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define OMK_AVX2 __attribute__((target("avx2,fma")))
#define OMK_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,fma")))

static OMK_AVX2 inline __m256 clamp8(__m256 v, __m256 lo, __m256 hi) {
    // maxps/minps return their second operand when either is NaN: with the bound first, NaN
    // passes through, as TFLite's std::min(std::max(x, lo), hi) lets it.
    return _mm256_min_ps(hi, _mm256_max_ps(lo, v));
}

static OMK_AVX2 inline __m256 madd8(__m256 acc, __m256 w, __m256 x) {
    return _mm256_add_ps(acc, _mm256_mul_ps(w, x));
}

static OMK_AVX512 inline __m512 madd16(__m512 acc, __m512 w, __m512 x) {
    return _mm512_add_ps(acc, _mm512_mul_ps(w, x));
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
static OMK_AVX2 inline void gemm_4x16_avx2(const float *const *a, size_t first, size_t rows, size_t taps,
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
            c00 = madd8(c00, v0, x);
            c01 = madd8(c01, v1, x);
            x = _mm256_broadcast_ss(a1 + k);
            c10 = madd8(c10, v0, x);
            c11 = madd8(c11, v1, x);
            x = _mm256_broadcast_ss(a2 + k);
            c20 = madd8(c20, v0, x);
            c21 = madd8(c21, v1, x);
            x = _mm256_broadcast_ss(a3 + k);
            c30 = madd8(c30, v0, x);
            c31 = madd8(c31, v1, x);
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

OMK_AVX2 void omk_f32_gemm_8x16_avx2(const float *const *a, size_t rows, size_t taps, size_t depth,
                                     const float *b, const float *bias, float lower, float upper, float *c,
                                     size_t ldc, size_t columns) {
    gemm_4x16_avx2(a, 0, rows, taps, depth, b, bias, lower, upper, c, ldc, columns);
    if (rows > 4) gemm_4x16_avx2(a, 4, rows - 4, taps, depth, b, bias, lower, upper, c + 4 * ldc, ldc, columns);
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
            c0 = madd16(c0, v, _mm512_set1_ps(a0[k]));
            c1 = madd16(c1, v, _mm512_set1_ps(a1[k]));
            c2 = madd16(c2, v, _mm512_set1_ps(a2[k]));
            c3 = madd16(c3, v, _mm512_set1_ps(a3[k]));
            c4 = madd16(c4, v, _mm512_set1_ps(a4[k]));
            c5 = madd16(c5, v, _mm512_set1_ps(a5[k]));
            c6 = madd16(c6, v, _mm512_set1_ps(a6[k]));
            c7 = madd16(c7, v, _mm512_set1_ps(a7[k]));
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

/// Two adjacent 16-column panels at once (`b0`, `b1`, each packed like omk_f32_gemm_8x16's `b`;
/// `bias` and `c` cover 32 columns, the second panel's first `columns1` are stored): each broadcast
/// activation feeds both panels, and one call's pointer loads and loop run for twice the columns.
/// Every output's order and rounding are omk_f32_gemm_8x16's.
OMK_AVX512 void omk_f32_gemm_8x32_avx512(const float *const *a, size_t rows, size_t taps, size_t depth,
                                         const float *b0, const float *b1, const float *bias, float lower,
                                         float upper, float *c, size_t ldc, size_t columns1) {
    const __m512 z = _mm512_setzero_ps();
    __m512 c0 = z, c1 = z, c2 = z, c3 = z, c4 = z, c5 = z, c6 = z, c7 = z;
    __m512 d0 = z, d1 = z, d2 = z, d3 = z, d4 = z, d5 = z, d6 = z, d7 = z;
    const float *w0 = b0, *w1 = b1;
    for (size_t t = 0; t < taps; t++) {
        const float *const *r = a + t * 8;
        const float *a0 = r[0], *a1 = r[1], *a2 = r[2], *a3 = r[3];
        const float *a4 = r[4], *a5 = r[5], *a6 = r[6], *a7 = r[7];
        for (size_t k = 0; k < depth; k++) {
            const __m512 v = _mm512_loadu_ps(w0), u = _mm512_loadu_ps(w1);
            __m512 x;
            x = _mm512_set1_ps(a0[k]); c0 = madd16(c0, v, x); d0 = madd16(d0, u, x);
            x = _mm512_set1_ps(a1[k]); c1 = madd16(c1, v, x); d1 = madd16(d1, u, x);
            x = _mm512_set1_ps(a2[k]); c2 = madd16(c2, v, x); d2 = madd16(d2, u, x);
            x = _mm512_set1_ps(a3[k]); c3 = madd16(c3, v, x); d3 = madd16(d3, u, x);
            x = _mm512_set1_ps(a4[k]); c4 = madd16(c4, v, x); d4 = madd16(d4, u, x);
            x = _mm512_set1_ps(a5[k]); c5 = madd16(c5, v, x); d5 = madd16(d5, u, x);
            x = _mm512_set1_ps(a6[k]); c6 = madd16(c6, v, x); d6 = madd16(d6, u, x);
            x = _mm512_set1_ps(a7[k]); c7 = madd16(c7, v, x); d7 = madd16(d7, u, x);
            w0 += 16;
            w1 += 16;
        }
    }
    const __m512 lo = _mm512_set1_ps(lower), hi = _mm512_set1_ps(upper);
    const __m512 bv = _mm512_loadu_ps(bias), bu = _mm512_loadu_ps(bias + 16);
    const __mmask16 mask = columns1 >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << columns1) - 1);
    const __m512 first[8] = {c0, c1, c2, c3, c4, c5, c6, c7}, second[8] = {d0, d1, d2, d3, d4, d5, d6, d7};
    for (size_t i = 0; i < rows && i < 8; i++) {
        _mm512_storeu_ps(c + i * ldc, _mm512_min_ps(hi, _mm512_max_ps(lo, _mm512_add_ps(first[i], bv))));
        _mm512_mask_storeu_ps(c + i * ldc + 16, mask, _mm512_min_ps(hi, _mm512_max_ps(lo, _mm512_add_ps(second[i], bu))));
    }
}

// The matrix-vector product (one row): four partial sums per column, the k of each ≡ 0, 1, 2, 3
// (mod 4) over the whole reduction (all taps in order), combined as (s0 + s2) + (s1 + s3); the
// last K mod 4 products are then added one by one, and the bias last. That is the order of
// Eigen's row-major GEMV with 4-float packets, which LiteRT's builtin kernels use for one row.

/// Adds w·x to partial sum `lane` (a switch, so that the four stay in registers).
#define OMK_GEMV_STEP(MADD, lane, v, x)           \
    do {                                          \
        switch (lane) {                           \
            case 0: s0 = MADD(s0, v, x); break;   \
            case 1: s1 = MADD(s1, v, x); break;   \
            case 2: s2 = MADD(s2, v, x); break;   \
            default: s3 = MADD(s3, v, x); break;  \
        }                                         \
    } while (0)

/// The loop over every (tap, k) below the last whole group of four; `VEC` is the register type,
/// `LOAD(w)` loads the weights of one k, `SET1(x)` broadcasts an activation.
#define OMK_GEMV_BODY(VEC, MADD, LOAD, SET1)                                              \
    size_t g = 0;                                                                         \
    const float *w = b;                                                                   \
    for (size_t t = 0; t < taps && g < whole; t++) {                                      \
        const float *x = a[t * 8];                                                        \
        size_t k = 0;                                                                     \
        for (; k < depth && (g & 3) != 0 && g < whole; k++, g++, w += 16) {               \
            OMK_GEMV_STEP(MADD, g & 3, LOAD(w), SET1(x[k]));                              \
        }                                                                                 \
        for (; k + 4 <= depth && g + 4 <= whole; k += 4, g += 4, w += 64) {               \
            s0 = MADD(s0, LOAD(w), SET1(x[k]));                                           \
            s1 = MADD(s1, LOAD(w + 16), SET1(x[k + 1]));                                  \
            s2 = MADD(s2, LOAD(w + 32), SET1(x[k + 2]));                                  \
            s3 = MADD(s3, LOAD(w + 48), SET1(x[k + 3]));                                  \
        }                                                                                 \
        for (; k < depth && g < whole; k++, g++, w += 16) {                               \
            OMK_GEMV_STEP(MADD, g & 3, LOAD(w), SET1(x[k]));                              \
        }                                                                                 \
    }

static OMK_AVX512 inline __m512 load16(const float *w) { return _mm512_loadu_ps(w); }

OMK_AVX512 void omk_f32_gemv_16_avx512(const float *const *a, size_t taps, size_t depth, const float *b,
                                       const float *bias, float lower, float upper, float *c, size_t columns) {
    const size_t total = taps * depth, whole = total - total % 4;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    OMK_GEMV_BODY(__m512, madd16, load16, _mm512_set1_ps)
    __m512 sum = _mm512_add_ps(_mm512_add_ps(s0, s2), _mm512_add_ps(s1, s3));
    for (size_t gg = whole; gg < total; gg++) {
        sum = madd16(sum, _mm512_loadu_ps(b + gg * 16), _mm512_set1_ps(a[(gg / depth) * 8][gg % depth]));
    }
    sum = _mm512_add_ps(sum, _mm512_loadu_ps(bias));
    const __mmask16 mask = columns >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << columns) - 1);
    _mm512_mask_storeu_ps(c, mask, _mm512_min_ps(_mm512_set1_ps(upper), _mm512_max_ps(_mm512_set1_ps(lower), sum)));
}

/// Sixteen columns as two ymm halves, so the AVX2 body reads like the AVX-512 one.
typedef struct { __m256 lo, hi; } omk_f32x16;

static OMK_AVX2 inline omk_f32x16 load2x8(const float *w) {
    omk_f32x16 v = {_mm256_loadu_ps(w), _mm256_loadu_ps(w + 8)};
    return v;
}

static OMK_AVX2 inline omk_f32x16 set2x8(float x) {
    omk_f32x16 v = {_mm256_set1_ps(x), _mm256_set1_ps(x)};
    return v;
}

static OMK_AVX2 inline omk_f32x16 madd2x8(omk_f32x16 acc, omk_f32x16 w, omk_f32x16 x) {
    omk_f32x16 r = {madd8(acc.lo, w.lo, x.lo), madd8(acc.hi, w.hi, x.hi)};
    return r;
}

static OMK_AVX2 inline omk_f32x16 add2x8(omk_f32x16 p, omk_f32x16 q) {
    omk_f32x16 r = {_mm256_add_ps(p.lo, q.lo), _mm256_add_ps(p.hi, q.hi)};
    return r;
}

OMK_AVX2 void omk_f32_gemv_16_avx2(const float *const *a, size_t taps, size_t depth, const float *b,
                                   const float *bias, float lower, float upper, float *c, size_t columns) {
    const size_t total = taps * depth, whole = total - total % 4;
    const omk_f32x16 zero = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    omk_f32x16 s0 = zero, s1 = zero, s2 = zero, s3 = zero;
    OMK_GEMV_BODY(omk_f32x16, madd2x8, load2x8, set2x8)
    omk_f32x16 sum = add2x8(add2x8(s0, s2), add2x8(s1, s3));
    for (size_t gg = whole; gg < total; gg++) {
        sum = madd2x8(sum, load2x8(b + gg * 16), set2x8(a[(gg / depth) * 8][gg % depth]));
    }
    sum = add2x8(sum, load2x8(bias));
    const __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
    store16(c, clamp8(sum.lo, lo, hi), clamp8(sum.hi, lo, hi), columns);
}

#else

void omk_f32_gemm_8x16_avx2(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                            const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns) {
    (void)a; (void)rows; (void)taps; (void)depth; (void)b; (void)bias; (void)lower; (void)upper; (void)c;
    (void)ldc; (void)columns;
}

void omk_f32_gemm_8x16_avx512(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                              const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns) {
    (void)a; (void)rows; (void)taps; (void)depth; (void)b; (void)bias; (void)lower; (void)upper; (void)c;
    (void)ldc; (void)columns;
}

void omk_f32_gemm_8x32_avx512(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b0,
                              const float *b1, const float *bias, float lower, float upper, float *c, size_t ldc,
                              size_t columns1) {
    (void)a; (void)rows; (void)taps; (void)depth; (void)b0; (void)b1; (void)bias; (void)lower; (void)upper; (void)c;
    (void)ldc; (void)columns1;
}

void omk_f32_gemv_16_avx2(const float *const *a, size_t taps, size_t depth, const float *b, const float *bias,
                          float lower, float upper, float *c, size_t columns) {
    (void)a; (void)taps; (void)depth; (void)b; (void)bias; (void)lower; (void)upper; (void)c; (void)columns;
}

void omk_f32_gemv_16_avx512(const float *const *a, size_t taps, size_t depth, const float *b, const float *bias,
                            float lower, float upper, float *c, size_t columns) {
    (void)a; (void)taps; (void)depth; (void)b; (void)bias; (void)lower; (void)upper; (void)c; (void)columns;
}

#endif

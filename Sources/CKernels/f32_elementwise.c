#include "CKernels.h"

// Float elementwise loops the Swift side would compile for the baseline instruction set only
// (SSE2): each body is written once, in plain C, and compiled again inside AVX2 and AVX-512
// wrappers (the compilers vectorize it for each). The arithmetic is one IEEE operation per element
// plus comparisons, so every variant gives the same bits.

#pragma STDC FP_CONTRACT OFF

/// LiteRT's clamp to [lo, hi]: `std::min(std::max(x, lo), hi)` as its comparisons, a NaN passing.
static inline __attribute__((always_inline)) float clamp1(float x, float lo, float hi) {
    const float t = x < lo ? lo : x;
    return hi < t ? hi : t;
}

static inline __attribute__((always_inline)) void add_body(const float *a, const float *b, float *y, size_t count,
                                                           float lower, float upper) {
    for (size_t i = 0; i < count; i++) y[i] = clamp1(a[i] + b[i], lower, upper);
}

static inline __attribute__((always_inline)) void clamp_body(const float *x, float *y, size_t count, float lower,
                                                             float upper) {
    for (size_t i = 0; i < count; i++) y[i] = clamp1(x[i], lower, upper);
}

static inline __attribute__((always_inline)) void prelu_body(const float *x, const float *alpha, float *y, size_t rows,
                                                             size_t channels) {
    for (size_t r = 0; r < rows; r++, x += channels, y += channels)
        for (size_t c = 0; c < channels; c++) {
            const float v = x[c];
            y[c] = v >= 0 ? v : v * alpha[c];
        }
}

#define OMK_F32_ELEMENTWISE(SUFFIX, TARGET)                                                                     \
    TARGET void omk_f32_add_##SUFFIX(const float *a, const float *b, float *y, size_t count, float lower,      \
                                     float upper) {                                                             \
        add_body(a, b, y, count, lower, upper);                                                                \
    }                                                                                                           \
    TARGET void omk_f32_clamp_##SUFFIX(const float *x, float *y, size_t count, float lower, float upper) {     \
        clamp_body(x, y, count, lower, upper);                                                                 \
    }                                                                                                           \
    TARGET void omk_f32_prelu_##SUFFIX(const float *x, const float *alpha, float *y, size_t rows,              \
                                       size_t channels) {                                                       \
        prelu_body(x, alpha, y, rows, channels);                                                               \
    }

OMK_F32_ELEMENTWISE(portable, )
#if defined(__x86_64__) || defined(__i386__)
OMK_F32_ELEMENTWISE(avx2, __attribute__((target("avx2,fma"))))
OMK_F32_ELEMENTWISE(avx512, __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma"))))
#else
OMK_F32_ELEMENTWISE(avx2, )
OMK_F32_ELEMENTWISE(avx512, )
#endif

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
    if (x == y) {
        // In place (the fused ADD + RELU clamps its own sum): through one pointer, so the loop
        // vectorizes. With two, the compiler's overlap check sends x == y to its scalar loop, which
        // measured 3.5 times the vector one's time.
        for (size_t i = 0; i < count; i++) y[i] = clamp1(y[i], lower, upper);
        return;
    }
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

/// `floor` of a value known to lie well inside ±2^22: round to an integer by adding and removing
/// 1.5·2^23, then step down when that rounded up.
static inline __attribute__((always_inline)) float floor_bounded(float t) {
    const float nearest = (t + 12582912.0f) - 12582912.0f;
    return nearest > t ? nearest - 1.0f : nearest;
}

/// LiteRT's float LOGISTIC on an element of a whole block of 4 (Eigen's packet path, x86 build
/// without FMA): `e / (1 + e)` with `e` Eigen's exp of x/2, squared. The same operations, in the
/// same order, as `LiteRTActivation.logisticBlock`; below -104 the result is 0, a NaN stays itself.
static inline __attribute__((always_inline)) float logistic_block(float v) {
    const int nan = v != v;
    float x = nan ? 0.0f : v;
    x = x > 16.6355324f ? 16.6355324f : x;
    x = x < -104.0f ? -104.0f : x;
    x *= 0.5f;
    const float m = floor_bounded(x * 1.44269504088896341f + 0.5f);
    float r = m * -0.693359375f + x;
    r = m * 2.12194440e-4f + r;
    const float r2 = r * r;
    const float even = r2 * 4.1898667812347412109375e-2f + 0.49999141693115234375f;
    const float odd = r2 * 8.33471305668354034423828125e-3f + 0.16666877269744873046875f;
    float p = r * odd + even;
    p = r2 * p + (r + 1.0f);
    // 2^m from the bits of m + 1.5·2^23 (+127, the exponent bias).
    const float shifted = (m + 12582912.0f) + 127.0f;
    uint32_t bits;
    __builtin_memcpy(&bits, &shifted, sizeof bits);
    const uint32_t power_bits = (bits - 0x4B400000u) << 23;
    float power;
    __builtin_memcpy(&power, &power_bits, sizeof power);
    float e = p * power;
    e = e * e;
    float y = e / (1.0f + e);
    y = v < -104.0f ? 0.0f : y;
    return nan ? v : y;
}

static inline __attribute__((always_inline)) void logistic_body(const float *x, float *y, size_t count) {
    for (size_t i = 0; i < count; i++) y[i] = logistic_block(x[i]);
}

/// MAX_POOL_2D of one output pixel: the maximum over `rows` × `cols` input pixels (`col_step` and
/// `row_step` floats apart) of each channel, `acc < v ? v : acc` from -FLT_MAX (a NaN already in the
/// accumulator stays, as `std::max` keeps it), then `x < lower ? lower : (x > upper ? upper : x)`.
static inline __attribute__((always_inline)) void max_pixel_body(const float *first, size_t channels, size_t rows,
                                                                 size_t cols, size_t col_step, size_t row_step,
                                                                 float lower, float upper, float *out) {
    for (size_t c = 0; c < channels; c++) out[c] = -3.402823466e38f;
    for (size_t r = 0; r < rows; r++, first += row_step) {
        const float *q = first;
        for (size_t k = 0; k < cols; k++, q += col_step)
            for (size_t c = 0; c < channels; c++) {
                const float v = q[c], acc = out[c];
                out[c] = acc < v ? v : acc;
            }
    }
    for (size_t c = 0; c < channels; c++) {
        const float x = out[c];
        out[c] = x < lower ? lower : (x > upper ? upper : x);
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
    }                                                                                                           \
    TARGET void omk_f32_logistic_##SUFFIX(const float *x, float *y, size_t count) { logistic_body(x, y, count); } \
    TARGET void omk_f32_max_pixel_##SUFFIX(const float *first, size_t channels, size_t rows, size_t cols,      \
                                           size_t col_step, size_t row_step, float lower, float upper,         \
                                           float *out) {                                                        \
        max_pixel_body(first, channels, rows, cols, col_step, row_step, lower, upper, out);                    \
    }

OMK_F32_ELEMENTWISE(portable, )
#if defined(__x86_64__) || defined(__i386__)
OMK_F32_ELEMENTWISE(avx2, __attribute__((target("avx2,fma"))))
OMK_F32_ELEMENTWISE(avx512, __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma"))))
#else
OMK_F32_ELEMENTWISE(avx2, )
OMK_F32_ELEMENTWISE(avx512, )
#endif

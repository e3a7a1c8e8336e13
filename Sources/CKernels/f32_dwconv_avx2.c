#include "CKernels.h"

// Products are rounded before they are added, as in LiteRT's builtin float kernels: no fused
// multiply-adds, not even ones the compiler could form from `a + x * w`.
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <math.h>

#define OMK_TARGET __attribute__((target("avx2,fma")))

/// acc + x·w with the product rounded first: LiteRT's builtin float depthwise (bias first, then
/// each tap in (row, column) order) runs without fused multiply-adds, and matching it bit for bit
/// keeps dynamic-range layers downstream on the same quanta.
static OMK_TARGET inline __m256 madd8(__m256 acc, __m256 x, __m256 w) {
    return _mm256_add_ps(acc, _mm256_mul_ps(x, w));
}

static OMK_TARGET inline __m256 clamp8(__m256 v, __m256 lo, __m256 hi) {
    return _mm256_min_ps(hi, _mm256_max_ps(lo, v));  // NaN passes, as std::min(std::max(x, lo), hi)
}

/// One channel of one pixel, scalar (the channels past the last block of 8): from the bias, each
/// tap's rounded product added in order, clamped.
static OMK_TARGET inline float channel_sum(const float *x, const float *w, size_t c, size_t channels,
                                           size_t tap_rows, size_t tap_columns, size_t x_step, size_t x_row_step,
                                           size_t w_row_step, const float *bias, float lower, float upper) {
    float a = bias[c];
    const float *xr = x + c, *wr = w + c;
    for (size_t ty = 0; ty < tap_rows; ty++) {
        const float *xp = xr, *wp = wr;
        for (size_t tx = 0; tx < tap_columns; tx++) {
            const float product = *xp * *wp;
            a = a + product;
            xp += x_step;
            wp += channels;
        }
        xr += x_row_step;
        wr += w_row_step;
    }
    return (a < lower) ? lower : ((a > upper) ? upper : a);
}

OMK_TARGET void omk_f32_dwconv_pixel_avx2(const float *x, const float *w, size_t channels, size_t tap_rows,
                                         size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                                         const float *bias, float lower, float upper, float *out) {
    const __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
    size_t c = 0;
    for (; c + 32 <= channels; c += 32) {
        __m256 a0 = _mm256_loadu_ps(bias + c), a1 = _mm256_loadu_ps(bias + c + 8);
        __m256 a2 = _mm256_loadu_ps(bias + c + 16), a3 = _mm256_loadu_ps(bias + c + 24);
        const float *xr = x + c, *wr = w + c;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const float *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                a0 = madd8(a0, _mm256_loadu_ps(xp), _mm256_loadu_ps(wp));
                a1 = madd8(a1, _mm256_loadu_ps(xp + 8), _mm256_loadu_ps(wp + 8));
                a2 = madd8(a2, _mm256_loadu_ps(xp + 16), _mm256_loadu_ps(wp + 16));
                a3 = madd8(a3, _mm256_loadu_ps(xp + 24), _mm256_loadu_ps(wp + 24));
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        _mm256_storeu_ps(out + c, clamp8(a0, lo, hi));
        _mm256_storeu_ps(out + c + 8, clamp8(a1, lo, hi));
        _mm256_storeu_ps(out + c + 16, clamp8(a2, lo, hi));
        _mm256_storeu_ps(out + c + 24, clamp8(a3, lo, hi));
    }
    for (; c + 8 <= channels; c += 8) {
        __m256 a = _mm256_loadu_ps(bias + c);
        const float *xr = x + c, *wr = w + c;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const float *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                a = madd8(a, _mm256_loadu_ps(xp), _mm256_loadu_ps(wp));
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        _mm256_storeu_ps(out + c, clamp8(a, lo, hi));
    }
    for (; c < channels; c++) {
        out[c] = channel_sum(x, w, c, channels, tap_rows, tap_columns, x_step, x_row_step, w_row_step, bias, lower,
                             upper);
    }
}

/// Four output pixels with the same valid taps, `pixel_step` floats apart in the input and
/// `channels` apart in the output: four independent accumulator chains per 8 channels hide the add
/// latency that one pixel's single chain exposes (each output's order is unchanged).
OMK_TARGET void omk_f32_dwconv_pixels4_avx2(const float *x, const float *w, size_t channels, size_t tap_rows,
                                            size_t tap_columns, size_t x_step, size_t x_row_step,
                                            size_t w_row_step, size_t pixel_step, const float *bias, float lower,
                                            float upper, float *out) {
    const __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
    size_t c = 0;
    for (; c + 8 <= channels; c += 8) {
        const __m256 b = _mm256_loadu_ps(bias + c);
        __m256 a0 = b, a1 = b, a2 = b, a3 = b;
        const float *xr = x + c, *wr = w + c;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const float *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                const __m256 wv = _mm256_loadu_ps(wp);
                a0 = madd8(a0, _mm256_loadu_ps(xp), wv);
                a1 = madd8(a1, _mm256_loadu_ps(xp + pixel_step), wv);
                a2 = madd8(a2, _mm256_loadu_ps(xp + 2 * pixel_step), wv);
                a3 = madd8(a3, _mm256_loadu_ps(xp + 3 * pixel_step), wv);
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        _mm256_storeu_ps(out + c, clamp8(a0, lo, hi));
        _mm256_storeu_ps(out + channels + c, clamp8(a1, lo, hi));
        _mm256_storeu_ps(out + 2 * channels + c, clamp8(a2, lo, hi));
        _mm256_storeu_ps(out + 3 * channels + c, clamp8(a3, lo, hi));
    }
    // The last channels one by one (the filter's tap stride stays `channels`).
    for (; c < channels; c++) {
        for (size_t p = 0; p < 4; p++) {
            out[p * channels + c] = channel_sum(x + p * pixel_step, w, c, channels, tap_rows, tap_columns, x_step,
                                                x_row_step, w_row_step, bias, lower, upper);
        }
    }
}

#else

void omk_f32_dwconv_pixel_avx2(const float *x, const float *w, size_t channels, size_t tap_rows,
                              size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                              const float *bias, float lower, float upper, float *out) {
    (void)x; (void)w; (void)channels; (void)tap_rows; (void)tap_columns; (void)x_step; (void)x_row_step;
    (void)w_row_step; (void)bias; (void)lower; (void)upper; (void)out;
}

void omk_f32_dwconv_pixels4_avx2(const float *x, const float *w, size_t channels, size_t tap_rows,
                                 size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                                 size_t pixel_step, const float *bias, float lower, float upper, float *out) {
    (void)x; (void)w; (void)channels; (void)tap_rows; (void)tap_columns; (void)x_step; (void)x_row_step;
    (void)w_row_step; (void)pixel_step; (void)bias; (void)lower; (void)upper; (void)out;
}

#endif

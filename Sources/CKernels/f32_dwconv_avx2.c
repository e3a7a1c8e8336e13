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

/// Lane masks for the last block of channels: `tail_mask(n)` enables lanes 0..<n (1...7).
static OMK_TARGET inline __m256i tail_mask(size_t n) {
    static const int32_t ones_then_zeros[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256((const __m256i *)(ones_then_zeros + 8 - n));
}

// Loads 8 floats, or only the lanes `m` enables when `full` is 0 (the others read as 0 and their
// memory is not touched). `full` is a constant in every caller, so each loop is compiled twice.
#define LD(p, m, full) ((full) ? _mm256_loadu_ps(p) : _mm256_maskload_ps((p), (m)))
#define ST(p, v, m, full)                                                                                      \
    do {                                                                                                       \
        if (full) _mm256_storeu_ps((p), (v));                                                                  \
        else _mm256_maskstore_ps((p), (m), (v));                                                               \
    } while (0)

/// One block of up to 8 channels of a run of 3×3 pixels: the nine weights stay in registers and two
/// pixels are computed at once (two independent chains). With `S` > 0 the two pixels are S taps
/// apart (`pixel_step == S * x_step`) and share the S + 3 input vectors of each filter row, each
/// loaded once. `S` and `full` are constants in every caller.
static OMK_TARGET inline __attribute__((always_inline)) void run3x3_block(
    const int S, const float *x, const float *w, size_t channels, size_t x_step, size_t x_row_step,
    size_t w_row_step, size_t pixel_step, size_t count, __m256 b, __m256 lo, __m256 hi, float *out, __m256i m,
    int full) {
    __m256 wv[9];
    for (int ty = 0; ty < 3; ty++)
        for (int tx = 0; tx < 3; tx++) wv[ty * 3 + tx] = LD(w + (size_t)ty * w_row_step + (size_t)tx * channels, m, full);
    size_t p = 0;
    for (; p + 2 <= count; p += 2) {
        __m256 a0 = b, a1 = b;
        const float *xr = x + p * pixel_step;
        for (int ty = 0; ty < 3; ty++, xr += x_row_step) {
            if (S > 0) {
                __m256 col[5];
                const float *xp = xr;
                for (int j = 0; j < S + 3; j++, xp += x_step) col[j] = LD(xp, m, full);
                for (int tx = 0; tx < 3; tx++) {
                    a0 = madd8(a0, col[tx], wv[ty * 3 + tx]);
                    a1 = madd8(a1, col[S + tx], wv[ty * 3 + tx]);
                }
            } else {
                for (int tx = 0; tx < 3; tx++) {
                    a0 = madd8(a0, LD(xr + (size_t)tx * x_step, m, full), wv[ty * 3 + tx]);
                    a1 = madd8(a1, LD(xr + pixel_step + (size_t)tx * x_step, m, full), wv[ty * 3 + tx]);
                }
            }
        }
        ST(out + p * channels, clamp8(a0, lo, hi), m, full);
        ST(out + (p + 1) * channels, clamp8(a1, lo, hi), m, full);
    }
    if (p < count) {
        __m256 a0 = b;
        const float *xr = x + p * pixel_step;
        for (int ty = 0; ty < 3; ty++, xr += x_row_step)
            for (int tx = 0; tx < 3; tx++) a0 = madd8(a0, LD(xr + (size_t)tx * x_step, m, full), wv[ty * 3 + tx]);
        ST(out + p * channels, clamp8(a0, lo, hi), m, full);
    }
}

/// run3x3_block with the input sharing that the pixel spacing allows.
static OMK_TARGET inline __attribute__((always_inline)) void run3x3(
    const float *x, const float *w, size_t channels, size_t x_step, size_t x_row_step, size_t w_row_step,
    size_t pixel_step, size_t count, __m256 b, __m256 lo, __m256 hi, float *out, __m256i m, int full) {
    if (pixel_step == x_step)
        run3x3_block(1, x, w, channels, x_step, x_row_step, w_row_step, pixel_step, count, b, lo, hi, out, m, full);
    else if (pixel_step == 2 * x_step)
        run3x3_block(2, x, w, channels, x_step, x_row_step, w_row_step, pixel_step, count, b, lo, hi, out, m, full);
    else
        run3x3_block(0, x, w, channels, x_step, x_row_step, w_row_step, pixel_step, count, b, lo, hi, out, m, full);
}

/// One block of up to 8 channels of a run of pixels with any taps: each tap's weights are loaded
/// once for four pixels.
static OMK_TARGET inline __attribute__((always_inline)) void run_block(
    const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns, size_t x_step,
    size_t x_row_step, size_t w_row_step, size_t pixel_step, size_t count, __m256 b, __m256 lo, __m256 hi,
    float *out, __m256i m, int full) {
    size_t p = 0;
    for (; p + 4 <= count; p += 4) {
        __m256 a0 = b, a1 = b, a2 = b, a3 = b;
        const float *xr = x + p * pixel_step, *wr = w;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const float *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                const __m256 wv = LD(wp, m, full);
                a0 = madd8(a0, LD(xp, m, full), wv);
                a1 = madd8(a1, LD(xp + pixel_step, m, full), wv);
                a2 = madd8(a2, LD(xp + 2 * pixel_step, m, full), wv);
                a3 = madd8(a3, LD(xp + 3 * pixel_step, m, full), wv);
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        float *o = out + p * channels;
        ST(o, clamp8(a0, lo, hi), m, full);
        ST(o + channels, clamp8(a1, lo, hi), m, full);
        ST(o + 2 * channels, clamp8(a2, lo, hi), m, full);
        ST(o + 3 * channels, clamp8(a3, lo, hi), m, full);
    }
    for (; p < count; p++) {
        __m256 a = b;
        const float *xr = x + p * pixel_step, *wr = w;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const float *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                a = madd8(a, LD(xp, m, full), LD(wp, m, full));
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        ST(out + p * channels, clamp8(a, lo, hi), m, full);
    }
}

OMK_TARGET void omk_f32_dwconv_run_avx2(const float *x, const float *w, size_t channels, size_t tap_rows,
                                        size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                                        size_t pixel_step, size_t count, const float *bias, float lower, float upper,
                                        float *out) {
    const __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
    const __m256i all = _mm256_set1_epi32(-1);
    const int three = tap_rows == 3 && tap_columns == 3;
    size_t c = 0;
    for (; c + 8 <= channels; c += 8) {
        const __m256 b = _mm256_loadu_ps(bias + c);
        if (three)
            run3x3(x + c, w + c, channels, x_step, x_row_step, w_row_step, pixel_step, count, b, lo, hi, out + c, all,
                   1);
        else
            run_block(x + c, w + c, channels, tap_rows, tap_columns, x_step, x_row_step, w_row_step, pixel_step,
                      count, b, lo, hi, out + c, all, 1);
    }
    if (c < channels) {
        // The last channels: the same lanes, masked (each lane's sum is unchanged).
        const __m256i m = tail_mask(channels - c);
        const __m256 b = _mm256_maskload_ps(bias + c, m);
        if (three)
            run3x3(x + c, w + c, channels, x_step, x_row_step, w_row_step, pixel_step, count, b, lo, hi, out + c, m, 0);
        else
            run_block(x + c, w + c, channels, tap_rows, tap_columns, x_step, x_row_step, w_row_step, pixel_step,
                      count, b, lo, hi, out + c, m, 0);
    }
}

#undef LD
#undef ST

#else

void omk_f32_dwconv_pixel_avx2(const float *x, const float *w, size_t channels, size_t tap_rows,
                              size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                              const float *bias, float lower, float upper, float *out) {
    (void)x; (void)w; (void)channels; (void)tap_rows; (void)tap_columns; (void)x_step; (void)x_row_step;
    (void)w_row_step; (void)bias; (void)lower; (void)upper; (void)out;
}

void omk_f32_dwconv_run_avx2(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                             size_t x_step, size_t x_row_step, size_t w_row_step, size_t pixel_step, size_t count,
                             const float *bias, float lower, float upper, float *out) {
    (void)x; (void)w; (void)channels; (void)tap_rows; (void)tap_columns; (void)x_step; (void)x_row_step;
    (void)w_row_step; (void)pixel_step; (void)count; (void)bias; (void)lower; (void)upper; (void)out;
}

#endif

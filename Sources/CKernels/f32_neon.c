#include "kernels_arm.h"

// Float GEMM and depthwise kernels for aarch64 NEON, with the order and rounding of the x86 ones
// (and so of LiteRT's builtin kernels): every product rounded before it is added (vmulq then vaddq,
// never a fused multiply-add), in the same sequence per output. Each output therefore comes out
// bit-identical to the x86 kernels and to the portable Swift path; the harness checks it exactly.

#pragma STDC FP_CONTRACT OFF

#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>

#define OMK_INLINE __attribute__((always_inline)) static inline

/// acc + w·x with the product rounded first.
OMK_INLINE float32x4_t madd(float32x4_t acc, float32x4_t w, float x) { return vaddq_f32(acc, vmulq_n_f32(w, x)); }
OMK_INLINE float32x4_t madd_v(float32x4_t acc, float32x4_t w, float32x4_t x) {
    return vaddq_f32(acc, vmulq_f32(w, x));
}

/// x86's min(hi, max(lo, v)) exactly: max(lo, v) is lo only when lo > v, min(hi, t) is hi only
/// when hi < t, so a NaN passes and a −0 stays −0 at a lower bound of 0 (FMAX would give +0).
OMK_INLINE float32x4_t clamp(float32x4_t v, float32x4_t lo, float32x4_t hi) {
    const float32x4_t t = vbslq_f32(vcgtq_f32(lo, v), lo, v);
    return vbslq_f32(vcltq_f32(hi, t), hi, t);
}

/// Stores the first `columns` (<= 16) of 16 values.
OMK_INLINE void store16(float *c, const float32x4_t v[4], size_t columns) {
    if (columns >= 16) {
        vst1q_f32(c, v[0]);
        vst1q_f32(c + 4, v[1]);
        vst1q_f32(c + 8, v[2]);
        vst1q_f32(c + 12, v[3]);
        return;
    }
    float t[16];
    for (int j = 0; j < 4; j++) vst1q_f32(t + 4 * j, v[j]);
    memcpy(c, t, columns * sizeof(float));
}

/// Four rows (`first`..first + 3 of the tile) by 16 columns: 16 accumulators and 4 weight vectors.
OMK_INLINE void gemm_4x16(const float *const *a, size_t first, size_t rows, size_t taps, size_t depth,
                          const float *b, const float *bias, float lower, float upper, float *c, size_t ldc,
                          size_t columns) {
    float32x4_t acc[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) acc[i][j] = vdupq_n_f32(0.0f);
    const float *w = b;
    for (size_t t = 0; t < taps; t++) {
        const float *const *r = a + t * 8 + first;
        const float *a0 = r[0], *a1 = r[1], *a2 = r[2], *a3 = r[3];
        for (size_t k = 0; k < depth; k++) {
            const float32x4_t w0 = vld1q_f32(w), w1 = vld1q_f32(w + 4), w2 = vld1q_f32(w + 8), w3 = vld1q_f32(w + 12);
            const float x0 = a0[k], x1 = a1[k], x2 = a2[k], x3 = a3[k];
            acc[0][0] = madd(acc[0][0], w0, x0); acc[0][1] = madd(acc[0][1], w1, x0);
            acc[0][2] = madd(acc[0][2], w2, x0); acc[0][3] = madd(acc[0][3], w3, x0);
            acc[1][0] = madd(acc[1][0], w0, x1); acc[1][1] = madd(acc[1][1], w1, x1);
            acc[1][2] = madd(acc[1][2], w2, x1); acc[1][3] = madd(acc[1][3], w3, x1);
            acc[2][0] = madd(acc[2][0], w0, x2); acc[2][1] = madd(acc[2][1], w1, x2);
            acc[2][2] = madd(acc[2][2], w2, x2); acc[2][3] = madd(acc[2][3], w3, x2);
            acc[3][0] = madd(acc[3][0], w0, x3); acc[3][1] = madd(acc[3][1], w1, x3);
            acc[3][2] = madd(acc[3][2], w2, x3); acc[3][3] = madd(acc[3][3], w3, x3);
            w += 16;
        }
    }
    const float32x4_t lo = vdupq_n_f32(lower), hi = vdupq_n_f32(upper);
    for (size_t i = 0; i < 4 && first + i < rows; i++) {
        float32x4_t v[4];
        for (int j = 0; j < 4; j++) v[j] = clamp(vaddq_f32(acc[i][j], vld1q_f32(bias + 4 * j)), lo, hi);
        store16(c + (first + i) * ldc, v, columns);
    }
}

void omk_f32_gemm_8x16_neon(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                            const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns) {
    gemm_4x16(a, 0, rows, taps, depth, b, bias, lower, upper, c, ldc, columns);
    if (rows > 4) gemm_4x16(a, 4, rows, taps, depth, b, bias, lower, upper, c, ldc, columns);
}

/// 16 columns as four vectors.
typedef struct { float32x4_t v[4]; } f32x16;

OMK_INLINE f32x16 madd16(f32x16 s, const float *w, float x) {
    for (int j = 0; j < 4; j++) s.v[j] = madd(s.v[j], vld1q_f32(w + 4 * j), x);
    return s;
}

OMK_INLINE f32x16 add16(f32x16 p, f32x16 q) {
    for (int j = 0; j < 4; j++) p.v[j] = vaddq_f32(p.v[j], q.v[j]);
    return p;
}

/// The matrix-vector order of omk_f32_gemv_16_avx2: partial sums s0..s3 over the (tap, k) ≡ 0..3
/// (mod 4) below the last whole group of four, (s0 + s2) + (s1 + s3), then the rest one by one,
/// then the bias.
void omk_f32_gemv_16_neon(const float *const *a, size_t taps, size_t depth, const float *b, const float *bias,
                          float lower, float upper, float *c, size_t columns) {
    const size_t total = taps * depth, whole = total - total % 4;
    f32x16 s[4];
    for (int q = 0; q < 4; q++)
        for (int j = 0; j < 4; j++) s[q].v[j] = vdupq_n_f32(0.0f);
    size_t g = 0;
    const float *w = b;
    for (size_t t = 0; t < taps && g < whole; t++) {
        const float *x = a[t * 8];
        size_t k = 0;
        for (; k < depth && (g & 3) != 0 && g < whole; k++, g++, w += 16) s[g & 3] = madd16(s[g & 3], w, x[k]);
        for (; k + 4 <= depth && g + 4 <= whole; k += 4, g += 4, w += 64) {
            s[0] = madd16(s[0], w, x[k]);
            s[1] = madd16(s[1], w + 16, x[k + 1]);
            s[2] = madd16(s[2], w + 32, x[k + 2]);
            s[3] = madd16(s[3], w + 48, x[k + 3]);
        }
        for (; k < depth && g < whole; k++, g++, w += 16) s[g & 3] = madd16(s[g & 3], w, x[k]);
    }
    f32x16 sum = add16(add16(s[0], s[2]), add16(s[1], s[3]));
    for (size_t gg = whole; gg < total; gg++) sum = madd16(sum, b + gg * 16, a[(gg / depth) * 8][gg % depth]);
    const float32x4_t lo = vdupq_n_f32(lower), hi = vdupq_n_f32(upper);
    float32x4_t v[4];
    for (int j = 0; j < 4; j++) v[j] = clamp(vaddq_f32(sum.v[j], vld1q_f32(bias + 4 * j)), lo, hi);
    store16(c, v, columns);
}

/// One channel of one pixel, scalar (channels past the last block of 4).
OMK_INLINE float channel_sum(const float *x, const float *w, size_t c, size_t channels, size_t tap_rows,
                             size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                             const float *bias, float lower, float upper) {
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

void omk_f32_dwconv_pixel_neon(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                               size_t x_step, size_t x_row_step, size_t w_row_step, const float *bias, float lower,
                               float upper, float *out) {
    const float32x4_t lo = vdupq_n_f32(lower), hi = vdupq_n_f32(upper);
    size_t c = 0;
    // Four independent chains of 4 channels hide the add latency.
    for (; c + 16 <= channels; c += 16) {
        float32x4_t a0 = vld1q_f32(bias + c), a1 = vld1q_f32(bias + c + 4);
        float32x4_t a2 = vld1q_f32(bias + c + 8), a3 = vld1q_f32(bias + c + 12);
        const float *xr = x + c, *wr = w + c;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const float *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                a0 = madd_v(a0, vld1q_f32(xp), vld1q_f32(wp));
                a1 = madd_v(a1, vld1q_f32(xp + 4), vld1q_f32(wp + 4));
                a2 = madd_v(a2, vld1q_f32(xp + 8), vld1q_f32(wp + 8));
                a3 = madd_v(a3, vld1q_f32(xp + 12), vld1q_f32(wp + 12));
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        vst1q_f32(out + c, clamp(a0, lo, hi));
        vst1q_f32(out + c + 4, clamp(a1, lo, hi));
        vst1q_f32(out + c + 8, clamp(a2, lo, hi));
        vst1q_f32(out + c + 12, clamp(a3, lo, hi));
    }
    for (; c + 4 <= channels; c += 4) {
        float32x4_t a = vld1q_f32(bias + c);
        const float *xr = x + c, *wr = w + c;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const float *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                a = madd_v(a, vld1q_f32(xp), vld1q_f32(wp));
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        vst1q_f32(out + c, clamp(a, lo, hi));
    }
    for (; c < channels; c++) {
        out[c] = channel_sum(x, w, c, channels, tap_rows, tap_columns, x_step, x_row_step, w_row_step, bias, lower,
                             upper);
    }
}

/// Four pixels of a run (see omk_f32_dwconv_run_neon); a function of its own so that
/// scripts/arm-mca can estimate its loop.
void omk_f32_dwconv_pixels4_neon(const float *x, const float *w, size_t channels, size_t tap_rows,
                                 size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                                 size_t pixel_step, const float *bias, float lower, float upper, float *out) {
    const float32x4_t lo = vdupq_n_f32(lower), hi = vdupq_n_f32(upper);
    size_t c = 0;
    // Per 8 channels, four pixels share each weight load: 8 accumulators.
    for (; c + 8 <= channels; c += 8) {
        const float32x4_t b0 = vld1q_f32(bias + c), b1 = vld1q_f32(bias + c + 4);
        float32x4_t a[4][2] = {{b0, b1}, {b0, b1}, {b0, b1}, {b0, b1}};
        const float *xr = x + c, *wr = w + c;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const float *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                const float32x4_t w0 = vld1q_f32(wp), w1 = vld1q_f32(wp + 4);
                for (size_t p = 0; p < 4; p++) {
                    a[p][0] = madd_v(a[p][0], vld1q_f32(xp + p * pixel_step), w0);
                    a[p][1] = madd_v(a[p][1], vld1q_f32(xp + p * pixel_step + 4), w1);
                }
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        for (size_t p = 0; p < 4; p++) {
            vst1q_f32(out + p * channels + c, clamp(a[p][0], lo, hi));
            vst1q_f32(out + p * channels + c + 4, clamp(a[p][1], lo, hi));
        }
    }
    for (; c < channels; c++) {
        for (size_t p = 0; p < 4; p++) {
            out[p * channels + c] = channel_sum(x + p * pixel_step, w, c, channels, tap_rows, tap_columns, x_step,
                                                x_row_step, w_row_step, bias, lower, upper);
        }
    }
}

/// A run of pixels with the same valid taps: four at a time, the rest one by one.
void omk_f32_dwconv_run_neon(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                             size_t x_step, size_t x_row_step, size_t w_row_step, size_t pixel_step, size_t count,
                             const float *bias, float lower, float upper, float *out) {
    size_t p = 0;
    for (; p + 4 <= count; p += 4)
        omk_f32_dwconv_pixels4_neon(x + p * pixel_step, w, channels, tap_rows, tap_columns, x_step, x_row_step,
                                    w_row_step, pixel_step, bias, lower, upper, out + p * channels);
    for (; p < count; p++)
        omk_f32_dwconv_pixel_neon(x + p * pixel_step, w, channels, tap_rows, tap_columns, x_step, x_row_step,
                                  w_row_step, bias, lower, upper, out + p * channels);
}

#endif

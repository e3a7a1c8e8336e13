#include "kernels_arm.h"

// int16 GEMM tile and depthwise pixel for aarch64 NEON: exact 16x16 → 32-bit products (SMLAL)
// summed in wrapping int32, so every result equals the AVX2 kernels' and the Swift path's.

#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>

/// Rows 0...7 of a tile, spelled out so that the 16 accumulators stay in registers.
#define OMK_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

void omk_q16_gemm_8x8_neon(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b, int32_t *acc,
                           size_t ldacc) {
#define OMK_DECLARE(i) int32x4_t l##i = vdupq_n_s32(0), h##i = vdupq_n_s32(0);
    OMK_ROWS(OMK_DECLARE)
#undef OMK_DECLARE
    const int16_t *w = b;
    const size_t pairs = depth / 2;
    for (size_t t = 0; t < taps; t++) {
        const int16_t *const *r = a + t * 8;
        for (size_t p = 0; p < pairs; p++) {
            // The panel interleaves (w[k], w[k + 1]) per column: deinterleaved, 8 columns per k.
            const int16x8x2_t v = vld2q_s16(w);
            const size_t k = 2 * p;
            // Row i's two activations in lanes 0 and 1 (one 32-bit load).
#define OMK_PAIR(i)                                                                   \
    {                                                                                 \
        uint32_t bits;                                                                \
        memcpy(&bits, r[i] + k, 4);                                                   \
        const int16x4_t x = vreinterpret_s16_u32(vdup_n_u32(bits));                   \
        l##i = vmlal_lane_s16(l##i, vget_low_s16(v.val[0]), x, 0);                    \
        h##i = vmlal_lane_s16(h##i, vget_high_s16(v.val[0]), x, 0);                   \
        l##i = vmlal_lane_s16(l##i, vget_low_s16(v.val[1]), x, 1);                    \
        h##i = vmlal_lane_s16(h##i, vget_high_s16(v.val[1]), x, 1);                   \
    }
            OMK_ROWS(OMK_PAIR)
#undef OMK_PAIR
            w += 16;
        }
        if (depth & 1) {
            // The odd last k: its partner weight is zero and is not read.
            const int16x8x2_t v = vld2q_s16(w);
            const size_t k = depth - 1;
#define OMK_LAST(i)                                                                   \
    l##i = vmlal_n_s16(l##i, vget_low_s16(v.val[0]), r[i][k]);                        \
    h##i = vmlal_high_n_s16(h##i, v.val[0], r[i][k]);
            OMK_ROWS(OMK_LAST)
#undef OMK_LAST
            w += 16;
        }
    }
#define OMK_STORE(i)                                     \
    vst1q_s32(acc + (size_t)(i) * ldacc, l##i);          \
    vst1q_s32(acc + (size_t)(i) * ldacc + 4, h##i);
    OMK_ROWS(OMK_STORE)
#undef OMK_STORE
}

void omk_q16_dwconv_pixel_neon(const int16_t *x, const int16_t *w, size_t channels, size_t tap_rows,
                               size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                               int32_t *acc) {
    size_t c = 0;
    for (; c + 8 <= channels; c += 8) {
        int32x4_t a0 = vdupq_n_s32(0), a1 = a0;
        const int16_t *xr = x + c, *wr = w + c;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const int16_t *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                const int16x8_t xv = vld1q_s16(xp), wv = vld1q_s16(wp);
                a0 = vmlal_s16(a0, vget_low_s16(xv), vget_low_s16(wv));
                a1 = vmlal_high_s16(a1, xv, wv);
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        vst1q_s32(acc + c, a0);
        vst1q_s32(acc + c + 4, a1);
    }
    for (; c < channels; c++) {
        int32_t s = 0;
        const int16_t *xr = x + c, *wr = w + c;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const int16_t *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                s = (int32_t)((uint32_t)s + (uint32_t)((int32_t)*xp * (int32_t)*wp));
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        acc[c] = s;
    }
}

#endif

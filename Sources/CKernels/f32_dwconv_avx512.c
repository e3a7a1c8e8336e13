#include "CKernels.h"

// Products are rounded before they are added, as in LiteRT's builtin float depthwise convolution:
// no fused multiply-adds, not even ones the compiler could form from `a + x * w`.
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define OMK_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma")))

/// acc + x·w, the product rounded first.
static OMK_TARGET inline __m512 madd16(__m512 acc, __m512 x, __m512 w) {
    return _mm512_add_ps(acc, _mm512_mul_ps(x, w));
}

static OMK_TARGET inline __m512 clamp16(__m512 v, __m512 lo, __m512 hi) {
    return _mm512_min_ps(hi, _mm512_max_ps(lo, v));  // NaN passes, as std::min(std::max(x, lo), hi)
}

/// One block of channels (lanes `m` of a VEC) of a run of pixels whose taps are a whole K×K window:
/// the K² weights stay in registers, `P` pixels are computed at once (independent chains), and each
/// pixel adds its taps in row-major order from the bias. With `S` > 0 the pixels are S taps apart
/// (`pixel_step == S * x_step`), so the P·K input vectors of a filter row are (P−1)·S + K distinct
/// ones, each loaded once; `S` == 0 loads every tap of every pixel. `K`, `P` and `S` are constants in
/// every caller, so the tap loops unroll completely.
#define DEFINE_SQUARE_BLOCK(NAME, VEC, MASK, LOAD, STORE, MUL, ADD, MIN, MAX)                                      \
    static OMK_TARGET inline __attribute__((always_inline)) void NAME(                                              \
        const int K, const int P, const int S, const float *x, const float *w, size_t channels, size_t x_step,    \
        size_t x_row_step, size_t w_row_step, size_t pixel_step, size_t count, VEC b, VEC lo, VEC hi, float *out,  \
        MASK m) {                                                                                                  \
        VEC wv[25];                                                                                                \
        for (int ty = 0; ty < K; ty++)                                                                             \
            for (int tx = 0; tx < K; tx++)                                                                         \
                wv[ty * K + tx] = LOAD(m, w + (size_t)ty * w_row_step + (size_t)tx * channels);                   \
        size_t p = 0;                                                                                              \
        for (; p + (size_t)P <= count; p += (size_t)P) {                                                           \
            VEC a[4];                                                                                              \
            for (int q = 0; q < P; q++) a[q] = b;                                                                  \
            const float *xr = x + p * pixel_step;                                                                  \
            for (int ty = 0; ty < K; ty++, xr += x_row_step) {                                                     \
                if (S > 0) {                                                                                       \
                    VEC col[16];                                                                                   \
                    const float *xp = xr;                                                                          \
                    for (int j = 0; j < (P - 1) * S + K; j++, xp += x_step) col[j] = LOAD(m, xp);                 \
                    for (int tx = 0; tx < K; tx++)                                                                 \
                        for (int q = 0; q < P; q++) a[q] = ADD(a[q], MUL(col[q * S + tx], wv[ty * K + tx]));      \
                } else {                                                                                           \
                    for (int tx = 0; tx < K; tx++)                                                                 \
                        for (int q = 0; q < P; q++)                                                                \
                            a[q] = ADD(a[q], MUL(LOAD(m, xr + (size_t)q * pixel_step + (size_t)tx * x_step),       \
                                                 wv[ty * K + tx]));                                                \
                }                                                                                                  \
            }                                                                                                      \
            for (int q = 0; q < P; q++) STORE(out + (p + (size_t)q) * channels, m, MIN(hi, MAX(lo, a[q])));      \
        }                                                                                                          \
        for (; p < count; p++) {                                                                                   \
            VEC a = b;                                                                                             \
            const float *x0 = x + p * pixel_step;                                                                  \
            for (int ty = 0; ty < K; ty++)                                                                         \
                for (int tx = 0; tx < K; tx++)                                                                     \
                    a = ADD(a, MUL(LOAD(m, x0 + (size_t)ty * x_row_step + (size_t)tx * x_step), wv[ty * K + tx])); \
            STORE(out + p * channels, m, MIN(hi, MAX(lo, a)));                                                     \
        }                                                                                                          \
    }

// 16 channels per vector, and 8 (AVX-512VL) for a last block of at most 8 channels, where a
// 16-lane vector would waste half its lanes (an 8-channel layer is common in small models).
// min(hi, max(lo, v)): a NaN passes, as std::min(std::max(x, lo), hi).
DEFINE_SQUARE_BLOCK(square16, __m512, __mmask16, _mm512_maskz_loadu_ps, _mm512_mask_storeu_ps, _mm512_mul_ps,
                    _mm512_add_ps, _mm512_min_ps, _mm512_max_ps)
DEFINE_SQUARE_BLOCK(square8, __m256, __mmask8, _mm256_maskz_loadu_ps, _mm256_mask_storeu_ps, _mm256_mul_ps,
                    _mm256_add_ps, _mm256_min_ps, _mm256_max_ps)

/// A whole K×K window (K = 3 or 5) in one block, with input sharing when pixels are 1 or 2 taps apart.
#define SQUARE(FN, K, P)                                                                                           \
    do {                                                                                                           \
        if (pixel_step == x_step)                                                                                  \
            FN(K, P, 1, x + c, w + c, channels, x_step, x_row_step, w_row_step, pixel_step, count, b, lo, hi,    \
               out + c, m);                                                                                        \
        else if (pixel_step == 2 * x_step)                                                                         \
            FN(K, P, 2, x + c, w + c, channels, x_step, x_row_step, w_row_step, pixel_step, count, b, lo, hi,    \
               out + c, m);                                                                                        \
        else                                                                                                       \
            FN(K, P, 0, x + c, w + c, channels, x_step, x_row_step, w_row_step, pixel_step, count, b, lo, hi,    \
               out + c, m);                                                                                        \
    } while (0)

/// One block of up to 16 channels of a run of pixels with any taps: each tap's weights are loaded
/// once for four pixels.
static OMK_TARGET inline __attribute__((always_inline)) void run_any_block(
    const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns, size_t x_step,
    size_t x_row_step, size_t w_row_step, size_t pixel_step, size_t count, __m512 b, __m512 lo, __m512 hi,
    float *out, __mmask16 m) {
    size_t p = 0;
    for (; p + 4 <= count; p += 4) {
        __m512 a0 = b, a1 = b, a2 = b, a3 = b;
        const float *xr = x + p * pixel_step, *wr = w;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const float *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                const __m512 wt = _mm512_maskz_loadu_ps(m, wp);
                a0 = madd16(a0, _mm512_maskz_loadu_ps(m, xp), wt);
                a1 = madd16(a1, _mm512_maskz_loadu_ps(m, xp + pixel_step), wt);
                a2 = madd16(a2, _mm512_maskz_loadu_ps(m, xp + 2 * pixel_step), wt);
                a3 = madd16(a3, _mm512_maskz_loadu_ps(m, xp + 3 * pixel_step), wt);
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        float *o = out + p * channels;
        _mm512_mask_storeu_ps(o, m, clamp16(a0, lo, hi));
        _mm512_mask_storeu_ps(o + channels, m, clamp16(a1, lo, hi));
        _mm512_mask_storeu_ps(o + 2 * channels, m, clamp16(a2, lo, hi));
        _mm512_mask_storeu_ps(o + 3 * channels, m, clamp16(a3, lo, hi));
    }
    for (; p < count; p++) {
        __m512 a = b;
        const float *xr = x + p * pixel_step, *wr = w;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const float *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                a = madd16(a, _mm512_maskz_loadu_ps(m, xp), _mm512_maskz_loadu_ps(m, wp));
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        _mm512_mask_storeu_ps(out + p * channels, m, clamp16(a, lo, hi));
    }
}

OMK_TARGET void omk_f32_dwconv_run_avx512(const float *x, const float *w, size_t channels, size_t tap_rows,
                                          size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                                          size_t pixel_step, size_t count, const float *bias, float lower,
                                          float upper, float *out) {
    const int square = tap_rows == tap_columns && (tap_rows == 3 || tap_rows == 5) ? (int)tap_rows : 0;
    size_t c = 0;
    for (; c < channels; c += 16) {
        const size_t left = channels - c;
        if (square && left <= 8) break;
        // The last block masks the channels past the end (each lane's sum is unchanged).
        const __mmask16 m = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);
        const __m512 lo = _mm512_set1_ps(lower), hi = _mm512_set1_ps(upper);
        const __m512 b = _mm512_maskz_loadu_ps(m, bias + c);
        if (square == 3)
            SQUARE(square16, 3, 4);
        else if (square == 5)
            SQUARE(square16, 5, 2);
        else
            run_any_block(x + c, w + c, channels, tap_rows, tap_columns, x_step, x_row_step, w_row_step, pixel_step,
                          count, b, lo, hi, out + c, m);
    }
    if (c < channels) {
        const __mmask8 m = (__mmask8)((1u << (channels - c)) - 1);
        const __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
        const __m256 b = _mm256_maskz_loadu_ps(m, bias + c);
        if (square == 3)
            SQUARE(square8, 3, 4);
        else
            SQUARE(square8, 5, 2);
    }
}

#undef SQUARE

#else

void omk_f32_dwconv_run_avx512(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                               size_t x_step, size_t x_row_step, size_t w_row_step, size_t pixel_step, size_t count,
                               const float *bias, float lower, float upper, float *out) {
    (void)x; (void)w; (void)channels; (void)tap_rows; (void)tap_columns; (void)x_step; (void)x_row_step;
    (void)w_row_step; (void)pixel_step; (void)count; (void)bias; (void)lower; (void)upper; (void)out;
}

#endif

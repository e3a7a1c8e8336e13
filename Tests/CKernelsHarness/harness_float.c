// The float and int16 kernels against scalar references (part of the harness, see harness.c).

#pragma STDC FP_CONTRACT OFF

#include "harness.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same_bits(const float *a, const float *b, size_t n) { return memcmp(a, b, n * sizeof(float)) == 0; }

// ---------------------------------------------------------------- float GEMM and GEMV

static void ref_gemm(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b, const float *bias,
                     float lower, float upper, float *c, size_t ldc, size_t columns) {
    for (size_t r = 0; r < rows; r++) {
        for (size_t j = 0; j < columns; j++) {
            float s = 0.0f;
            for (size_t t = 0; t < taps; t++) {
                for (size_t k = 0; k < depth; k++) {
                    const float p = a[t * 8 + r][k] * b[(t * depth + k) * 16 + j];
                    s = s + p;
                }
            }
            s = s + bias[j];
            c[r * ldc + j] = clampf(s, lower, upper);
        }
    }
}

static void ref_gemv(const float *const *a, size_t taps, size_t depth, const float *b, const float *bias, float lower,
                     float upper, float *c, size_t columns) {
    const size_t total = taps * depth, whole = total - total % 4;
    for (size_t j = 0; j < columns; j++) {
        float s[4] = {0, 0, 0, 0};
        for (size_t g = 0; g < whole; g++) {
            const float p = a[(g / depth) * 8][g % depth] * b[g * 16 + j];
            s[g % 4] = s[g % 4] + p;
        }
        float sum = (s[0] + s[2]) + (s[1] + s[3]);
        for (size_t g = whole; g < total; g++) {
            const float p = a[(g / depth) * 8][g % depth] * b[g * 16 + j];
            sum = sum + p;
        }
        sum = sum + bias[j];
        c[j] = clampf(sum, lower, upper);
    }
}

static void bounds(float *lower, float *upper) {
    switch (rnd(0, 3)) {
        case 0: *lower = -INFINITY; *upper = INFINITY; break;
        case 1: *lower = 0.0f; *upper = INFINITY; break;
        case 2: *lower = 0.0f; *upper = 6.0f; break;
        default: *lower = -1.0f; *upper = 1.0f; break;
    }
}

void test_f32_gemm(const char *name, const omk_kernel_table *t) {
    if (!t->f32_gemm_8x16) return;
    int cases = 0, failed = 0, gcases = 0, gfailed = 0, wcases = 0, wfailed = 0;
    for (int it = 0; it < 300; it++) {
        const size_t rows = (size_t)rnd(1, 8), taps = (size_t)rnd(1, 3), depth = (size_t)(it < 4 ? it + 1 : rnd(1, 40));
        const size_t columns = (size_t)(it % 16 + 1), ldc = 17;
        float *data = malloc(8 * taps * depth * sizeof(float));
        const float *ptr[24];
        for (size_t i = 0; i < 8 * taps * depth; i++) data[i] = rndf();
        for (size_t i = 0; i < 8 * taps; i++) ptr[i] = data + i * depth;
        float *b = malloc(taps * depth * 16 * sizeof(float)), bias[16];
        for (size_t i = 0; i < taps * depth * 16; i++) b[i] = rndf();
        for (int j = 0; j < 16; j++) bias[j] = rndf();
        float lower, upper;
        bounds(&lower, &upper);
        float got[8 * 17], want[8 * 17];
        for (int i = 0; i < 8 * 17; i++) got[i] = want[i] = -12345.0f;
        t->f32_gemm_8x16(ptr, rows, taps, depth, b, bias, lower, upper, got, ldc, columns);
        ref_gemm(ptr, rows, taps, depth, b, bias, lower, upper, want, ldc, columns);
        cases++;
        failed += !same_bits(got, want, 8 * 17);
        if (t->f32_gemv_16) {
            float g1[17], w1[17];
            for (int i = 0; i < 17; i++) g1[i] = w1[i] = -12345.0f;
            t->f32_gemv_16(ptr, taps, depth, b, bias, lower, upper, g1, columns);
            ref_gemv(ptr, taps, depth, b, bias, lower, upper, w1, columns);
            gcases++;
            gfailed += !same_bits(g1, w1, 17);
        }
        if (t->f32_gemm_8x32) {
            // A second panel of other weights: columns 16-31 must be its 8x16 result.
            float *b2 = malloc(taps * depth * 16 * sizeof(float)), bias2[32];
            for (size_t i = 0; i < taps * depth * 16; i++) b2[i] = rndf();
            for (int j = 0; j < 32; j++) bias2[j] = j < 16 ? bias[j] : rndf();
            float got2[8 * 33], want2[8 * 33];
            for (int i = 0; i < 8 * 33; i++) got2[i] = want2[i] = -12345.0f;
            t->f32_gemm_8x32(ptr, rows, taps, depth, b, b2, bias2, lower, upper, got2, 33, columns);
            ref_gemm(ptr, rows, taps, depth, b, bias2, lower, upper, want2, 33, 16);
            ref_gemm(ptr, rows, taps, depth, b2, bias2 + 16, lower, upper, want2 + 16, 33, columns);
            wcases++;
            wfailed += !same_bits(got2, want2, 8 * 33);
            free(b2);
        }
        free(data);
        free(b);
    }
    result(name, "f32_gemm_8x16", cases, failed);
    if (gcases) result(name, "f32_gemv_16", gcases, gfailed);
    if (wcases) result(name, "f32_gemm_8x32", wcases, wfailed);
}

// ---------------------------------------------------------------- float depthwise

static float ref_channel(const float *x, const float *w, size_t c, size_t channels, size_t tr, size_t tc, size_t xs,
                         size_t xrs, size_t wrs, const float *bias, float lower, float upper) {
    float a = bias[c];
    for (size_t ty = 0; ty < tr; ty++) {
        for (size_t tx = 0; tx < tc; tx++) {
            const float p = x[ty * xrs + tx * xs + c] * w[ty * wrs + tx * channels + c];
            a = a + p;
        }
    }
    return (a < lower) ? lower : ((a > upper) ? upper : a);
}

void test_f32_dwconv(const char *name, const omk_kernel_table *t) {
    if (!t->f32_dwconv_pixel) return;
    int cases = 0, failed = 0, runs = 0, failed_runs = 0;
    for (int it = 0; it < 300; it++) {
        // Whole 3×3 and 5×5 windows (the kernels' register paths) as well as partial ones.
        const int square = it % 3;
        const size_t channels = (size_t)(it < 40 ? it + 1 : rnd(1, 80));
        const size_t tr = square == 1 ? 3 : (square == 2 && it % 2 ? 5 : (size_t)rnd(1, 3));
        const size_t tc = square == 1 ? 3 : (square == 2 && it % 2 ? 5 : (size_t)rnd(1, 3));
        const size_t count = (size_t)rnd(1, 9);
        const size_t xs = channels * (size_t)rnd(1, 2), xrs = xs * 24, wrs = tc * channels, pixel_step = xs * (size_t)rnd(1, 3);
        const size_t xn = tr * xrs + count * pixel_step + tc * xs + channels, wn = tr * wrs;
        float *x = malloc(xn * sizeof(float)), *w = malloc(wn * sizeof(float)), *bias = malloc(channels * sizeof(float));
        for (size_t i = 0; i < xn; i++) x[i] = rndf();
        for (size_t i = 0; i < wn; i++) w[i] = rndf();
        for (size_t i = 0; i < channels; i++) bias[i] = rndf();
        float lower, upper;
        bounds(&lower, &upper);
        // One float past the outputs is a guard: masked tails must not write there.
        float *got = malloc((count * channels + 1) * sizeof(float)), *want = malloc((count * channels + 1) * sizeof(float));
        t->f32_dwconv_pixel(x, w, channels, tr, tc, xs, xrs, wrs, bias, lower, upper, got);
        for (size_t c = 0; c < channels; c++) want[c] = ref_channel(x, w, c, channels, tr, tc, xs, xrs, wrs, bias, lower, upper);
        cases++;
        failed += !same_bits(got, want, channels);
        if (t->f32_dwconv_run) {
            got[count * channels] = want[count * channels] = 12345.0f;
            t->f32_dwconv_run(x, w, channels, tr, tc, xs, xrs, wrs, pixel_step, count, bias, lower, upper, got);
            for (size_t p = 0; p < count; p++)
                for (size_t c = 0; c < channels; c++)
                    want[p * channels + c] =
                        ref_channel(x + p * pixel_step, w, c, channels, tr, tc, xs, xrs, wrs, bias, lower, upper);
            runs++;
            failed_runs += !same_bits(got, want, count * channels + 1);
        }
        free(x); free(w); free(bias); free(got); free(want);
    }
    result(name, "f32_dwconv_pixel", cases, failed);
    if (runs) result(name, "f32_dwconv_run", runs, failed_runs);
}

// ---------------------------------------------------------------- float GEMM in Eigen's other orders

/// One output of omk_f32_gemm_reorder's contract, one product at a time: even/odd (two sums over
/// the even and odd steps up to the last multiple of 8, added, then the rest) or four-way (four
/// sums over the steps mod 4 up to the last multiple of 4, combined, then the rest).
static float ref_reorder(const float *const *a, size_t mr, size_t r, size_t taps, size_t depth, const float *b,
                         size_t nr, size_t lane, int four, int gemv_combine) {
    const size_t total = taps * depth, blocked = four ? total / 4 * 4 : total / 8 * 8;
    float s[4] = {0, 0, 0, 0}, sum;
    size_t j = 0;
    for (; j < blocked; j++) {
        const float product = a[(j / depth) * mr + r][j % depth] * b[j * nr + lane];
        if (four) s[j % 4] = s[j % 4] + product;
        else s[j % 2] = s[j % 2] + product;
    }
    if (!four) sum = s[0] + s[1];
    else if (gemv_combine) sum = (s[0] + s[2]) + (s[1] + s[3]);
    else sum = (s[0] + s[1]) + (s[2] + s[3]);
    for (; j < total; j++) {
        const float product = a[(j / depth) * mr + r][j % depth] * b[j * nr + lane];
        sum = sum + product;
    }
    return sum;
}

void test_f32_reorder(const char *name, const omk_kernel_table *t) {
    if (!t->f32_gemm_reorder) return;
    int cases = 0, failed = 0;
    enum { MR = 8, NR = 16 };
    for (int it = 0; it < 300; it++) {
        const size_t taps = (size_t)rnd(1, 3), depth = (size_t)(it < 40 ? it + 1 : rnd(1, 300));
        const size_t rows = (size_t)rnd(1, MR);
        size_t lane_begin = (size_t)rnd(0, NR - 1), lane_end = (size_t)rnd(1, NR);
        if (lane_end <= lane_begin) lane_end = lane_begin + 1;
        const size_t four_way_begin = (size_t)rnd(0, NR);
        const int gemv_combine = rnd(0, 1);
        float *data = malloc(taps * MR * depth * sizeof(float)), *b = malloc(taps * depth * NR * sizeof(float));
        const float *ptr[3 * MR];
        for (size_t i = 0; i < taps * MR * depth; i++) data[i] = rndf();
        for (size_t i = 0; i < taps * MR; i++) ptr[i] = data + i * depth;
        for (size_t i = 0; i < taps * depth * NR; i++) b[i] = rndf();
        float bias[NR], lower, upper;
        for (int i = 0; i < NR; i++) bias[i] = rndf();
        bounds(&lower, &upper);
        // Row stride NR + 1: the lanes that are not asked for must keep their guard value.
        float got[MR * (NR + 1)], want[MR * (NR + 1)];
        for (int i = 0; i < MR * (NR + 1); i++) got[i] = want[i] = -7777.0f;
        t->f32_gemm_reorder(ptr, MR, rows, taps, depth, b, NR, lane_begin, lane_end, four_way_begin, gemv_combine, bias,
                            lower, upper, got, NR + 1);
        for (size_t r = 0; r < rows; r++)
            for (size_t l = lane_begin; l < lane_end; l++) {
                const float sum = ref_reorder(ptr, MR, r, taps, depth, b, NR, l, l >= four_way_begin, gemv_combine);
                want[r * (NR + 1) + l] = clampf(sum + bias[l], lower, upper);
            }
        cases++;
        failed += !same_bits(got, want, MR * (NR + 1));
        free(data);
        free(b);
    }
    result(name, "f32_gemm_reorder", cases, failed);
}

// ---------------------------------------------------------------- float elementwise

/// A value for the elementwise tests: ordinary, or (1 in 8) NaN, ±infinity, ±0 or a large one.
static float rnd_special(void) {
    switch (rnd(0, 15)) {
        case 0: return NAN;
        case 1: return INFINITY;
        case 2: return -INFINITY;
        case 3: return -0.0f;
        case 4: return 3.0e38f;
        case 5: return -3.0e38f;
        default: return rndf() * 8.0f;
    }
}

void test_f32_elementwise(const char *name, const omk_kernel_table *t) {
    if (!t->f32_add || !t->f32_clamp || !t->f32_prelu) return;
    int cases = 0, failed = 0;
    for (int it = 0; it < 200; it++) {
        const size_t channels = (size_t)(it < 40 ? it + 1 : rnd(1, 70)), rows = (size_t)rnd(1, 9), n = rows * channels;
        float *a = malloc((n + 1) * sizeof(float)), *b = malloc(n * sizeof(float)), *alpha = malloc(channels * sizeof(float));
        float *got = malloc((n + 1) * sizeof(float)), *want = malloc((n + 1) * sizeof(float));
        for (size_t i = 0; i < n; i++) { a[i] = rnd_special(); b[i] = rnd_special(); }
        for (size_t c = 0; c < channels; c++) alpha[c] = rndf();
        float lower, upper;
        bounds(&lower, &upper);
        if (it % 4 == 0) { lower = -3.402823466e38f; upper = 3.402823466e38f; }  // no activation: finite range
        // A guard past the end must survive.
        got[n] = want[n] = 4242.0f;
        t->f32_add(a, b, got, n, lower, upper);
        for (size_t i = 0; i < n; i++) want[i] = clampf(a[i] + b[i], lower, upper);
        failed += !same_bits(got, want, n + 1);
        t->f32_clamp(a, got, n, lower, upper);
        for (size_t i = 0; i < n; i++) want[i] = clampf(a[i], lower, upper);
        failed += !same_bits(got, want, n + 1);
        t->f32_prelu(a, alpha, got, rows, channels);
        for (size_t i = 0; i < n; i++) want[i] = a[i] >= 0 ? a[i] : a[i] * alpha[i % channels];
        failed += !same_bits(got, want, n + 1);
        // In place, as the runtime may run it.
        memcpy(got, a, n * sizeof(float));
        t->f32_add(got, b, got, n, lower, upper);
        for (size_t i = 0; i < n; i++) want[i] = clampf(a[i] + b[i], lower, upper);
        failed += !same_bits(got, want, n + 1);
        cases += 4;
        free(a); free(b); free(alpha); free(got); free(want);
    }
    result(name, "f32 add/clamp/prelu", cases, failed);
    // LOGISTIC's block formula: every build gives the portable build's bits (the Swift tests
    // compare the formula itself with LiteRT's recorded outputs), across its whole range.
    if (t->f32_logistic) {
        int lcases = 0, lfailed = 0;
        for (int it = 0; it < 50; it++) {
            const size_t n = (size_t)rnd(1, 300);
            float *x = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float));
            for (size_t i = 0; i < n; i++) x[i] = it % 2 ? rnd_special() * 4.0f : rndf() * 120.0f;
            t->f32_logistic(x, got, n);
            omk_f32_logistic_portable(x, want, n);
            lcases++;
            lfailed += !same_bits(got, want, n);
            free(x); free(got); free(want);
        }
        result(name, "f32_logistic", lcases, lfailed);
    }
    if (t->f32_max_pixel) {
        int mcases = 0, mfailed = 0;
        for (int it = 0; it < 200; it++) {
            const size_t channels = (size_t)(it < 40 ? it + 1 : rnd(1, 70)), rows = (size_t)rnd(1, 3), cols = (size_t)rnd(1, 3);
            const size_t col_step = channels * (size_t)rnd(1, 2), row_step = col_step * 4, n = rows * row_step;
            float *x = malloc(n * sizeof(float)), got[71], want[71];
            for (size_t i = 0; i < n; i++) x[i] = rnd_special();
            float lower, upper;
            bounds(&lower, &upper);
            got[channels] = want[channels] = 4242.0f;
            t->f32_max_pixel(x, channels, rows, cols, col_step, row_step, lower, upper, got);
            for (size_t c = 0; c < channels; c++) {
                float acc = -3.402823466e38f;
                for (size_t r = 0; r < rows; r++)
                    for (size_t k = 0; k < cols; k++) {
                        const float v = x[r * row_step + k * col_step + c];
                        acc = acc < v ? v : acc;
                    }
                want[c] = acc < lower ? lower : (acc > upper ? upper : acc);
            }
            mcases++;
            mfailed += !same_bits(got, want, channels + 1);
            free(x);
        }
        result(name, "f32_max_pixel", mcases, mfailed);
    }
}

// ---------------------------------------------------------------- int16 GEMM and depthwise

static int16_t rnd16(int edge) {
    if (edge) return rnd(0, 1) ? INT16_MIN : INT16_MAX;
    return (int16_t)rnd(INT16_MIN, INT16_MAX);
}

void test_q16(const char *name, const omk_kernel_table *t) {
    if (t->q16_gemm_8x8) {
        int cases = 0, failed = 0, cases16 = 0, failed16 = 0;
        for (int it = 0; it < 200; it++) {
            const int edge = it % 5 == 0;
            const size_t taps = (size_t)rnd(1, 3), depth = (size_t)(it < 3 ? it + 1 : rnd(1, 60)), pairs = (depth + 1) / 2;
            int16_t *data = malloc(8 * taps * depth * 2), *b = malloc(taps * pairs * 16 * 2);
            const int16_t *ptr[24];
            for (size_t i = 0; i < 8 * taps * depth; i++) data[i] = rnd16(edge);
            for (size_t i = 0; i < 8 * taps; i++) ptr[i] = data + i * depth;
            for (size_t i = 0; i < taps * pairs * 16; i++) b[i] = rnd16(edge);
            // An odd depth's last pair has a zero partner.
            if (depth & 1)
                for (size_t tp = 0; tp < taps; tp++)
                    for (int j = 0; j < 8; j++) b[(tp * pairs + pairs - 1) * 16 + 2 * j + 1] = 0;
            int32_t got[8 * 9], want[8 * 9];
            memset(got, 0x55, sizeof got);
            memset(want, 0x55, sizeof want);
            t->q16_gemm_8x8(ptr, taps, depth, b, got, 9);
            for (int r = 0; r < 8; r++) {
                for (int j = 0; j < 8; j++) {
                    uint32_t s = 0;
                    for (size_t tp = 0; tp < taps; tp++)
                        for (size_t k = 0; k < depth; k++)
                            s += (uint32_t)((int32_t)ptr[tp * 8 + r][k] * b[(tp * pairs + k / 2) * 16 + 2 * j + k % 2]);
                    want[r * 9 + j] = (int32_t)s;
                }
            }
            cases++;
            failed += memcmp(got, want, sizeof got) != 0;
            if (t->q16_gemm_8x16) {
                // A second panel of other weights: columns 8-15 must be its 8-column result.
                int16_t *b2 = malloc(taps * pairs * 16 * 2);
                for (size_t i = 0; i < taps * pairs * 16; i++) b2[i] = rnd16(edge);
                if (depth & 1)
                    for (size_t tp = 0; tp < taps; tp++)
                        for (int j = 0; j < 8; j++) b2[(tp * pairs + pairs - 1) * 16 + 2 * j + 1] = 0;
                int32_t got16[8 * 17];
                memset(got16, 0x55, sizeof got16);
                t->q16_gemm_8x16(ptr, taps, depth, b, b2, got16, 17);
                int bad = 0;
                for (int r = 0; r < 8; r++)
                    for (int j = 0; j < 16; j++) {
                        uint32_t s = 0;
                        const int16_t *bb = j < 8 ? b : b2;
                        for (size_t tp = 0; tp < taps; tp++)
                            for (size_t k = 0; k < depth; k++)
                                s += (uint32_t)((int32_t)ptr[tp * 8 + r][k] * bb[(tp * pairs + k / 2) * 16 + 2 * (j % 8) + k % 2]);
                        bad |= got16[r * 17 + j] != (int32_t)s;
                    }
                free(b2);
                for (int r = 0; r < 8; r++) bad |= got16[r * 17 + 16] != 0x55555555;
                cases16++;
                failed16 += bad;
            }
            free(data);
            free(b);
        }
        result(name, "q16_gemm_8x8", cases, failed);
        if (cases16) result(name, "q16_gemm_8x16", cases16, failed16);
    }
    if (t->q16_dwconv_pixel) {
        int cases = 0, failed = 0;
        for (int it = 0; it < 200; it++) {
            const int edge = it % 5 == 0;
            const size_t channels = (size_t)(it < 24 ? it + 1 : rnd(1, 70)), tr = (size_t)rnd(1, 3), tc = (size_t)rnd(1, 3);
            const size_t xs = channels, xrs = channels * 6, wrs = tc * channels, xn = tr * xrs + tc * xs, wn = tr * wrs;
            int16_t *x = malloc(xn * 2), *w = malloc(wn * 2);
            for (size_t i = 0; i < xn; i++) x[i] = rnd16(edge);
            for (size_t i = 0; i < wn; i++) w[i] = rnd16(edge);
            int32_t *got = malloc(channels * 4), *want = malloc(channels * 4);
            t->q16_dwconv_pixel(x, w, channels, tr, tc, xs, xrs, wrs, got);
            for (size_t c = 0; c < channels; c++) {
                uint32_t s = 0;
                for (size_t ty = 0; ty < tr; ty++)
                    for (size_t tx = 0; tx < tc; tx++)
                        s += (uint32_t)((int32_t)x[ty * xrs + tx * xs + c] * w[ty * wrs + tx * channels + c]);
                want[c] = (int32_t)s;
            }
            cases++;
            failed += memcmp(got, want, channels * 4) != 0;
            free(x); free(w); free(got); free(want);
        }
        result(name, "q16_dwconv_pixel", cases, failed);
    }
}


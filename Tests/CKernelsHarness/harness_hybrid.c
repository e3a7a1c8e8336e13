// The harness's tests of the dynamic-range (hybrid) VNNI GEMM and CONV_2D (q8_hybrid_vnni.c): their
// int32 accumulators against the scalar Σ (q − zero) · w, their float outputs against
// omk_hybrid_finish of those sums (bit for bit), and the q + 128 quantization against the int16 one.

#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Packs int8 weights `[columns][depth]` as the Swift side does (QuantizedPackedWeights8, signed).
static uint8_t *pack(const int8_t *w, size_t depth, size_t columns, int32_t *sums) {
    const size_t groups = (columns + 63) / 64, stride = (depth + 3) / 4 * 4 * 64;
    uint8_t *packed = malloc(groups * stride + 64);
    memset(packed, 0xA5, groups * stride + 64);
    omk_q8_pack_weights((const uint8_t *)w, depth, columns, 64, stride, 0, 1, 0, packed, sums);
    return packed;
}

/// Random weights: moderate, or the extremes −128 and 127.
static void fill_weights(int8_t *w, size_t n, int edge) {
    for (size_t i = 0; i < n; i++) w[i] = (int8_t)(edge ? (rnd(0, 1) ? -128 : 127) : rnd(-128, 127));
}

/// Compares `rows × columns` accumulators and, in a second call, the finished floats.
static int check(const omk_hybrid_gemm_params *base, const int32_t *want, size_t rows, size_t columns,
                 const int32_t *got_acc, const float *got, const float *batch_scale) {
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < columns; c++) {
            if (got_acc[r * columns + c] != want[r * columns + c]) return 1;
        }
        float expect[600];
        const size_t b = r / base->rows_per_batch;
        omk_hybrid_finish(want + r * columns, columns, base->weight_scale, batch_scale[b], base->bias, base->lower,
                          base->upper, expect);
        if (memcmp(expect, got + r * columns, columns * sizeof(float)) != 0) return 1;
    }
    return 0;
}

static void params_common(omk_hybrid_gemm_params *p, size_t columns, float *ws, float *bias, int it) {
    for (size_t c = 0; c < columns; c++) {
        ws[c] = (float)rnd(1, 1000) / 65536.0f;
        bias[c] = (float)rnd(-1000, 1000) / 37.0f;
    }
    p->weight_scale = ws;
    p->bias = bias;
    p->lower = it % 3 == 0 ? -INFINITY : (it % 3 == 1 ? 0.0f : -1.0f);
    p->upper = it % 3 == 0 ? INFINITY : (it % 3 == 1 ? 6.0f : 1.0f);
}

static void test_gemm(const char *name, const omk_kernel_table *t) {
    int cases = 0, failed = 0;
    for (int it = 0; it < 300; it++) {
        const int edge = it % 5 == 0;
        const size_t depth = (size_t)(it < 20 ? it + 1 : rnd(1, it % 4 == 0 ? 700 : 90));
        const size_t columns = (size_t)(it % 7 == 0 ? rnd(1, 300) : rnd(1, 70));
        const size_t rows = (size_t)(it % 6 == 0 ? 1 : rnd(1, it % 3 == 0 ? 250 : 20));
        const size_t per = (size_t)(it % 2 ? rows : rnd(1, 4));
        const size_t batches = (rows + per - 1) / per;
        uint8_t *a = malloc(rows * depth + 1);
        int8_t *w = malloc(columns * depth);
        int32_t *sums = malloc(columns * sizeof(int32_t)), *zero = malloc(batches * sizeof(int32_t));
        float *scale = malloc(batches * sizeof(float)), *ws = malloc(columns * sizeof(float));
        float *bias = malloc(columns * sizeof(float));
        for (size_t i = 0; i < rows * depth; i++) a[i] = (uint8_t)(edge ? (rnd(0, 1) ? 0 : 255) : rnd(0, 255));
        fill_weights(w, columns * depth, edge);
        for (size_t b = 0; b < batches; b++) {
            zero[b] = it % 3 == 0 ? 0 : rnd(-128, 127);
            scale[b] = (float)rnd(1, 5000) / 1024.0f;
        }
        uint8_t *packed = pack(w, depth, columns, sums);
        int32_t *want = malloc(rows * columns * sizeof(int32_t)), *acc = malloc(rows * columns * sizeof(int32_t));
        float *out = malloc(rows * columns * sizeof(float));
        for (size_t r = 0; r < rows; r++) {
            for (size_t c = 0; c < columns; c++) {
                uint32_t s = 0;
                for (size_t k = 0; k < depth; k++) {
                    const int32_t q = (int32_t)a[r * depth + k] - 128;
                    s += (uint32_t)((q - zero[r / per]) * (int32_t)w[c * depth + k]);
                }
                want[r * columns + c] = (int32_t)s;
            }
        }
        omk_hybrid_gemm_params p;
        memset(&p, 0, sizeof p);
        p.weights = packed;
        p.column_sums = sums;
        p.depth = depth;
        p.columns = columns;
        p.batch_scale = scale;
        p.batch_zero = zero;
        p.rows_per_batch = per;
        params_common(&p, columns, ws, bias, it);
        const size_t groups = (columns + 63) / 64;
        // Two calls over a split of the rows and of the groups, as threads would make them.
        const size_t split = rows / 2, gsplit = groups / 2;
        memset(acc, 0x5A, rows * columns * sizeof(int32_t));
        p.acc = acc;
        t->hybrid_gemm(&p, a, depth, 0, split, 0, groups, NULL, columns);
        t->hybrid_gemm(&p, a, depth, split, rows, 0, gsplit, NULL, columns);
        t->hybrid_gemm(&p, a, depth, split, rows, gsplit, groups, NULL, columns);
        memset(out, 0x5A, rows * columns * sizeof(float));
        p.acc = NULL;
        t->hybrid_gemm(&p, a, depth, 0, rows, 0, groups, out, columns);
        cases++;
        if (check(&p, want, rows, columns, acc, out, scale)) {
            if (failed < 3) printf("  hybrid_gemm differs: depth %zu columns %zu rows %zu per %zu\n", depth, columns,
                                   rows, per);
            failed++;
        }
        free(a); free(w); free(sums); free(zero); free(scale); free(ws); free(bias); free(packed); free(want);
        free(acc); free(out);
    }
    result(name, "hybrid_gemm", cases, failed);
}

static void test_conv(const char *name, const omk_kernel_table *t) {
    int cases = 0, failed = 0;
    for (int it = 0; it < 200; it++) {
        omk_q8_im2col_params g;
        memset(&g, 0, sizeof g);
        const int edge = it % 5 == 0;
        g.batch = (size_t)rnd(1, 3);
        g.input_height = (size_t)rnd(1, 12);
        g.input_width = (size_t)rnd(1, it % 7 == 0 ? 40 : 12);
        g.channels = (size_t)(it < 16 ? it + 1 : rnd(1, it % 4 == 0 ? 80 : 9));
        g.filter_height = (size_t)rnd(1, 4);
        g.filter_width = (size_t)rnd(1, 4);
        g.stride_height = (size_t)rnd(1, 2);
        g.stride_width = (size_t)rnd(1, 2);
        g.dilation_height = (size_t)rnd(1, 2);
        g.dilation_width = (size_t)(it % 3 == 0 ? 2 : 1);
        g.pad_top = rnd(0, 2);
        g.pad_left = rnd(0, 2);
        g.zero = 0x33;  // ignored by the kernel
        g.flip = 1;     // ignored by the kernel
        const ptrdiff_t eh = (ptrdiff_t)((g.filter_height - 1) * g.dilation_height + 1);
        const ptrdiff_t ew = (ptrdiff_t)((g.filter_width - 1) * g.dilation_width + 1);
        const ptrdiff_t oh = ((ptrdiff_t)g.input_height + 2 * g.pad_top - eh) / (ptrdiff_t)g.stride_height + 1;
        const ptrdiff_t ow = ((ptrdiff_t)g.input_width + 2 * g.pad_left - ew) / (ptrdiff_t)g.stride_width + 1;
        if (oh < 1 || ow < 1) { it--; continue; }
        g.output_height = (size_t)oh;
        g.output_width = (size_t)ow;
        const size_t taps = g.filter_height * g.filter_width, depth = taps * g.channels;
        const size_t columns = (size_t)(it % 6 == 0 ? rnd(65, 200) : rnd(1, 40));
        const size_t per = g.output_height * g.output_width, rows = g.batch * per;
        const size_t n = g.batch * g.input_height * g.input_width * g.channels;
        uint8_t *input = malloc(n);
        for (size_t i = 0; i < n; i++) input[i] = (uint8_t)(edge ? (rnd(0, 1) ? 0 : 255) : rnd(0, 255));
        g.input = input;
        int8_t *w = malloc(columns * depth);
        fill_weights(w, columns * depth, edge);
        int32_t *sums = malloc(columns * sizeof(int32_t)), zero[3];
        float scale[3], *ws = malloc(columns * sizeof(float)), *bias = malloc(columns * sizeof(float));
        for (size_t b = 0; b < g.batch; b++) {
            zero[b] = it % 3 == 1 ? 0 : rnd(-128, 127);
            scale[b] = (float)rnd(1, 5000) / 1024.0f;
        }
        uint8_t *packed = pack(w, depth, columns, sums);
        int32_t *want = malloc(rows * columns * sizeof(int32_t)), *acc = malloc(rows * columns * sizeof(int32_t));
        float *out = malloc(rows * columns * sizeof(float));
        // Taps in the padding contribute nothing (they read q = zero).
        for (size_t r = 0; r < rows; r++) {
            const size_t b = r / per, oy = r % per / g.output_width, ox = r % g.output_width;
            for (size_t c = 0; c < columns; c++) {
                uint32_t s = 0;
                for (size_t ky = 0; ky < g.filter_height; ky++) {
                    const ptrdiff_t iy = (ptrdiff_t)(oy * g.stride_height + ky * g.dilation_height) - g.pad_top;
                    for (size_t kx = 0; kx < g.filter_width; kx++) {
                        const ptrdiff_t ix = (ptrdiff_t)(ox * g.stride_width + kx * g.dilation_width) - g.pad_left;
                        if (iy < 0 || ix < 0 || iy >= (ptrdiff_t)g.input_height || ix >= (ptrdiff_t)g.input_width)
                            continue;
                        const uint8_t *px = input + ((b * g.input_height + (size_t)iy) * g.input_width + (size_t)ix) *
                                                        g.channels;
                        const int8_t *wc = w + c * depth + (ky * g.filter_width + kx) * g.channels;
                        for (size_t k = 0; k < g.channels; k++)
                            s += (uint32_t)(((int32_t)px[k] - 128 - zero[b]) * (int32_t)wc[k]);
                    }
                }
                want[r * columns + c] = (int32_t)s;
            }
        }
        omk_hybrid_gemm_params p;
        memset(&p, 0, sizeof p);
        p.weights = packed;
        p.column_sums = sums;
        p.depth = depth;
        p.columns = columns;
        p.batch_scale = scale;
        p.batch_zero = zero;
        p.rows_per_batch = per;
        params_common(&p, columns, ws, bias, it);
        const size_t groups = (columns + 63) / 64, split = rows / 3;
        uint8_t *scratch = malloc(omk_q8_gemm_scratch_bytes(depth, rows));
        memset(acc, 0x5A, rows * columns * sizeof(int32_t));
        p.acc = acc;
        t->hybrid_conv(&p, &g, 0, split, 0, groups, NULL, columns, scratch);
        t->hybrid_conv(&p, &g, split, rows, 0, groups, NULL, columns, scratch);
        memset(out, 0x5A, rows * columns * sizeof(float));
        p.acc = NULL;
        t->hybrid_conv(&p, &g, 0, rows, 0, groups, out, columns, scratch);
        cases++;
        if (check(&p, want, rows, columns, acc, out, scale)) {
            if (failed < 3) printf("  hybrid_conv differs: %zux%zux%zu filter %zux%zu columns %zu\n", g.input_height,
                                   g.input_width, g.channels, g.filter_height, g.filter_width, columns);
            failed++;
        }
        free(input); free(w); free(sums); free(ws); free(bias); free(packed); free(want); free(acc); free(out);
        free(scratch);
    }
    result(name, "hybrid_conv", cases, failed);
}

/// omk_f32_quantize_u8_hybrid_avx2 gives q + 128 where omk_f32_quantize_i16_avx2 gives q − offset.
static void test_quantize(const char *name) {
    int cases = 0, failed = 0;
    for (int it = 0; it < 200; it++) {
        const size_t count = (size_t)rnd(1, 100);
        float *x = malloc(count * sizeof(float));
        for (size_t i = 0; i < count; i++) x[i] = it % 9 == 0 && rnd(0, 5) == 0 ? NAN : rndf();
        const int symmetric = it % 2;
        const int32_t offset = symmetric ? 0 : rnd(-128, 127);
        const float scale_inv = (float)rnd(1, 100000) / 1000.0f;
        int16_t *q16 = malloc(count * sizeof(int16_t));
        uint8_t *q8 = malloc(count);
        omk_f32_quantize_i16_avx2(x, count, scale_inv, offset, symmetric ? -127 : -128, 127, q16);
        omk_f32_quantize_u8_hybrid_avx2(x, count, scale_inv, offset, symmetric ? -127 : -128, 127, q8);
        int bad = 0;
        for (size_t i = 0; i < count; i++) bad |= (int32_t)q16[i] + offset + 128 != (int32_t)q8[i];
        cases++;
        failed += bad;
        free(x); free(q16); free(q8);
    }
    result(name, "hybrid_quantize_u8", cases, failed);
}

/// The table's hybrid_finish against omk_hybrid_finish, bit for bit: every length 1..80 (the vector
/// body and its tails), accumulators up to the int32 extremes, the ReLU/ReLU6/none clamps (a zero
/// lower bound meets results of −0), and non-finite scales and biases (NaN and ±inf results).
static void test_finish(const char *name, const omk_kernel_table *t) {
    int cases = 0, failed = 0;
    for (int it = 0; it < 400; it++) {
        const size_t count = (size_t)(it < 80 ? it + 1 : rnd(1, 300));
        int32_t *acc = malloc(count * sizeof(int32_t));
        float *ws = malloc(count * sizeof(float)), *bias = malloc(count * sizeof(float));
        float *want = malloc(count * sizeof(float)), *got = malloc(count * sizeof(float));
        for (size_t c = 0; c < count; c++) {
            const int kind = rnd(0, 19);
            acc[c] = kind == 0 ? INT32_MIN : (kind == 1 ? INT32_MAX : (kind == 2 ? 0 : rnd(-2000000, 2000000)));
            ws[c] = kind == 3 ? INFINITY : (kind == 4 ? NAN : (float)rnd(1, 100000) / 65536.0f);
            bias[c] = kind == 5 ? -INFINITY : (kind == 6 ? -0.0f : (float)rnd(-1000, 1000) / 37.0f);
        }
        const float batch_scale = it % 11 == 0 ? 0.0f : (float)rnd(1, 100000) / 1048576.0f;
        const float lower = it % 3 == 0 ? -INFINITY : (it % 3 == 1 ? 0.0f : -1.0f);
        const float upper = it % 3 == 0 ? INFINITY : (it % 3 == 1 ? 6.0f : 1.0f);
        omk_hybrid_finish(acc, count, ws, batch_scale, bias, lower, upper, want);
        t->hybrid_finish(acc, count, ws, batch_scale, bias, lower, upper, got);
        cases++;
        failed += memcmp(want, got, count * sizeof(float)) != 0;
        free(acc); free(ws); free(bias); free(want); free(got);
    }
    result(name, "hybrid_finish", cases, failed);
}

/// The table's hybrid_quantize_i16 against omk_f32_quantize_i16_avx2, value for value: lengths
/// 1..100 (the vector body and its tails), symmetric and asymmetric ranges, exact halves (round
/// away from zero), values far outside the range, ±inf and NaN.
static void test_quantize_i16(const char *name, const omk_kernel_table *t) {
    int cases = 0, failed = 0;
    for (int it = 0; it < 300; it++) {
        const size_t count = (size_t)(it < 100 ? it + 1 : rnd(1, 400));
        float *x = malloc(count * sizeof(float));
        const float scale_inv = it % 4 == 0 ? 1.0f : (float)rnd(1, 100000) / 1000.0f;
        for (size_t i = 0; i < count; i++) {
            const int kind = rnd(0, 29);
            x[i] = kind == 0 ? NAN : (kind == 1 ? INFINITY : (kind == 2 ? -INFINITY : (kind == 3 ? 1e30f :
                   (kind < 10 ? (float)rnd(-600, 600) / 2.0f : rndf()))));
        }
        const int symmetric = it % 2;
        const int32_t offset = symmetric ? 0 : rnd(-128, 127);
        int16_t *want = malloc(count * sizeof(int16_t)), *got = malloc(count * sizeof(int16_t));
        omk_f32_quantize_i16_avx2(x, count, scale_inv, offset, symmetric ? -127 : -128, 127, want);
        t->hybrid_quantize_i16(x, count, scale_inv, offset, symmetric ? -127 : -128, 127, got);
        cases++;
        failed += memcmp(want, got, count * sizeof(int16_t)) != 0;
        free(x); free(want); free(got);
    }
    result(name, "hybrid_quantize_i16", cases, failed);
}

void test_hybrid(const char *name, const omk_kernel_table *t) {
    if (t->hybrid_quantize_i16 && t->hybrid_quantize_i16 != omk_f32_quantize_i16_avx2) test_quantize_i16(name, t);
    if (t->hybrid_finish && t->hybrid_finish != omk_hybrid_finish) test_finish(name, t);
    if (t->hybrid_gemm) test_gemm(name, t);
    if (t->hybrid_conv) test_conv(name, t);
    if (t->hybrid_gemm) test_quantize(name);
}

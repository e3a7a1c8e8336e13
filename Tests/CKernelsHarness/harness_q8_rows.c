// The harness's tests of omk_q8_dwconv_small_row (8-bit depthwise accumulators of one output row),
// omk_q8_maxpool_rows (8-bit MAX_POOL_2D) and omk_q8_quantize_f32 (QUANTIZE float -> 8-bit blocks),
// against scalar definitions.

#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_q8_dwconv_small(const char *name, const omk_kernel_table *t) {
    if (!t->q8_dwconv_small_row) return;
    int cases = 0, failed = 0;
    for (int it = 0; it < 200; it++) {
        omk_q8_dwconv_small_params p;
        memset(&p, 0, sizeof p);
        const size_t batch = (size_t)rnd(1, 2);
        p.input_height = (size_t)rnd(1, 9);
        p.input_width = (size_t)rnd(1, it % 7 == 0 ? 70 : 14);
        p.input_channels = (size_t)(it < 16 ? it + 1 : rnd(1, it % 3 == 0 ? 20 : 5));
        p.depth_multiplier = (size_t)(it % 4 == 0 ? 1 : rnd(1, 9));
        p.filter_height = (size_t)rnd(1, 5);
        p.filter_width = (size_t)rnd(1, 5);
        p.stride_height = (size_t)rnd(1, 3);
        p.stride_width = (size_t)rnd(1, 3);
        p.dilation_height = (size_t)rnd(1, 2);
        p.dilation_width = (size_t)rnd(1, 2);
        p.pad_top = rnd(0, 3);
        p.pad_left = rnd(0, 3);
        const ptrdiff_t eh = (ptrdiff_t)((p.filter_height - 1) * p.dilation_height + 1);
        const ptrdiff_t ew = (ptrdiff_t)((p.filter_width - 1) * p.dilation_width + 1);
        // Padding on one side only now and then (SAME padding of an odd extent), or none.
        const ptrdiff_t oh = ((ptrdiff_t)p.input_height + 2 * p.pad_top - eh) / (ptrdiff_t)p.stride_height + 1;
        const ptrdiff_t ow = ((ptrdiff_t)p.input_width + p.pad_left + rnd(0, 3) - ew) / (ptrdiff_t)p.stride_width + 1;
        if (oh < 1 || ow < 1) { it--; continue; }
        p.output_height = (size_t)oh;
        p.output_width = (size_t)ow;
        const int is_signed = it % 2, edge = it % 5 == 0;
        p.activations_signed = is_signed;
        p.input_zero_point = is_signed ? rnd(-128, 127) : rnd(0, 255);
        const size_t in_c = p.input_channels, m = p.depth_multiplier, c = in_c * m;
        const size_t taps = p.filter_height * p.filter_width, owc = p.output_width * c;
        const size_t n = batch * p.input_height * p.input_width * in_c;
        uint8_t *input = malloc(n);
        for (size_t i = 0; i < n; i++) input[i] = (uint8_t)(edge ? (rnd(0, 1) ? 0 : 255) : rnd(0, 255));
        // Weights minus the filter zero point: int8 ones, or uint8 ones in [-255, 255].
        int16_t *w = malloc(taps * c * sizeof(int16_t));
        for (size_t i = 0; i < taps * c; i++)
            w[i] = (int16_t)(edge ? (rnd(0, 1) ? -255 : 255) : (is_signed ? rnd(-128, 127) : rnd(-255, 255)));
        int16_t *tiled = malloc(taps * owc * sizeof(int16_t));
        omk_q8_dwconv_small_tile_weights(&p, w, tiled);
        p.weights = tiled;
        int16_t *scratch = malloc((omk_q8_dwconv_small_scratch(&p) + 1) * sizeof(int16_t));
        int32_t *got = malloc(owc * sizeof(int32_t));
        int bad = 0;
        const size_t rows = batch * p.output_height;
        for (size_t r = 0; r < rows && !bad; r++) {
            // Stale values in the scratch and accumulators must not matter.
            memset(scratch, 0x5A, omk_q8_dwconv_small_scratch(&p) * sizeof(int16_t));
            memset(got, 0xA5, owc * sizeof(int32_t));
            t->q8_dwconv_small_row(&p, input, r, scratch, got);
            const size_t b = r / p.output_height, oy = r % p.output_height;
            for (size_t ox = 0; ox < p.output_width; ox++) {
                for (size_t j = 0; j < c; j++) {
                    uint32_t sum = 0;
                    for (size_t ky = 0; ky < p.filter_height; ky++) {
                        for (size_t kx = 0; kx < p.filter_width; kx++) {
                            const ptrdiff_t iy = (ptrdiff_t)(oy * p.stride_height + ky * p.dilation_height) - p.pad_top;
                            const ptrdiff_t ix = (ptrdiff_t)(ox * p.stride_width + kx * p.dilation_width) - p.pad_left;
                            if (iy < 0 || iy >= (ptrdiff_t)p.input_height || ix < 0 || ix >= (ptrdiff_t)p.input_width)
                                continue;
                            const uint8_t byte =
                                input[((b * p.input_height + (size_t)iy) * p.input_width + (size_t)ix) * in_c + j / m];
                            const int32_t x = is_signed ? (int8_t)byte : byte;
                            sum += (uint32_t)((x - p.input_zero_point) * w[(ky * p.filter_width + kx) * c + j]);
                        }
                    }
                    if (got[ox * c + j] != (int32_t)sum) bad = 1;
                }
            }
        }
        cases++;
        failed += bad;
        free(input); free(w); free(tiled); free(scratch); free(got);
    }
    result(name, "q8_dwconv_small", cases, failed);
}

void test_q8_maxpool(const char *name, const omk_kernel_table *t) {
    if (!t->q8_maxpool_rows) return;
    int cases = 0, failed = 0;
    for (int it = 0; it < 200; it++) {
        omk_q8_maxpool_params p;
        memset(&p, 0, sizeof p);
        const size_t batch = (size_t)rnd(1, 2);
        p.input_height = (size_t)rnd(1, 9);
        p.input_width = (size_t)rnd(1, it % 7 == 0 ? 70 : 14);
        p.channels = (size_t)(it < 20 ? it + 1 : rnd(1, 40));
        p.filter_height = (size_t)rnd(1, 4);
        p.filter_width = (size_t)rnd(1, 4);
        p.stride_height = (size_t)rnd(1, 3);
        p.stride_width = (size_t)rnd(1, 3);
        // Large padding now and then, so some windows hold no input at all.
        p.pad_top = rnd(0, it % 9 == 0 ? 5 : 2);
        p.pad_left = rnd(0, it % 9 == 0 ? 5 : 2);
        const ptrdiff_t oh = ((ptrdiff_t)p.input_height + 2 * p.pad_top - (ptrdiff_t)p.filter_height) /
                                 (ptrdiff_t)p.stride_height + 1;
        const ptrdiff_t ow = ((ptrdiff_t)p.input_width + p.pad_left + rnd(0, 3) - (ptrdiff_t)p.filter_width) /
                                 (ptrdiff_t)p.stride_width + 1;
        if (oh < 1 || ow < 1) { it--; continue; }
        p.output_height = (size_t)oh;
        p.output_width = (size_t)ow;
        const int is_signed = it % 2, edge = it % 5 == 0;
        p.is_signed = is_signed;
        p.lo = is_signed ? (edge ? -128 : rnd(-128, 0)) : (edge ? 0 : rnd(0, 128));
        p.hi = is_signed ? (edge ? 127 : rnd(0, 127)) : (edge ? 255 : rnd(128, 255));
        const size_t c = p.channels, n = batch * p.input_height * p.input_width * c;
        uint8_t *input = malloc(n);
        for (size_t i = 0; i < n; i++) input[i] = (uint8_t)(edge ? (rnd(0, 1) ? 0 : rnd(0, 1) ? 127 : 128) : rnd(0, 255));
        const size_t rows = batch * p.output_height, out_bytes = rows * p.output_width * c;
        uint8_t *got = malloc(out_bytes), *want = malloc(out_bytes);
        uint8_t *scratch = malloc(omk_q8_maxpool_padded_width(&p) * c + 1);
        memset(got, 0xA5, out_bytes);
        const size_t split = rows > 1 ? (size_t)rnd(1, (int32_t)rows - 1) : rows;
        t->q8_maxpool_rows(&p, input, got, 0, split, scratch);
        t->q8_maxpool_rows(&p, input, got, split, rows, scratch);
        for (size_t r = 0; r < rows; r++) {
            const size_t b = r / p.output_height, oy = r % p.output_height;
            for (size_t ox = 0; ox < p.output_width; ox++) {
                for (size_t j = 0; j < c; j++) {
                    int32_t best = INT32_MIN;
                    for (size_t ky = 0; ky < p.filter_height; ky++) {
                        for (size_t kx = 0; kx < p.filter_width; kx++) {
                            const ptrdiff_t iy = (ptrdiff_t)(oy * p.stride_height + ky) - p.pad_top;
                            const ptrdiff_t ix = (ptrdiff_t)(ox * p.stride_width + kx) - p.pad_left;
                            if (iy < 0 || iy >= (ptrdiff_t)p.input_height || ix < 0 || ix >= (ptrdiff_t)p.input_width)
                                continue;
                            const uint8_t byte =
                                input[((b * p.input_height + (size_t)iy) * p.input_width + (size_t)ix) * c + j];
                            const int32_t x = is_signed ? (int8_t)byte : byte;
                            if (x > best) best = x;
                        }
                    }
                    const int32_t v = best < p.lo ? p.lo : (best > p.hi ? p.hi : best);
                    want[(r * p.output_width + ox) * c + j] = (uint8_t)v;
                }
            }
        }
        cases++;
        failed += memcmp(got, want, out_bytes) != 0;
        free(input); free(got); free(want); free(scratch);
    }
    result(name, "q8_maxpool", cases, failed);
}

/// LiteRT's x86 block conversion: round half to even, INT32_MIN for NaN and values outside int32.
static int32_t cvt_even(float v) {
    if (!(v >= -2147483648.0f && v < 2147483648.0f)) return INT32_MIN;
    return (int32_t)nearbyintf(v);  // the default rounding mode: ties to even
}

void test_q8_quantize(const char *name, const omk_kernel_table *t) {
    if (!t->q8_quantize_f32) return;
    int cases = 0, failed = 0;
    for (int it = 0; it < 300; it++) {
        const size_t count = (size_t)rnd(0, 40) * 8;
        const int is_signed = it % 2;
        const int32_t zp = is_signed ? rnd(-128, 127) : rnd(0, 255);
        const int32_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
        const float reciprocal = it % 7 == 0 ? 1.0f : (float)rnd(1, 100000) / (float)rnd(1, 1000);
        float *x = malloc((count + 1) * sizeof(float));
        for (size_t i = 0; i < count; i++) {
            const int kind = rnd(0, 9);
            if (kind == 0) x[i] = (float)rnd(-600, 600) * 0.5f / reciprocal;  // ties after the multiply, often
            else if (kind == 1) x[i] = (float)rnd(-300, 300) + 0.5f;
            else if (kind == 2) x[i] = (float)(rnd(0, 1) ? 3e9 : -3e9);
            else if (kind == 3) x[i] = __builtin_nanf("");
            else if (kind == 4) x[i] = rnd(0, 1) ? __builtin_inff() : -__builtin_inff();
            else x[i] = rndf();
        }
        uint8_t *got = malloc(count + 1), *want = malloc(count + 1);
        t->q8_quantize_f32(x, count, reciprocal, zp, lo, hi, got);
        for (size_t i = 0; i < count; i++) {
            int32_t q = (int32_t)((uint32_t)cvt_even(x[i] * reciprocal) + (uint32_t)zp);
            q = q < lo ? lo : (q > hi ? hi : q);
            want[i] = (uint8_t)q;
        }
        cases++;
        failed += count && memcmp(got, want, count) != 0;
        free(x); free(got); free(want);
    }
    result(name, "q8_quantize_f32", cases, failed);
}

// The C kernel harness: every SIMD variant this CPU can run (x86: avx2, avx512, avx512+vnni;
// aarch64: neon, dotprod, i8mm), each operation of its kernel table, against scalar references
// written here from the contracts in CKernels.h, on random and edge-case inputs. Integer kernels
// must match bit for bit; float kernels too (they keep LiteRT's order and rounding, so the bound
// is 0 ULP), compared as bit patterns.
//
// Usage: harness [--only VARIANT|none] [--require v1,v2,...] [--expect-table NAME] [--seed N]
//   --only          test just this named variant (none: only the process table below);
//   --require       fail unless every listed variant can run here (no silent skipping);
//   --expect-table  fail unless the process table (OPENMLKIT_KERNELS applied) is NAME ("any":
//                   whichever it is), then also test the ISA-neutral entry points as "active".
// Prints one line per variant and operation, then `N kernel tests passed on ARCH` or
// `M of N kernel tests failed on ARCH` (N: variant × case, plus one for the table check); exits 0
// only when all pass, and fails when it tested nothing.
// Build: scripts/test-arm (aarch64 under qemu) or scripts/test-kernels-native (this CPU).

#pragma STDC FP_CONTRACT OFF

#include "CKernels.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__aarch64__)
#define ARCH "aarch64"
#else
#define ARCH "x86_64"
#endif

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t next(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int32_t rnd(int32_t lo, int32_t hi) { return (int32_t)(lo + (int64_t)(next() % (uint64_t)((int64_t)hi - lo + 1))); }
static float rndf(void) {
    // Mostly moderate values, now and then large, tiny, or exactly zero.
    const int kind = rnd(0, 19);
    if (kind == 0) return 0.0f;
    if (kind == 1) return (float)rnd(-1000, 1000) * 1e6f;
    if (kind == 2) return (float)rnd(-1000, 1000) * 1e-9f;
    return (float)rnd(-100000, 100000) / 8192.0f;
}

static int tests = 0, failures = 0;
static void result(const char *variant, const char *op, int cases, int failed) {
    tests += cases;
    failures += failed;
    printf("%-12s %-22s %4d cases %s\n", variant, op, cases, failed ? "FAILED" : "ok");
    if (failed) printf("%-12s %-22s %4d of %d cases differ from the reference\n", variant, op, failed, cases);
}

static int same_bits(const float *a, const float *b, size_t n) { return memcmp(a, b, n * sizeof(float)) == 0; }

/// x86's min(hi, max(lo, v)): the clamp every float kernel applies.
static float clampf(float v, float lo, float hi) {
    const float t = lo > v ? lo : v;
    return hi < t ? hi : t;
}

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

static void test_f32_gemm(const char *name, const omk_kernel_table *t) {
    if (!t->f32_gemm_8x16) return;
    int cases = 0, failed = 0, gcases = 0, gfailed = 0;
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
        free(data);
        free(b);
    }
    result(name, "f32_gemm_8x16", cases, failed);
    if (gcases) result(name, "f32_gemv_16", gcases, gfailed);
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

static void test_f32_dwconv(const char *name, const omk_kernel_table *t) {
    if (!t->f32_dwconv_pixel) return;
    int cases = 0, failed = 0, cases4 = 0, failed4 = 0;
    for (int it = 0; it < 200; it++) {
        const size_t channels = (size_t)(it < 40 ? it + 1 : rnd(1, 80)), tr = (size_t)rnd(1, 3), tc = (size_t)rnd(1, 3);
        const size_t xs = channels * (size_t)rnd(1, 2), xrs = xs * 8, wrs = tc * channels, pixel_step = xs;
        const size_t xn = tr * xrs + 4 * pixel_step + tc * xs + channels, wn = tr * wrs;
        float *x = malloc(xn * sizeof(float)), *w = malloc(wn * sizeof(float)), *bias = malloc(channels * sizeof(float));
        for (size_t i = 0; i < xn; i++) x[i] = rndf();
        for (size_t i = 0; i < wn; i++) w[i] = rndf();
        for (size_t i = 0; i < channels; i++) bias[i] = rndf();
        float lower, upper;
        bounds(&lower, &upper);
        float *got = malloc(4 * channels * sizeof(float)), *want = malloc(4 * channels * sizeof(float));
        t->f32_dwconv_pixel(x, w, channels, tr, tc, xs, xrs, wrs, bias, lower, upper, got);
        for (size_t c = 0; c < channels; c++) want[c] = ref_channel(x, w, c, channels, tr, tc, xs, xrs, wrs, bias, lower, upper);
        cases++;
        failed += !same_bits(got, want, channels);
        if (t->f32_dwconv_pixels4) {
            t->f32_dwconv_pixels4(x, w, channels, tr, tc, xs, xrs, wrs, pixel_step, bias, lower, upper, got);
            for (size_t p = 0; p < 4; p++)
                for (size_t c = 0; c < channels; c++)
                    want[p * channels + c] =
                        ref_channel(x + p * pixel_step, w, c, channels, tr, tc, xs, xrs, wrs, bias, lower, upper);
            cases4++;
            failed4 += !same_bits(got, want, 4 * channels);
        }
        free(x); free(w); free(bias); free(got); free(want);
    }
    result(name, "f32_dwconv_pixel", cases, failed);
    if (cases4) result(name, "f32_dwconv_pixels4", cases4, failed4);
}

// ---------------------------------------------------------------- int16 GEMM and depthwise

static int16_t rnd16(int edge) {
    if (edge) return rnd(0, 1) ? INT16_MIN : INT16_MAX;
    return (int16_t)rnd(INT16_MIN, INT16_MAX);
}

static void test_q16(const char *name, const omk_kernel_table *t) {
    if (t->q16_gemm_8x8) {
        int cases = 0, failed = 0;
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
            free(data);
            free(b);
        }
        result(name, "q16_gemm_8x8", cases, failed);
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

// ---------------------------------------------------------------- requantization

static int32_t rnd_multiplier(int edge) {
    if (edge) {
        const int32_t e[] = {0, 1, INT32_MAX, 1 << 30, (1 << 30) + 1};
        return e[rnd(0, 4)];
    }
    return rnd(1 << 30, INT32_MAX);
}

static int32_t rnd_acc(int edge) {
    if (edge) {
        const int32_t e[] = {INT32_MIN, INT32_MAX, 0, -1, 1, INT32_MIN + 1};
        return e[rnd(0, 5)];
    }
    return rnd(0, 1) ? rnd(-100000, 100000) : (int32_t)next();
}

static void test_requantize(const char *name, const omk_kernel_table *t) {
    if (t->requantize_i32 == omk_requantize_i32) return;  // the reference itself
    int cases = 0, failed = 0;
    for (int it = 0; it < 400; it++) {
        const int edge = it % 4 == 0;
        const size_t count = (size_t)(it < 20 ? it + 1 : rnd(1, 70));
        int32_t *acc = malloc(count * 4), *want = malloc(count * 4), *bias = malloc(count * 4);
        int32_t *m = malloc(count * 4), *s = malloc(count * 4);
        uint8_t *g = malloc(count);
        for (size_t c = 0; c < count; c++) {
            acc[c] = rnd_acc(edge);
            bias[c] = edge ? rnd_acc(1) : rnd(-5000, 5000);
            m[c] = rnd_multiplier(edge && rnd(0, 1));
            s[c] = rnd(-31, 30);
            g[c] = (uint8_t)rnd(0, 1);
        }
        const int32_t zp = rnd(-128, 255);
        int32_t lo = rnd(-128, 0), hi = rnd(0, 255);
        if (it % 7 == 0) { lo = INT32_MIN; hi = INT32_MAX; }
        memcpy(want, acc, count * 4);
        t->requantize_i32(acc, count, bias, m, s, g, zp, lo, hi);
        omk_requantize_i32(want, count, bias, m, s, g, zp, lo, hi);
        cases++;
        failed += memcmp(acc, want, count * 4) != 0;
        if (getenv("HARNESS_DEBUG"))
            for (size_t c = 0; c < count; c++)
                if (acc[c] != want[c]) printf("  c=%zu bias=%d m=%d s=%d g=%d zp=%d lo=%d hi=%d got=%d want=%d\n", c, bias[c], m[c], s[c], g[c], zp, lo, hi, acc[c], want[c]);
        free(acc); free(want); free(bias); free(m); free(s); free(g);
    }
    result(name, "requantize_i32", cases, failed);
}

/// The AVX-512 output stages that store bytes: `_to_8` against omk_requantize_i32's low bytes, and
/// the GEMM-rounding one from parameters prepared as Swift prepares them.
static void test_requantize_to_8(const char *name, const omk_kernel_table *t) {
    if (!t->requantize_i32_to_8 && !t->requantize_gemm_to_8) return;
    int cases = 0, failed = 0, gcases = 0, gfailed = 0;
    for (int it = 0; it < 300; it++) {
        const int edge = it % 4 == 0, is_signed = it % 2;
        const size_t count = (size_t)(it < 20 ? it + 1 : rnd(1, 70)), padded = (count + 15) / 16 * 16;
        int32_t *acc = calloc(padded, 4), *want = calloc(padded, 4), *bias = calloc(padded, 4);
        int32_t *m = calloc(padded, 4), *s = calloc(padded, 4), *left = calloc(padded, 4);
        int64_t *addend = calloc(padded, 8), *shifts = calloc(padded, 8);
        uint8_t *g = calloc(padded, 1), *ones = calloc(padded, 1), *got = malloc(padded), *w8 = malloc(padded);
        for (size_t c = 0; c < count; c++) {
            acc[c] = rnd_acc(edge);
            bias[c] = edge ? rnd_acc(1) : rnd(-5000, 5000);
            m[c] = rnd_multiplier(edge && rnd(0, 1));
            s[c] = rnd(-31, 30);
            g[c] = (uint8_t)rnd(0, 1);
            ones[c] = 1;
            const int l = s[c] > 0 ? s[c] : 0, r = s[c] > 0 ? 0 : -s[c];
            left[c] = l & 31;
            const size_t pos = c / 16 * 16 + (c % 2 ? 8 : 0) + (c % 16) / 2;
            addend[pos] = ((int64_t)1 << 30) + (r > 0 ? ((int64_t)1 << (30 + r)) : 0);
            shifts[pos] = 31 + r;
        }
        const int32_t zp = is_signed ? rnd(-128, 127) : rnd(0, 255);
        const int32_t lo = is_signed ? rnd(-128, 0) : rnd(0, 128), hi = is_signed ? rnd(0, 127) : rnd(128, 255);
        if (t->requantize_i32_to_8) {
            memcpy(want, acc, count * 4);
            omk_requantize_i32(want, count, bias, m, s, g, zp, lo, hi);
            for (size_t c = 0; c < count; c++) w8[c] = (uint8_t)want[c];
            t->requantize_i32_to_8(acc, count, bias, m, s, g, zp, lo, hi, got);
            cases++;
            failed += memcmp(got, w8, count) != 0;
        }
        if (t->requantize_gemm_to_8) {
            memcpy(want, acc, count * 4);
            omk_requantize_i32(want, count, bias, m, s, ones, zp, lo, hi);
            for (size_t c = 0; c < count; c++) w8[c] = (uint8_t)want[c];
            t->requantize_gemm_to_8(acc, count, bias, m, left, addend, shifts, zp, lo, hi, got);
            gcases++;
            gfailed += memcmp(got, w8, count) != 0;
        }
        free(acc); free(want); free(bias); free(m); free(s); free(left); free(addend); free(shifts);
        free(g); free(ones); free(got); free(w8);
    }
    if (cases) result(name, "requantize_i32_to_8", cases, failed);
    if (gcases) result(name, "requantize_gemm_to_8", gcases, gfailed);
}

// ---------------------------------------------------------------- quantized ADD

static int32_t srdhm(int32_t a, int32_t b) {
    if (a == b && a == INT32_MIN) return INT32_MAX;
    const int64_t p = (int64_t)a * b;
    const int64_t nudge = p >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
    return (int32_t)((p + nudge) / ((int64_t)1 << 31));
}

static int32_t rdbpot(int32_t x, int e) {
    const int32_t mask = (int32_t)(((int64_t)1 << e) - 1), rem = x & mask, th = (mask >> 1) + (x < 0);
    return (x >> e) + (rem > th);
}

static int32_t shift_signed(int32_t v, int64_t amount) {
    if (amount >= 0) return (int32_t)((uint32_t)v << (amount & 31));
    return v >> (-amount > 31 ? 31 : -amount);
}

/// LiteRT's vector-block lane: int8 `AddElementwiseInt8` (one shift before the multiply), uint8
/// `AddElementwise` (left shift before, the input shift after).
static uint8_t ref_add(int32_t x, int32_t y, int is_signed, const omk_q8_add_params *p) {
    int32_t v[2];
    const int32_t in[2] = {x, y}, off[2] = {p->input1_offset, p->input2_offset};
    const int32_t mul[2] = {p->input1_multiplier, p->input2_multiplier}, sh[2] = {p->input1_shift, p->input2_shift};
    for (int i = 0; i < 2; i++) {
        int32_t a = (int32_t)((uint32_t)in[i] + (uint32_t)off[i]);
        if (is_signed) {
            a = srdhm(shift_signed(a, (int64_t)p->left_shift + sh[i]), mul[i]);
        } else {
            a = shift_signed(srdhm((int32_t)((uint32_t)a << (p->left_shift & 31)), mul[i]), sh[i]);
        }
        v[i] = a;
    }
    const int32_t sum = (int32_t)((uint32_t)v[0] + (uint32_t)v[1]);
    int32_t r = rdbpot(srdhm(sum, p->output_multiplier), p->output_shift < 0 ? -p->output_shift : 0);
    r = (int16_t)(uint16_t)((uint32_t)r + (uint32_t)p->output_offset);
    const int32_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
    r = r < lo ? lo : (r > hi ? hi : r);
    r = r < p->activation_min ? p->activation_min : (r > p->activation_max ? p->activation_max : r);
    return (uint8_t)r;
}

static void test_add(const char *name, const omk_kernel_table *t) {
    if (!t->q8_add) return;
    int cases = 0, failed = 0;
    for (int it = 0; it < 400; it++) {
        const int is_signed = it % 2;
        const size_t count = (size_t)(it < 40 ? it / 2 + 1 : rnd(1, 100));
        omk_q8_add_params p;
        const int32_t zlo = is_signed ? -128 : 0, zhi = is_signed ? 127 : 255;
        p.input1_offset = -rnd(zlo, zhi);
        p.input2_offset = -rnd(zlo, zhi);
        p.output_offset = rnd(zlo, zhi);
        p.left_shift = it % 11 == 0 ? rnd(0, 31) : 20;
        p.input1_multiplier = rnd_multiplier(it % 9 == 0);
        p.input2_multiplier = rnd_multiplier(it % 13 == 0);
        p.output_multiplier = rnd_multiplier(it % 17 == 0);
        p.input1_shift = rnd(-31, 0);
        p.input2_shift = rnd(-31, 0);
        p.output_shift = rnd(-31, 0);
        p.activation_min = it % 3 ? zlo : rnd(zlo, 0);
        p.activation_max = it % 3 ? zhi : rnd(0, zhi);
        uint8_t *a = malloc(count), *b = malloc(count), *got = malloc(count), *want = malloc(count);
        for (size_t i = 0; i < count; i++) {
            a[i] = (uint8_t)(it % 5 == 0 ? (rnd(0, 1) ? 0x80 : 0x7F) : rnd(0, 255));
            b[i] = (uint8_t)(it % 7 == 0 ? (rnd(0, 1) ? 0xFF : 0x00) : rnd(0, 255));
        }
        t->q8_add(a, b, got, count, is_signed, &p);
        for (size_t i = 0; i < count; i++) {
            const int32_t x = is_signed ? (int8_t)a[i] : a[i], y = is_signed ? (int8_t)b[i] : b[i];
            want[i] = ref_add(x, y, is_signed, &p);
        }
        cases++;
        failed += memcmp(got, want, count) != 0;
        free(a); free(b); free(got); free(want);
    }
    result(name, "q8_add", cases, failed);
}

// ---------------------------------------------------------------- 8-bit GEMM / CONV_2D, fused

/// The parameters Swift prepares from per-column multipliers and shifts (GEMM rounding), and the
/// reference: wrapping int32 sums, then omk_requantize_i32 with gemm_rounding = 1.
typedef struct {
    size_t depth, columns, padded;
    int flip;
    uint8_t *weights;  // packed
    int8_t *w;         // [columns][depth]
    int32_t *bias, *multiplier, *shift, *left;
    int64_t *addend, *shifts;
    omk_q8_gemm_params p;
} q8_problem;

static void q8_make(q8_problem *q, size_t depth, size_t columns, int flip, int edge, int with_left) {
    q->depth = depth;
    q->columns = columns;
    q->flip = flip;
    q->padded = (columns + 63) / 64 * 64;
    const size_t quads = (depth + 3) / 4, groups = (columns + 63) / 64;
    q->w = malloc(columns * depth);
    for (size_t i = 0; i < columns * depth; i++) q->w[i] = (int8_t)(edge ? (rnd(0, 1) ? -128 : 127) : rnd(-128, 127));
    q->weights = calloc(groups * quads * 256 + 64, 1);
    int32_t *sums = malloc(columns * 4);
    omk_q8_pack_weights((const uint8_t *)q->w, depth, columns, 64, quads * 256, 0, 1, 0, q->weights, sums);
    free(sums);
    q->bias = calloc(q->padded, 4);
    q->multiplier = calloc(q->padded, 4);
    q->shift = calloc(q->padded, 4);
    q->left = calloc(q->padded, 4);
    q->addend = calloc(q->padded, 8);
    q->shifts = calloc(q->padded, 8);
    for (size_t c = 0; c < columns; c++) {
        q->bias[c] = edge ? rnd_acc(1) : rnd(-20000, 20000);
        q->multiplier[c] = rnd_multiplier(edge && rnd(0, 1));
        q->shift[c] = with_left ? rnd(-20, 6) : rnd(-31, 0);
        const int s = q->shift[c], left = s > 0 ? s : 0, r = s > 0 ? 0 : -s;
        q->left[c] = left;
        // The AVX-512 layout: block b of 16, entry 16b + i (i < 8) channel 16b + 2i, 16b + 8 + i channel 16b + 2i + 1.
        const size_t pos = c / 16 * 16 + (c % 2 ? 8 : 0) + (c % 16) / 2;
        q->addend[pos] = ((int64_t)1 << 30) + (r > 0 ? ((int64_t)1 << (30 + r)) : 0) -
                         (int64_t)q->multiplier[c] * ((int64_t)1 << 31);
        q->shifts[pos] = 31 + r;
    }
    memset(&q->p, 0, sizeof q->p);
    q->p.weights = q->weights;
    q->p.depth = depth;
    q->p.columns = columns;
    q->p.flip_activations = flip;
    q->p.row_scale = flip ? 0 : rnd(-128, 255);
    q->p.bias = q->bias;
    q->p.multiplier = q->multiplier;
    q->p.left = with_left ? q->left : NULL;
    q->p.addend = q->addend;
    q->p.shift = q->shifts;
    q->p.zero_point = flip ? rnd(-128, 127) : rnd(0, 255);
    q->p.lo = flip ? (edge ? -128 : rnd(-128, 0)) : (edge ? 0 : rnd(0, 128));
    q->p.hi = flip ? (edge ? 127 : rnd(0, 127)) : (edge ? 255 : rnd(128, 255));
}

static void q8_free(q8_problem *q) {
    free(q->w); free(q->weights); free(q->bias); free(q->multiplier); free(q->shift); free(q->left);
    free(q->addend); free(q->shifts);
}

/// Reference rows (`rows` of `depth` bytes at `a`, lda apart, as stored: int8 or uint8) into out.
static void q8_ref(const q8_problem *q, const uint8_t *a, size_t lda, size_t rows, size_t g0, size_t g1, uint8_t *out,
                   size_t ldo) {
    int32_t *acc = malloc(q->columns * 4);
    uint8_t *ones = malloc(q->columns);
    memset(ones, 1, q->columns);
    for (size_t r = 0; r < rows; r++) {
        const uint8_t *x = a + r * lda;
        uint32_t rowsum = 0;
        for (size_t k = 0; k < q->depth; k++) rowsum += x[k];
        for (size_t c = 0; c < q->columns; c++) {
            uint32_t s = q->flip ? 0 : rowsum * (uint32_t)q->p.row_scale;
            for (size_t k = 0; k < q->depth; k++) {
                const int32_t xv = q->flip ? (int32_t)(x[k] ^ 0x80) : (int32_t)x[k];
                s += (uint32_t)(xv * q->w[c * q->depth + k]);
            }
            acc[c] = (int32_t)s;
        }
        omk_requantize_i32(acc, q->columns, q->bias, q->multiplier, q->shift, ones, q->p.zero_point, q->p.lo, q->p.hi);
        for (size_t c = g0 * 64; c < q->columns && c < g1 * 64; c++) out[r * ldo + c] = (uint8_t)acc[c];
    }
    free(acc);
    free(ones);
}

static void test_q8_gemm(const char *name, const omk_kernel_table *t) {
    if (!t->q8_gemm) return;
    int cases = 0, failed = 0;
    for (int it = 0; it < 160; it++) {
        const int edge = it % 6 == 0, flip = it % 2, with_left = it % 5 == 0;
        const size_t depth = (size_t)(it < 12 ? it + 1 : rnd(1, 300)), columns = (size_t)(it < 12 ? 64 : rnd(1, 200));
        const size_t rows = (size_t)(it % 9 == 0 ? rnd(60, 140) : rnd(1, 13)), lda = depth + (size_t)rnd(0, 5);
        q8_problem q;
        q8_make(&q, depth, columns, flip, edge, with_left);
        // The rows end exactly at the allocation (a kernel reading past them would be caught by
        // a sanitizer; here at least no reference byte depends on it).
        uint8_t *a = malloc(rows * lda);
        for (size_t i = 0; i < rows * lda; i++) a[i] = (uint8_t)(edge ? (rnd(0, 1) ? 0 : 255) : rnd(0, 255));
        const size_t groups = (columns + 63) / 64, g0 = groups > 1 && it % 4 == 1 ? 1 : 0, ldo = columns + 3;
        uint8_t *got = malloc(rows * ldo), *want = malloc(rows * ldo);
        memset(got, 0xA5, rows * ldo);
        memset(want, 0xA5, rows * ldo);
        uint8_t *scratch = malloc(omk_q8_gemm_scratch_bytes(depth, rows));
        t->q8_gemm(&q.p, a, lda, rows, g0, groups, got, ldo, scratch);
        q8_ref(&q, a, lda, rows, g0, groups, want, ldo);
        cases++;
        failed += memcmp(got, want, rows * ldo) != 0;
        free(scratch); free(a); free(got); free(want);
        q8_free(&q);
    }
    result(name, "q8_gemm (fused)", cases, failed);
}

static void test_q8_conv(const char *name, const omk_kernel_table *t) {
    if (!t->q8_conv) return;
    int cases = 0, failed = 0;
    for (int it = 0; it < 80; it++) {
        omk_q8_im2col_params g;
        memset(&g, 0, sizeof g);
        g.batch = (size_t)rnd(1, 2);
        g.input_height = (size_t)rnd(1, 9);
        g.input_width = (size_t)rnd(1, 9);
        g.channels = (size_t)rnd(1, 20);
        g.filter_height = (size_t)rnd(1, 3);
        g.filter_width = (size_t)rnd(1, 3);
        g.stride_height = (size_t)rnd(1, 2);
        g.stride_width = (size_t)rnd(1, 2);
        g.dilation_height = (size_t)rnd(1, 2);
        g.dilation_width = (size_t)rnd(1, 2);
        g.pad_top = rnd(0, 1);
        g.pad_left = rnd(0, 1);
        const ptrdiff_t eh = (ptrdiff_t)((g.filter_height - 1) * g.dilation_height + 1);
        const ptrdiff_t ew = (ptrdiff_t)((g.filter_width - 1) * g.dilation_width + 1);
        const ptrdiff_t oh = ((ptrdiff_t)g.input_height + 2 * g.pad_top - eh) / (ptrdiff_t)g.stride_height + 1;
        const ptrdiff_t ow = ((ptrdiff_t)g.input_width + 2 * g.pad_left - ew) / (ptrdiff_t)g.stride_width + 1;
        if (oh < 1 || ow < 1) { it--; continue; }
        g.output_height = (size_t)oh;
        g.output_width = (size_t)ow;
        const int flip = it % 2, edge = it % 7 == 0;
        g.flip = flip;
        g.zero = (uint8_t)rnd(0, 255);
        const size_t n = g.batch * g.input_height * g.input_width * g.channels;
        uint8_t *input = malloc(n);
        for (size_t i = 0; i < n; i++) input[i] = (uint8_t)rnd(0, 255);
        g.input = input;
        const size_t depth = g.filter_height * g.filter_width * g.channels, columns = (size_t)rnd(1, 130);
        q8_problem q;
        q8_make(&q, depth, columns, flip, edge, it % 5 == 0);
        const size_t pixels = g.batch * g.output_height * g.output_width;
        // Reference im2col rows (as stored bytes), then the reference GEMM.
        uint8_t *cols = malloc(pixels * depth);
        for (size_t p = 0; p < pixels; p++) {
            const size_t b = p / (g.output_height * g.output_width), oy = p / g.output_width % g.output_height;
            const size_t ox = p % g.output_width;
            for (size_t ky = 0; ky < g.filter_height; ky++)
                for (size_t kx = 0; kx < g.filter_width; kx++)
                    for (size_t c = 0; c < g.channels; c++) {
                        const ptrdiff_t iy = (ptrdiff_t)(oy * g.stride_height + ky * g.dilation_height) - g.pad_top;
                        const ptrdiff_t ix = (ptrdiff_t)(ox * g.stride_width + kx * g.dilation_width) - g.pad_left;
                        const int inside = iy >= 0 && iy < (ptrdiff_t)g.input_height && ix >= 0 && ix < (ptrdiff_t)g.input_width;
                        cols[p * depth + (ky * g.filter_width + kx) * g.channels + c] =
                            inside ? input[((b * g.input_height + (size_t)iy) * g.input_width + (size_t)ix) * g.channels + c]
                                   : g.zero;
                    }
        }
        const size_t r0 = it % 3 == 0 && pixels > 2 ? 1 : 0, r1 = pixels;
        const size_t groups = (columns + 63) / 64, ldo = columns;
        uint8_t *got = malloc(pixels * ldo), *want = malloc(pixels * ldo);
        memset(got, 0xA5, pixels * ldo);
        memset(want, 0xA5, pixels * ldo);
        uint8_t *scratch = malloc(omk_q8_gemm_scratch_bytes(depth, r1 - r0));
        t->q8_conv(&q.p, &g, r0, r1, 0, groups, got, ldo, scratch);
        q8_ref(&q, cols + r0 * depth, depth, r1 - r0, 0, groups, want + r0 * ldo, ldo);
        cases++;
        failed += memcmp(got, want, pixels * ldo) != 0;
        free(scratch); free(input); free(cols); free(got); free(want);
        q8_free(&q);
    }
    result(name, "q8_conv (fused)", cases, failed);
}

// ---------------------------------------------------------------- driver

static void run_table(const char *name, const omk_kernel_table *t) {
    test_f32_gemm(name, t);
    test_f32_dwconv(name, t);
    test_q16(name, t);
    test_requantize(name, t);
    test_requantize_to_8(name, t);
    test_add(name, t);
    test_q8_gemm(name, t);
    test_q8_conv(name, t);
}

/// The process table (OPENMLKIT_KERNELS applied) through the ISA-neutral entry points.
static omk_kernel_table neutral(void) {
    omk_kernel_table t = *omk_kernels();
    if (t.f32_gemm_8x16) t.f32_gemm_8x16 = omk_f32_gemm_8x16;
    if (t.f32_gemv_16) t.f32_gemv_16 = omk_f32_gemv_16;
    if (t.f32_dwconv_pixel) t.f32_dwconv_pixel = omk_f32_dwconv_pixel;
    if (t.f32_dwconv_pixels4) t.f32_dwconv_pixels4 = omk_f32_dwconv_pixels4;
    if (t.q16_gemm_8x8) t.q16_gemm_8x8 = omk_q16_gemm_8x8;
    if (t.q16_dwconv_pixel) t.q16_dwconv_pixel = omk_q16_dwconv_pixel;
    if (t.q8_gemm) t.q8_gemm = omk_q8_gemm;
    if (t.q8_conv) t.q8_conv = omk_q8_conv;
    if (t.requantize_i32 != omk_requantize_i32) t.requantize_i32 = omk_requantize;
    if (t.q8_add) t.q8_add = omk_q8_add;
    if (t.requantize_i32_to_8) t.requantize_i32_to_8 = omk_requantize_to_8;
    if (t.requantize_gemm_to_8) t.requantize_gemm_to_8 = omk_requantize_gemm_to_8;
    return t;
}

int main(int argc, char **argv) {
    const char *require = NULL, *expect = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--require") == 0 && i + 1 < argc) require = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--expect-table") == 0 && i + 1 < argc) expect = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) rng_state = strtoull(argv[++i], NULL, 10) | 1;
        else {
            fprintf(stderr, "usage: %s [--only VARIANT|none] [--require v1,v2] [--expect-table NAME] [--seed N]\n",
                    argv[0]);
            return 2;
        }
    }
    const char *variants[] = {"avx2", "avx512", "avx512+vnni", "neon", "dotprod", "i8mm"};
    int missing = 0;
    if (require) {
        char list[256];
        snprintf(list, sizeof list, "%s", require);
        for (char *v = strtok(list, ","); v; v = strtok(NULL, ",")) {
            omk_kernel_table t;
            if (!omk_kernel_table_named(v, &t)) {
                printf("required variant %s cannot run on this CPU\n", v);
                missing++;
            }
        }
    }
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        omk_kernel_table t;
        if (only && strcmp(only, variants[i]) != 0) continue;
        if (omk_kernel_table_named(variants[i], &t)) {
            run_table(variants[i], &t);
        } else {
            printf("%-12s not available on this CPU\n", variants[i]);
        }
    }
    const omk_kernel_table *active = omk_kernels();
    printf("process table: %s (OPENMLKIT_KERNELS=%s)\n", active->name,
           getenv("OPENMLKIT_KERNELS") ? getenv("OPENMLKIT_KERNELS") : "");
    if (expect) {
        // The table check counts as one test.
        tests++;
        if (strcmp(expect, "any") != 0 && strcmp(active->name, expect) != 0) {
            printf("expected the process table %s, got %s\n", expect, active->name);
            failures++;
        }
        const omk_kernel_table t = neutral();
        run_table("active", &t);
    }
    const int failed = failures + missing, total = tests + missing;
    if (failed || total == 0) {
        printf("%d of %d kernel tests failed on %s\n", failed ? failed : 1, total ? total : 1, ARCH);
        return 1;
    }
    printf("%d kernel tests passed on %s\n", total, ARCH);
    return 0;
}

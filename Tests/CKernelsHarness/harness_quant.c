// The requantization, 8-bit ADD and fused 8-bit GEMM / CONV_2D kernels against scalar references
// (part of the harness, see harness.c).

#pragma STDC FP_CONTRACT OFF

#include "harness.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    return rnd(0, 1) ? rnd(-100000, 100000) : (int32_t)next_random();
}

void test_requantize(const char *name, const omk_kernel_table *t) {
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

/// The output stages that store bytes (AVX2, AVX-512, NEON): `_to_8` against omk_requantize_i32's low bytes, and
/// the GEMM-rounding one from parameters prepared as Swift prepares them.
void test_requantize_to_8(const char *name, const omk_kernel_table *t) {
    if (!t->requantize_i32_to_8 && !t->requantize_gemm_to_8) return;
    int cases = 0, failed = 0, gcases = 0, gfailed = 0;
    for (int it = 0; it < 300; it++) {
        const int edge = it % 4 == 0, is_signed = it % 2, deep = it % 7 == 3;
        const size_t count = (size_t)(it < 20 ? it + 1 : rnd(1, 70)), padded = (count + 15) / 16 * 16;
        int32_t *acc = calloc(padded, 4), *want = calloc(padded, 4), *bias = calloc(padded, 4);
        int32_t *m = calloc(padded, 4), *s = calloc(padded, 4), *left = calloc(padded, 4);
        int64_t *addend = calloc(padded, 8), *shifts = calloc(padded, 8);
        uint8_t *g = calloc(padded, 1), *ones = calloc(padded, 1), *got = malloc(padded), *w8 = malloc(padded);
        for (size_t c = 0; c < count; c++) {
            acc[c] = rnd_acc(edge);
            bias[c] = edge ? rnd_acc(1) : rnd(-5000, 5000);
            m[c] = rnd_multiplier(edge && rnd(0, 1));
            // Right shifts of 32 or more reach only the GEMM stage's parameters (QuantizedGemm.swift
            // prepares them defensively; FixedPoint keeps shifts >= -31, as LiteRT does): results 0.
            s[c] = deep ? rnd(-40, 30) : rnd(-31, 30);
            g[c] = (uint8_t)rnd(0, 1);
            ones[c] = 1;
            const int l = s[c] > 0 ? s[c] : 0, r = s[c] > 0 ? 0 : -s[c];
            left[c] = l & 31;
            const size_t pos = c / 16 * 16 + (c % 2 ? 8 : 0) + (c % 16) / 2;
            // As Swift prepares them (QuantizedGemm.swift).
            addend[pos] = r >= 32 ? ((int64_t)1 << 62) : ((int64_t)1 << 30) + (r > 0 ? ((int64_t)1 << (30 + r)) : 0);
            shifts[pos] = r >= 32 ? 63 : 31 + r;
        }
        const int32_t zp = is_signed ? rnd(-128, 127) : rnd(0, 255);
        const int32_t lo = is_signed ? rnd(-128, 0) : rnd(0, 128), hi = is_signed ? rnd(0, 127) : rnd(128, 255);
        if (t->requantize_i32_to_8 && !deep) {
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

void test_add(const char *name, const omk_kernel_table *t) {
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

/// LiteRT's 8-bit MUL block lane (`multiplyBlock`): product, left shift, doubling high multiply,
/// RoundingDivideByPOT, int16 saturation (or truncation, uint8 `MulSimpleBroadcast`), zero point.
static uint8_t ref_mul(int32_t x, int32_t y, int is_signed, int saturating, const omk_q8_add_params *p) {
    const int32_t product = (x + p->input1_offset) * (y + p->input2_offset);
    const int32_t shifted = shift_signed(product, p->output_shift > 0 ? p->output_shift : 0);
    int32_t r = rdbpot(srdhm(shifted, p->output_multiplier), p->output_shift < 0 ? -p->output_shift : 0);
    if (saturating) r = r < -32768 ? -32768 : (r > 32767 ? 32767 : r);
    r = (int16_t)(uint16_t)((uint32_t)r + (uint32_t)p->output_offset);
    const int32_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
    r = r < lo ? lo : (r > hi ? hi : r);
    r = r < p->activation_min ? p->activation_min : (r > p->activation_max ? p->activation_max : r);
    return (uint8_t)r;
}

/// One lane of `formula` (see omk_q8_binary_params).
static uint8_t ref_binary(int32_t x, int32_t y, const omk_q8_binary_params *b) {
    switch (b->formula) {
    case OMK_Q8_ADD_COMBINED: return ref_add(x, y, 1, &b->q) & 0xFF;
    case OMK_Q8_ADD_SHIFT_AFTER: {
        // ref_add's uint8 formula with the element type's clamp.
        omk_q8_add_params q = b->q;
        const int32_t lo = b->is_signed ? -128 : 0, hi = b->is_signed ? 127 : 255;
        int32_t v[2];
        const int32_t in[2] = {x, y}, off[2] = {q.input1_offset, q.input2_offset};
        const int32_t mul[2] = {q.input1_multiplier, q.input2_multiplier}, sh[2] = {q.input1_shift, q.input2_shift};
        for (int i = 0; i < 2; i++)
            v[i] = shift_signed(srdhm((int32_t)((uint32_t)(in[i] + off[i]) << (q.left_shift & 31)), mul[i]), sh[i]);
        const int32_t sum = (int32_t)((uint32_t)v[0] + (uint32_t)v[1]);
        int32_t r = rdbpot(srdhm(sum, q.output_multiplier), q.output_shift < 0 ? -q.output_shift : 0);
        r = (int16_t)(uint16_t)((uint32_t)r + (uint32_t)q.output_offset);
        r = r < lo ? lo : (r > hi ? hi : r);
        r = r < q.activation_min ? q.activation_min : (r > q.activation_max ? q.activation_max : r);
        return (uint8_t)r;
    }
    case OMK_Q8_MUL_SATURATING: return ref_mul(x, y, b->is_signed, 1, &b->q);
    default: return ref_mul(x, y, b->is_signed, 0, &b->q);
    }
}

/// test_binary's own random source, so that adding it left the other tests' inputs unchanged.
static uint64_t binary_state = 0x2545F4914F6CDD1DULL;

static int32_t brnd(int32_t lo, int32_t hi) {
    binary_state ^= binary_state << 13;
    binary_state ^= binary_state >> 7;
    binary_state ^= binary_state << 17;
    return (int32_t)(lo + (int64_t)(binary_state % (uint64_t)((int64_t)hi - lo + 1)));
}

static int32_t brnd_multiplier(int edge) {
    const int32_t e[] = {0, 1, INT32_MAX, 1 << 30, (1 << 30) + 1};
    return edge ? e[brnd(0, 4)] : brnd(1 << 30, INT32_MAX);
}

void test_binary(const char *name, const omk_kernel_table *t) {
    if (!t->q8_binary) return;
    int cases = 0, failed = 0;
    for (int it = 0; it < 800; it++) {
        omk_q8_binary_params b;
        b.formula = it % 4;
        b.is_signed = (it / 4) % 2;
        // ADD_COMBINED is int8's formula only.
        if (b.formula == OMK_Q8_ADD_COMBINED) b.is_signed = 1;
        const int a_scalar = (it / 8) % 2;
        const size_t lanes = (size_t)(it < 64 ? it / 2 + 1 : brnd(1, 120));
        const size_t runs = (size_t)(it % 5 == 0 ? 1 : brnd(1, 6));
        const size_t stride = lanes + (size_t)(it % 3 == 0 ? 0 : brnd(0, 9));
        omk_q8_add_params *p = &b.q;
        const int32_t zlo = b.is_signed ? -128 : 0, zhi = b.is_signed ? 127 : 255;
        p->input1_offset = -brnd(zlo, zhi);
        p->input2_offset = -brnd(zlo, zhi);
        p->output_offset = brnd(zlo, zhi);
        p->left_shift = it % 11 == 0 ? brnd(0, 31) : 20;
        p->input1_multiplier = brnd_multiplier(it % 9 == 0);
        p->input2_multiplier = brnd_multiplier(it % 13 == 0);
        p->output_multiplier = brnd_multiplier(it % 17 == 0);
        p->input1_shift = brnd(-31, 0);
        p->input2_shift = brnd(-31, 0);
        // MUL: small products need large right shifts or a left shift to reach the byte range.
        p->output_shift = b.formula >= OMK_Q8_MUL_SATURATING ? brnd(-31, 30) : brnd(-31, 0);
        if (b.formula >= OMK_Q8_MUL_SATURATING && it % 4 != 3) p->output_shift = brnd(-16, 2);
        p->activation_min = it % 3 ? zlo : brnd(zlo, 0);
        p->activation_max = it % 3 ? zhi : brnd(0, zhi);
        // Bounds outside int16 (the kernels' 32-bit end), wide or empty.
        if (it % 10 == 9) {
            p->activation_min = it % 20 == 19 ? 40000 : -100000;
            p->activation_max = 100000;
        }
        const size_t total = (runs - 1) * stride + lanes;
        const size_t a_count = a_scalar ? runs : lanes;
        uint8_t *a = malloc(a_count), *in = malloc(total), *got = malloc(total), *want = malloc(total);
        for (size_t i = 0; i < a_count; i++) a[i] = (uint8_t)(it % 5 == 0 ? (brnd(0, 1) ? 0x80 : 0x7F) : brnd(0, 255));
        for (size_t i = 0; i < total; i++) {
            in[i] = (uint8_t)(it % 7 == 0 ? (brnd(0, 1) ? 0xFF : 0x00) : brnd(0, 255));
            got[i] = want[i] = (uint8_t)i;  // bytes between runs must stay as they are
        }
        t->q8_binary(&b, a, in, got, lanes, runs, stride, a_scalar);
        for (size_t r = 0; r < runs; r++) {
            for (size_t i = 0; i < lanes; i++) {
                const uint8_t xa = a_scalar ? a[r] : a[i], yb = in[r * stride + i];
                const int32_t x = b.is_signed ? (int8_t)xa : xa, y = b.is_signed ? (int8_t)yb : yb;
                want[r * stride + i] = ref_binary(x, y, &b);
            }
        }
        cases++;
        failed += memcmp(got, want, total) != 0;
        free(a); free(in); free(got); free(want);
    }
    result(name, "q8_binary", cases, failed);
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

void test_q8_gemm(const char *name, const omk_kernel_table *t) {
    if (!t->q8_gemm) return;
    int cases = 0, failed = 0;
    for (int it = 0; it < 160; it++) {
        const int edge = it % 6 == 0, flip = it % 2, with_left = it % 5 == 0;
        // The last cases have rows longer than 4096 bytes (the AVX2 kernel widens those quad by quad).
        const size_t depth = (size_t)(it < 12 ? it + 1 : it >= 154 ? rnd(4090, 4400) : rnd(1, 300));
        const size_t columns = (size_t)(it < 12 ? 64 : rnd(1, 200));
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

void test_q8_conv(const char *name, const omk_kernel_table *t) {
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


// ---------------------------------------------------------------- 8-bit depthwise, packed

/// One packed depthwise kernel (`kernel` as omk_q8_dwconv_pack takes it) against the scalar
/// definition: Σ (x − zx)·w over the taps inside the image, then omk_requantize_i32, as bytes.
static void test_dwconv_kernel(const char *name, int kernel) {
    int cases = 0, failed = 0;
    for (int it = 0; it < 180; it++) {
        omk_q8_dwconv_shape s;
        memset(&s, 0, sizeof s);
        // Some tall filters (keyword-spotting models' 1-D depthwise layers: 9 to 21 taps).
        const int tall = it % 6 == 5;
        s.batch = (size_t)rnd(1, 2);
        s.filter_height = (size_t)(tall ? rnd(6, 4 * 6) : rnd(1, 5));
        s.input_height = (size_t)(tall ? rnd((int)s.filter_height - 2, (int)s.filter_height + 4) : rnd(1, 9));
        s.input_width = (size_t)rnd(1, 12);
        s.channels = (size_t)(it < 20 ? it + 1 : rnd(1, 70));
        s.filter_width = (size_t)rnd(1, 5);
        s.stride_height = (size_t)rnd(1, 2);
        s.stride_width = (size_t)rnd(1, 2);
        s.dilation_height = (size_t)(tall ? 1 : rnd(1, 2));
        s.dilation_width = (size_t)rnd(1, 2);
        s.pad_top = rnd(0, 2);
        s.pad_left = rnd(0, 2);
        const ptrdiff_t eh = (ptrdiff_t)((s.filter_height - 1) * s.dilation_height + 1);
        const ptrdiff_t ew = (ptrdiff_t)((s.filter_width - 1) * s.dilation_width + 1);
        const ptrdiff_t oh = ((ptrdiff_t)s.input_height + 2 * s.pad_top - eh) / (ptrdiff_t)s.stride_height + 1;
        const ptrdiff_t ow = ((ptrdiff_t)s.input_width + 2 * s.pad_left - ew) / (ptrdiff_t)s.stride_width + 1;
        if (oh < 1 || ow < 1) { it--; continue; }
        s.output_height = (size_t)oh;
        s.output_width = (size_t)ow;
        const int is_signed = it % 2, edge = it % 5 == 0;
        s.activations_signed = is_signed;
        s.input_zero_point = is_signed ? rnd(-128, 127) : rnd(0, 255);
        s.output_zero_point = is_signed ? rnd(-128, 127) : rnd(0, 255);
        s.output_min = is_signed ? (edge ? -128 : rnd(-128, 0)) : (edge ? 0 : rnd(0, 128));
        s.output_max = is_signed ? (edge ? 127 : rnd(0, 127)) : (edge ? 255 : rnd(128, 255));
        const size_t c = s.channels, taps = s.filter_height * s.filter_width;
        const size_t n = s.batch * s.input_height * s.input_width * c;
        uint8_t *input = malloc(n);
        for (size_t i = 0; i < n; i++) input[i] = (uint8_t)(edge ? (rnd(0, 1) ? 0 : 255) : rnd(0, 255));
        // Weights minus the filter zero point: int8 ones, or uint8 ones in [-255, 254].
        int16_t *w = malloc(taps * c * sizeof(int16_t));
        for (size_t i = 0; i < taps * c; i++) w[i] = (int16_t)(is_signed ? rnd(-128, 127) : rnd(-255, 254));
        int32_t *bias = malloc(c * 4), *m = malloc(c * 4), *sh = malloc(c * 4);
        uint8_t *g = malloc(c);
        for (size_t j = 0; j < c; j++) {
            bias[j] = rnd(-30000, 30000);
            m[j] = rnd_multiplier(edge && rnd(0, 1));
            // VNNI's single shift takes right shifts up to 22.
            sh[j] = rnd(-22, it % 4 == 0 ? 4 : 0);
            g[j] = (uint8_t)rnd(0, 1);
        }
        const size_t size = omk_q8_dwconv_packed_size(&s, kernel);
        void *packed = size ? malloc(size) : NULL;
        const size_t rows = s.batch * s.output_height, out_bytes = rows * s.output_width * c;
        uint8_t *got = malloc(out_bytes), *want = malloc(out_bytes);
        memset(got, 0xA5, out_bytes);
        int ok = packed && omk_q8_dwconv_pack(&s, kernel, w, bias, m, sh, g, packed);
        if (ok) {
            const size_t split = rows > 1 ? (size_t)rnd(1, (int32_t)rows - 1) : rows;
            omk_q8_dwconv_rows(&s, packed, input, got, 0, split);
            omk_q8_dwconv_rows(&s, packed, input, got, split, rows);
            int32_t *acc = malloc(c * 4);
            for (size_t r = 0; r < rows; r++) {
                const size_t b = r / s.output_height, oy = r % s.output_height;
                for (size_t ox = 0; ox < s.output_width; ox++) {
                    for (size_t j = 0; j < c; j++) {
                        uint32_t sum = 0;
                        for (size_t ky = 0; ky < s.filter_height; ky++) {
                            for (size_t kx = 0; kx < s.filter_width; kx++) {
                                const ptrdiff_t iy = (ptrdiff_t)(oy * s.stride_height + ky * s.dilation_height) - s.pad_top;
                                const ptrdiff_t ix = (ptrdiff_t)(ox * s.stride_width + kx * s.dilation_width) - s.pad_left;
                                if (iy < 0 || iy >= (ptrdiff_t)s.input_height || ix < 0 || ix >= (ptrdiff_t)s.input_width)
                                    continue;
                                const uint8_t byte =
                                    input[((b * s.input_height + (size_t)iy) * s.input_width + (size_t)ix) * c + j];
                                const int32_t x = is_signed ? (int8_t)byte : byte;
                                sum += (uint32_t)((x - s.input_zero_point) * w[(ky * s.filter_width + kx) * c + j]);
                            }
                        }
                        acc[j] = (int32_t)sum;
                    }
                    omk_requantize_i32(acc, c, bias, m, sh, g, s.output_zero_point, s.output_min, s.output_max);
                    for (size_t j = 0; j < c; j++) want[(r * s.output_width + ox) * c + j] = (uint8_t)acc[j];
                }
            }
            free(acc);
        }
        cases++;
        // A kernel that declines parameters generated inside its documented range fails too.
        failed += !ok || memcmp(got, want, out_bytes) != 0;
        free(input); free(w); free(bias); free(m); free(sh); free(g); free(packed); free(got); free(want);
    }
    char op[40];
    snprintf(op, sizeof op, "q8_dwconv (kernel %d)", kernel);
    result(name, op, cases, failed);
}

void test_q8_dwconv(const char *name, const omk_kernel_table *t) {
    if (t->q8_dwconv_kernel) test_dwconv_kernel(name, t->q8_dwconv_kernel);
    if (t->q8_dwconv_fallback) test_dwconv_kernel(name, t->q8_dwconv_fallback);
}

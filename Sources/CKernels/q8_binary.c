#include "CKernels.h"

#include <string.h>

#include "q8_add_stage.h"

// 8-bit quantized ADD and MUL as the vector blocks of LiteRT's optimized kernels run them on x86
// (NEON through NEON_2_SSE), with the operand layouts of its broadcasts: same-shape runs, a first
// operand repeated for every run (`BinaryBroadcastFiveFold` with an inner dimension), or one scalar
// per run (`AddScalarBroadcast` / `MulSimpleBroadcast`). Lane by lane the integers of Swift's
// `QuantizedBinaryParams` lane functions (`addBlockInt8`, `addBlockShiftAfter`, `multiplyBlock`);
// every lane is independent, so the vector width does not change a result. The caller keeps
// LiteRT's block/tail split (its scalar tail rounds differently) and passes only block lanes.

typedef omk_q8_add_stage add_stage;

#if defined(__aarch64__)
#include <arm_neon.h>

#include "kernels_arm.h"

// ---------------------------------------------------------------- NEON: 8 lanes (LiteRT's own instructions)

typedef struct {
    int32x4_t off1, mul1, off2, mul2, out_mult, mask, half, right, zp, lower, upper, act_min, act_max;
    int32x4_t pre1_l, pre1_r, post1_l, post1_r, pre2_l, pre2_r, post2_l, post2_r, product_left;
} consts4;

/// `vshlq_s32` left (wrapping) then right (negative amount: arithmetic, truncating).
static inline int32x4_t stage4(int32x4_t x, int32x4_t off, int32x4_t mul, int32x4_t pre_l, int32x4_t pre_r,
                               int32x4_t post_l, int32x4_t post_r) {
    int32x4_t v = vshlq_s32(vshlq_s32(vaddq_s32(x, off), pre_l), pre_r);
    v = vqrdmulhq_s32(v, mul);
    return vshlq_s32(vshlq_s32(v, post_l), post_r);
}

static inline int32x4_t first4(int32x4_t x, int formula, const consts4 *c) {
    if (formula >= OMK_Q8_MUL_SATURATING) return vaddq_s32(x, c->off1);
    return stage4(x, c->off1, c->mul1, c->pre1_l, c->pre1_r, c->post1_l, c->post1_r);
}

static inline int32x4_t lanes4(int32x4_t u, int32x4_t y, int formula, const consts4 *c) {
    int32x4_t v;
    if (formula >= OMK_Q8_MUL_SATURATING) {
        v = vshlq_s32(vmulq_s32(u, vaddq_s32(y, c->off2)), c->product_left);
    } else {
        v = vaddq_s32(u, stage4(y, c->off2, c->mul2, c->pre2_l, c->pre2_r, c->post2_l, c->post2_r));
    }
    const int32x4_t high = vqrdmulhq_s32(v, c->out_mult);
    // RoundingDivideByPOT: x >> e, plus one when the remainder exceeds half (ties away from zero).
    const int32x4_t threshold = vsubq_s32(c->half, vreinterpretq_s32_u32(vcltzq_s32(high)));
    const int32x4_t up = vreinterpretq_s32_u32(vcgtq_s32(vandq_s32(high, c->mask), threshold));
    int32x4_t r = vsubq_s32(vshlq_s32(high, c->right), up);
    if (formula == OMK_Q8_MUL_SATURATING) r = vminq_s32(vmaxq_s32(r, vdupq_n_s32(-32768)), vdupq_n_s32(32767));
    // The zero point is added in int16 lanes (wrapping), then saturated to the element type.
    r = vshrq_n_s32(vshlq_n_s32(vaddq_s32(r, c->zp), 16), 16);
    r = vminq_s32(vmaxq_s32(r, c->lower), c->upper);
    return vminq_s32(vmaxq_s32(r, c->act_min), c->act_max);
}

static inline void widen8x(uint8x8_t bytes, int is_signed, int32x4_t *lo, int32x4_t *hi) {
    const int16x8_t h = is_signed ? vmovl_s8(vreinterpret_s8_u8(bytes)) : vreinterpretq_s16_u16(vmovl_u8(bytes));
    *lo = vmovl_s16(vget_low_s16(h));
    *hi = vmovl_high_s16(h);
}

static inline uint8x8_t narrow8x(int32x4_t lo, int32x4_t hi) {
    return vreinterpret_u8_s8(vmovn_s16(vcombine_s16(vmovn_s32(lo), vmovn_s32(hi))));
}

static inline __attribute__((always_inline)) void binary_neon(const omk_q8_binary_params *p, int formula, int is_signed, const uint8_t *a,
                               const uint8_t *b, uint8_t *out, size_t lanes, size_t runs, size_t stride,
                               int a_scalar) {
    const omk_q8_add_params *q = &p->q;
    const int combined = formula == OMK_Q8_ADD_COMBINED;
    const add_stage s1 = omk_q8_add_input(q->input1_offset, q->input1_multiplier, q->input1_shift, q->left_shift, combined);
    const add_stage s2 = omk_q8_add_input(q->input2_offset, q->input2_multiplier, q->input2_shift, q->left_shift, combined);
    const int32_t exponent = q->output_shift < 0 ? -q->output_shift : 0;
    const int32_t pot_mask = (int32_t)(((int64_t)1 << exponent) - 1);
    consts4 c;
    c.off1 = vdupq_n_s32(s1.offset);
    c.mul1 = vdupq_n_s32(s1.multiplier);
    c.off2 = vdupq_n_s32(s2.offset);
    c.mul2 = vdupq_n_s32(s2.multiplier);
    c.pre1_l = vdupq_n_s32(s1.pre_left);
    c.pre1_r = vdupq_n_s32(-s1.pre_right);
    c.post1_l = vdupq_n_s32(s1.post_left);
    c.post1_r = vdupq_n_s32(-s1.post_right);
    c.pre2_l = vdupq_n_s32(s2.pre_left);
    c.pre2_r = vdupq_n_s32(-s2.pre_right);
    c.post2_l = vdupq_n_s32(s2.post_left);
    c.post2_r = vdupq_n_s32(-s2.post_right);
    c.product_left = vdupq_n_s32(q->output_shift > 0 ? q->output_shift & 31 : 0);
    c.right = vdupq_n_s32(-exponent);
    c.out_mult = vdupq_n_s32(q->output_multiplier);
    c.mask = vdupq_n_s32(pot_mask);
    c.half = vdupq_n_s32(pot_mask >> 1);
    c.zp = vdupq_n_s32(q->output_offset);
    c.lower = vdupq_n_s32(is_signed ? -128 : 0);
    c.upper = vdupq_n_s32(is_signed ? 127 : 255);
    c.act_min = vdupq_n_s32(q->activation_min);
    c.act_max = vdupq_n_s32(q->activation_max);
    for (size_t r = 0; r < runs; r++) {
        const uint8_t *pb = b + r * stride;
        uint8_t *po = out + r * stride;
        int32x4_t u0 = vdupq_n_s32(0), u1 = u0, x0, x1, y0, y1;
        if (a_scalar) {
            widen8x(vdup_n_u8(a[r]), is_signed, &x0, &x1);
            u0 = u1 = first4(x0, formula, &c);
        }
        for (size_t i = 0; i < lanes; i += 8) {
            const size_t n = lanes - i < 8 ? lanes - i : 8;
            uint8_t ta[8] = {0}, tb[8] = {0}, to[8];
            if (!a_scalar) memcpy(ta, a + i, n);
            memcpy(tb, pb + i, n);
            if (!a_scalar) {
                widen8x(vld1_u8(ta), is_signed, &x0, &x1);
                u0 = first4(x0, formula, &c);
                u1 = first4(x1, formula, &c);
            }
            widen8x(vld1_u8(tb), is_signed, &y0, &y1);
            vst1_u8(to, narrow8x(lanes4(u0, y0, formula, &c), lanes4(u1, y1, formula, &c)));
            memcpy(po + i, to, n);
        }
    }
}

void omk_q8_binary_neon(const omk_q8_binary_params *p, const void *a, const void *b, void *out, size_t lanes,
                        size_t runs, size_t stride, int a_scalar) {
    const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
    uint8_t *po = (uint8_t *)out;
#define OMK_CASE(F, S) binary_neon(p, F, S, pa, pb, po, lanes, runs, stride, a_scalar)
    switch (p->formula * 2 + (p->is_signed != 0)) {
    case OMK_Q8_ADD_COMBINED * 2: OMK_CASE(OMK_Q8_ADD_COMBINED, 0); break;
    case OMK_Q8_ADD_COMBINED * 2 + 1: OMK_CASE(OMK_Q8_ADD_COMBINED, 1); break;
    case OMK_Q8_ADD_SHIFT_AFTER * 2: OMK_CASE(OMK_Q8_ADD_SHIFT_AFTER, 0); break;
    case OMK_Q8_ADD_SHIFT_AFTER * 2 + 1: OMK_CASE(OMK_Q8_ADD_SHIFT_AFTER, 1); break;
    case OMK_Q8_MUL_SATURATING * 2: OMK_CASE(OMK_Q8_MUL_SATURATING, 0); break;
    case OMK_Q8_MUL_SATURATING * 2 + 1: OMK_CASE(OMK_Q8_MUL_SATURATING, 1); break;
    case OMK_Q8_MUL_TRUNCATING * 2: OMK_CASE(OMK_Q8_MUL_TRUNCATING, 0); break;
    case OMK_Q8_MUL_TRUNCATING * 2 + 1: OMK_CASE(OMK_Q8_MUL_TRUNCATING, 1); break;
    default: break;
    }
#undef OMK_CASE
}

#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "fixed_point_simd.h"

#define OMK_TARGET_512 __attribute__((target("avx512f,avx512bw,avx512vl")))
#define OMK_TARGET_256 __attribute__((target("avx2")))

/// SaturatingRoundingDoublingHighMul(a, m) for a multiplier `m` broadcast to every lane (never
/// INT32_MIN): `omk_srdhm8`'s floor((a·m + 2^30) / 2^31), with the odd lanes' products brought down by
/// a shuffle rather than a 64-bit shift (after which clang rewrote each signed multiply as three
/// unsigned ones: AVX2 ADD 0.93 -> 0.66 ns per element here), and their quotient, bits 31..62 of the
/// 64-bit sum, moved up by one left shift. (The AVX-512 loop compiles to signed multiplies as it is,
/// and is no faster with the shuffle.)
static OMK_TARGET_256 inline __m256i srdhm8(__m256i a, __m256i m) {
    const __m256i nudge = _mm256_set1_epi64x((int64_t)1 << 30);
    const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(a, m), nudge), 31);
    const __m256i odd = _mm256_slli_epi64(_mm256_add_epi64(_mm256_mul_epi32(_mm256_shuffle_epi32(a, 0xF5), m), nudge), 1);
    return _mm256_blend_epi32(even, odd, 0xAA);
}

// ---------------------------------------------------------------- AVX-512: 16 lanes

/// Everything a lane needs, broadcast once per call.
typedef struct {
    __m512i off1, mul1, off2, mul2, out_mult, mask, half, zp, lower, upper, act_min, act_max;
    __m128i pre1_l, pre1_r, post1_l, post1_r, pre2_l, pre2_r, post2_l, post2_r, product_left, exponent;
    /// The end in int16 lanes (when the activation bounds fit in int16): zero point, type and activation bounds.
    __m256i zp16, lower16, upper16, act_min16, act_max16;
    int narrow16;
} consts16;

/// `add_input` leaves the shifts after the multiply at 0 for the combined formula and the right
/// shift before it at 0 for the other, so those are not applied.
static OMK_TARGET_512 inline __m512i stage16(__m512i x, int formula, __m512i off, __m512i mul, __m128i pre_l,
                                             __m128i pre_r, __m128i post_l, __m128i post_r) {
    __m512i v = _mm512_sll_epi32(_mm512_add_epi32(x, off), pre_l);
    if (formula == OMK_Q8_ADD_COMBINED) return omk_srdhm16(_mm512_sra_epi32(v, pre_r), mul);
    return _mm512_sra_epi32(_mm512_sll_epi32(omk_srdhm16(v, mul), post_l), post_r);
}

/// The first input's contribution: the ADD stage of input 1, or MUL's offset input 1.
static OMK_TARGET_512 inline __m512i first16(__m512i x, int formula, const consts16 *c) {
    if (formula >= OMK_Q8_MUL_SATURATING) return _mm512_add_epi32(x, c->off1);
    return stage16(x, formula, c->off1, c->mul1, c->pre1_l, c->pre1_r, c->post1_l, c->post1_r);
}

/// Sixteen output bytes from the first input's contribution `u` and the second input's values `y`.
static OMK_TARGET_512 inline __m128i lanes16(__m512i u, __m512i y, int formula, const consts16 *c) {
    __m512i v;
    if (formula >= OMK_Q8_MUL_SATURATING) {
        v = _mm512_sll_epi32(_mm512_mullo_epi32(u, _mm512_add_epi32(y, c->off2)), c->product_left);
    } else {
        v = _mm512_add_epi32(u, stage16(y, formula, c->off2, c->mul2, c->pre2_l, c->pre2_r, c->post2_l, c->post2_r));
    }
    const __m512i high = omk_srdhm16(v, c->out_mult);
    // RoundingDivideByPOT: x >> e, plus one when the remainder exceeds half (ties away from zero).
    const __m512i one = _mm512_set1_epi32(1);
    const __mmask16 negative = _mm512_cmplt_epi32_mask(high, _mm512_setzero_si512());
    const __m512i threshold = _mm512_mask_add_epi32(c->half, negative, c->half, one);
    const __mmask16 up = _mm512_cmpgt_epi32_mask(_mm512_and_si512(high, c->mask), threshold);
    const __m512i shifted = _mm512_sra_epi32(high, c->exponent);
    __m512i r = _mm512_mask_add_epi32(shifted, up, shifted, one);
    if (c->narrow16) {
        // To int16 (saturating, or keeping the low half), the zero point added in int16 lanes
        // (wrapping), then the clamps on 16-bit lanes: the same values, half as many vector bytes.
        __m256i h = formula == OMK_Q8_MUL_SATURATING ? _mm512_cvtsepi32_epi16(r) : _mm512_cvtepi32_epi16(r);
        h = _mm256_add_epi16(h, c->zp16);
        h = _mm256_min_epi16(_mm256_max_epi16(h, c->lower16), c->upper16);
        h = _mm256_min_epi16(_mm256_max_epi16(h, c->act_min16), c->act_max16);
        return _mm256_cvtepi16_epi8(h);
    }
    if (formula == OMK_Q8_MUL_SATURATING) {
        r = _mm512_min_epi32(_mm512_max_epi32(r, _mm512_set1_epi32(-32768)), _mm512_set1_epi32(32767));
    }
    // The zero point is added in int16 lanes (wrapping), then saturated to the element type.
    r = _mm512_srai_epi32(_mm512_slli_epi32(_mm512_add_epi32(r, c->zp), 16), 16);
    r = _mm512_min_epi32(_mm512_max_epi32(r, c->lower), c->upper);
    return _mm512_cvtepi32_epi8(_mm512_min_epi32(_mm512_max_epi32(r, c->act_min), c->act_max));
}

static OMK_TARGET_512 inline __m512i widen16(__m128i bytes, int is_signed) {
    return is_signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
}

/// The loop for one formula and element type (constant-folded by the callers below).
static OMK_TARGET_512 inline __attribute__((always_inline)) void binary16(const omk_q8_binary_params *p, int formula, int is_signed,
                                           const uint8_t *a, const uint8_t *b, uint8_t *out, size_t lanes,
                                           size_t runs, size_t stride, int a_scalar) {
    const omk_q8_add_params *q = &p->q;
    const int combined = formula == OMK_Q8_ADD_COMBINED;
    const add_stage s1 = omk_q8_add_input(q->input1_offset, q->input1_multiplier, q->input1_shift, q->left_shift, combined);
    const add_stage s2 = omk_q8_add_input(q->input2_offset, q->input2_multiplier, q->input2_shift, q->left_shift, combined);
    const int32_t exponent = q->output_shift < 0 ? -q->output_shift : 0;
    const int32_t pot_mask = (int32_t)(((int64_t)1 << exponent) - 1);
    consts16 c;
    c.off1 = _mm512_set1_epi32(s1.offset);
    c.mul1 = _mm512_set1_epi32(s1.multiplier);
    c.off2 = _mm512_set1_epi32(s2.offset);
    c.mul2 = _mm512_set1_epi32(s2.multiplier);
    c.pre1_l = _mm_cvtsi32_si128(s1.pre_left);
    c.pre1_r = _mm_cvtsi32_si128(s1.pre_right);
    c.post1_l = _mm_cvtsi32_si128(s1.post_left);
    c.post1_r = _mm_cvtsi32_si128(s1.post_right);
    c.pre2_l = _mm_cvtsi32_si128(s2.pre_left);
    c.pre2_r = _mm_cvtsi32_si128(s2.pre_right);
    c.post2_l = _mm_cvtsi32_si128(s2.post_left);
    c.post2_r = _mm_cvtsi32_si128(s2.post_right);
    c.product_left = _mm_cvtsi32_si128(q->output_shift > 0 ? q->output_shift & 31 : 0);
    c.exponent = _mm_cvtsi32_si128(exponent);
    c.out_mult = _mm512_set1_epi32(q->output_multiplier);
    c.mask = _mm512_set1_epi32(pot_mask);
    c.half = _mm512_set1_epi32(pot_mask >> 1);
    c.zp = _mm512_set1_epi32(q->output_offset);
    c.lower = _mm512_set1_epi32(is_signed ? -128 : 0);
    c.upper = _mm512_set1_epi32(is_signed ? 127 : 255);
    c.act_min = _mm512_set1_epi32(q->activation_min);
    c.act_max = _mm512_set1_epi32(q->activation_max);
    c.narrow16 = q->activation_min >= -32768 && q->activation_min <= 32767 && q->activation_max >= -32768 &&
                 q->activation_max <= 32767;
    c.zp16 = _mm256_set1_epi16((short)q->output_offset);
    c.lower16 = _mm256_set1_epi16(is_signed ? -128 : 0);
    c.upper16 = _mm256_set1_epi16(is_signed ? 127 : 255);
    c.act_min16 = _mm256_set1_epi16((short)q->activation_min);
    c.act_max16 = _mm256_set1_epi16((short)q->activation_max);
    for (size_t r = 0; r < runs; r++) {
        const uint8_t *pb = b + r * stride;
        uint8_t *po = out + r * stride;
        __m512i u = _mm512_setzero_si512();
        if (a_scalar) u = first16(widen16(_mm_set1_epi8((char)a[r]), is_signed), formula, &c);
        size_t i = 0;
        for (; i + 16 <= lanes; i += 16) {
            if (!a_scalar) u = first16(widen16(_mm_loadu_si128((const __m128i *)(a + i)), is_signed), formula, &c);
            const __m512i y = widen16(_mm_loadu_si128((const __m128i *)(pb + i)), is_signed);
            _mm_storeu_si128((__m128i *)(po + i), lanes16(u, y, formula, &c));
        }
        if (i < lanes) {
            const __mmask16 m = (__mmask16)((1u << (lanes - i)) - 1);
            if (!a_scalar) u = first16(widen16(_mm_maskz_loadu_epi8(m, a + i), is_signed), formula, &c);
            const __m512i y = widen16(_mm_maskz_loadu_epi8(m, pb + i), is_signed);
            _mm_mask_storeu_epi8(po + i, m, lanes16(u, y, formula, &c));
        }
    }
}

OMK_TARGET_512 void omk_q8_binary_avx512(const omk_q8_binary_params *p, const void *a, const void *b, void *out,
                                         size_t lanes, size_t runs, size_t stride, int a_scalar) {
    const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
    uint8_t *po = (uint8_t *)out;
    // One instance per formula and type, so the per-lane branches fold away.
#define OMK_CASE(F, S) binary16(p, F, S, pa, pb, po, lanes, runs, stride, a_scalar)
    switch (p->formula * 2 + (p->is_signed != 0)) {
    case OMK_Q8_ADD_COMBINED * 2: OMK_CASE(OMK_Q8_ADD_COMBINED, 0); break;
    case OMK_Q8_ADD_COMBINED * 2 + 1: OMK_CASE(OMK_Q8_ADD_COMBINED, 1); break;
    case OMK_Q8_ADD_SHIFT_AFTER * 2: OMK_CASE(OMK_Q8_ADD_SHIFT_AFTER, 0); break;
    case OMK_Q8_ADD_SHIFT_AFTER * 2 + 1: OMK_CASE(OMK_Q8_ADD_SHIFT_AFTER, 1); break;
    case OMK_Q8_MUL_SATURATING * 2: OMK_CASE(OMK_Q8_MUL_SATURATING, 0); break;
    case OMK_Q8_MUL_SATURATING * 2 + 1: OMK_CASE(OMK_Q8_MUL_SATURATING, 1); break;
    case OMK_Q8_MUL_TRUNCATING * 2: OMK_CASE(OMK_Q8_MUL_TRUNCATING, 0); break;
    case OMK_Q8_MUL_TRUNCATING * 2 + 1: OMK_CASE(OMK_Q8_MUL_TRUNCATING, 1); break;
    default: break;
    }
#undef OMK_CASE
}

// ---------------------------------------------------------------- AVX2: 8 lanes

typedef struct {
    __m256i off1, mul1, off2, mul2, out_mult, mask, half, zp, lower, upper, act_min, act_max;
    __m128i pre1_l, pre1_r, post1_l, post1_r, pre2_l, pre2_r, post2_l, post2_r, product_left, exponent;
} consts8;

static OMK_TARGET_256 inline __m256i stage8(__m256i x, int formula, __m256i off, __m256i mul, __m128i pre_l,
                                            __m128i pre_r, __m128i post_l, __m128i post_r) {
    __m256i v = _mm256_sll_epi32(_mm256_add_epi32(x, off), pre_l);
    if (formula == OMK_Q8_ADD_COMBINED) return srdhm8(_mm256_sra_epi32(v, pre_r), mul);
    return _mm256_sra_epi32(_mm256_sll_epi32(srdhm8(v, mul), post_l), post_r);
}

static OMK_TARGET_256 inline __m256i first8(__m256i x, int formula, const consts8 *c) {
    if (formula >= OMK_Q8_MUL_SATURATING) return _mm256_add_epi32(x, c->off1);
    return stage8(x, formula, c->off1, c->mul1, c->pre1_l, c->pre1_r, c->post1_l, c->post1_r);
}

static OMK_TARGET_256 inline __m256i lanes8(__m256i u, __m256i y, int formula, const consts8 *c) {
    __m256i v;
    if (formula >= OMK_Q8_MUL_SATURATING) {
        v = _mm256_sll_epi32(_mm256_mullo_epi32(u, _mm256_add_epi32(y, c->off2)), c->product_left);
    } else {
        v = _mm256_add_epi32(u, stage8(y, formula, c->off2, c->mul2, c->pre2_l, c->pre2_r, c->post2_l, c->post2_r));
    }
    const __m256i high = srdhm8(v, c->out_mult);
    const __m256i threshold = _mm256_sub_epi32(c->half, _mm256_cmpgt_epi32(_mm256_setzero_si256(), high));
    const __m256i up = _mm256_cmpgt_epi32(_mm256_and_si256(high, c->mask), threshold);
    __m256i r = _mm256_sub_epi32(_mm256_sra_epi32(high, c->exponent), up);
    if (formula == OMK_Q8_MUL_SATURATING) {
        r = _mm256_min_epi32(_mm256_max_epi32(r, _mm256_set1_epi32(-32768)), _mm256_set1_epi32(32767));
    }
    r = _mm256_srai_epi32(_mm256_slli_epi32(_mm256_add_epi32(r, c->zp), 16), 16);
    r = _mm256_min_epi32(_mm256_max_epi32(r, c->lower), c->upper);
    return _mm256_min_epi32(_mm256_max_epi32(r, c->act_min), c->act_max);
}

static OMK_TARGET_256 inline __m256i widen8(__m128i bytes, int is_signed) {
    return is_signed ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
}

/// The low byte of each of eight int32 lanes (as Swift's `truncatingIfNeeded`), in the low 8 bytes.
static OMK_TARGET_256 inline __m128i narrow8(__m256i r) {
    r = _mm256_and_si256(r, _mm256_set1_epi32(0xFF));
    const __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    return _mm_packus_epi16(words, words);
}

static OMK_TARGET_256 inline __attribute__((always_inline)) void binary8(const omk_q8_binary_params *p, int formula, int is_signed,
                                          const uint8_t *a, const uint8_t *b, uint8_t *out, size_t lanes,
                                          size_t runs, size_t stride, int a_scalar) {
    const omk_q8_add_params *q = &p->q;
    const int combined = formula == OMK_Q8_ADD_COMBINED;
    const add_stage s1 = omk_q8_add_input(q->input1_offset, q->input1_multiplier, q->input1_shift, q->left_shift, combined);
    const add_stage s2 = omk_q8_add_input(q->input2_offset, q->input2_multiplier, q->input2_shift, q->left_shift, combined);
    const int32_t exponent = q->output_shift < 0 ? -q->output_shift : 0;
    const int32_t pot_mask = (int32_t)(((int64_t)1 << exponent) - 1);
    consts8 c;
    c.off1 = _mm256_set1_epi32(s1.offset);
    c.mul1 = _mm256_set1_epi32(s1.multiplier);
    c.off2 = _mm256_set1_epi32(s2.offset);
    c.mul2 = _mm256_set1_epi32(s2.multiplier);
    c.pre1_l = _mm_cvtsi32_si128(s1.pre_left);
    c.pre1_r = _mm_cvtsi32_si128(s1.pre_right);
    c.post1_l = _mm_cvtsi32_si128(s1.post_left);
    c.post1_r = _mm_cvtsi32_si128(s1.post_right);
    c.pre2_l = _mm_cvtsi32_si128(s2.pre_left);
    c.pre2_r = _mm_cvtsi32_si128(s2.pre_right);
    c.post2_l = _mm_cvtsi32_si128(s2.post_left);
    c.post2_r = _mm_cvtsi32_si128(s2.post_right);
    c.product_left = _mm_cvtsi32_si128(q->output_shift > 0 ? q->output_shift & 31 : 0);
    c.exponent = _mm_cvtsi32_si128(exponent);
    c.out_mult = _mm256_set1_epi32(q->output_multiplier);
    c.mask = _mm256_set1_epi32(pot_mask);
    c.half = _mm256_set1_epi32(pot_mask >> 1);
    c.zp = _mm256_set1_epi32(q->output_offset);
    c.lower = _mm256_set1_epi32(is_signed ? -128 : 0);
    c.upper = _mm256_set1_epi32(is_signed ? 127 : 255);
    c.act_min = _mm256_set1_epi32(q->activation_min);
    c.act_max = _mm256_set1_epi32(q->activation_max);
    for (size_t r = 0; r < runs; r++) {
        const uint8_t *pb = b + r * stride;
        uint8_t *po = out + r * stride;
        __m256i u = _mm256_setzero_si256();
        if (a_scalar) u = first8(widen8(_mm_set1_epi8((char)a[r]), is_signed), formula, &c);
        size_t i = 0;
        for (; i + 8 <= lanes; i += 8) {
            if (!a_scalar) u = first8(widen8(_mm_loadl_epi64((const __m128i *)(a + i)), is_signed), formula, &c);
            const __m256i y = widen8(_mm_loadl_epi64((const __m128i *)(pb + i)), is_signed);
            _mm_storel_epi64((__m128i *)(po + i), narrow8(lanes8(u, y, formula, &c)));
        }
        if (i < lanes) {
            const size_t n = lanes - i;
            uint8_t ta[8] = {0}, tb[8] = {0}, to[8];
            if (!a_scalar) memcpy(ta, a + i, n);
            memcpy(tb, pb + i, n);
            if (!a_scalar) u = first8(widen8(_mm_loadl_epi64((const __m128i *)ta), is_signed), formula, &c);
            const __m256i y = widen8(_mm_loadl_epi64((const __m128i *)tb), is_signed);
            _mm_storel_epi64((__m128i *)to, narrow8(lanes8(u, y, formula, &c)));
            memcpy(po + i, to, n);
        }
    }
}

OMK_TARGET_256 void omk_q8_binary_avx2(const omk_q8_binary_params *p, const void *a, const void *b, void *out,
                                       size_t lanes, size_t runs, size_t stride, int a_scalar) {
    const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
    uint8_t *po = (uint8_t *)out;
#define OMK_CASE(F, S) binary8(p, F, S, pa, pb, po, lanes, runs, stride, a_scalar)
    switch (p->formula * 2 + (p->is_signed != 0)) {
    case OMK_Q8_ADD_COMBINED * 2: OMK_CASE(OMK_Q8_ADD_COMBINED, 0); break;
    case OMK_Q8_ADD_COMBINED * 2 + 1: OMK_CASE(OMK_Q8_ADD_COMBINED, 1); break;
    case OMK_Q8_ADD_SHIFT_AFTER * 2: OMK_CASE(OMK_Q8_ADD_SHIFT_AFTER, 0); break;
    case OMK_Q8_ADD_SHIFT_AFTER * 2 + 1: OMK_CASE(OMK_Q8_ADD_SHIFT_AFTER, 1); break;
    case OMK_Q8_MUL_SATURATING * 2: OMK_CASE(OMK_Q8_MUL_SATURATING, 0); break;
    case OMK_Q8_MUL_SATURATING * 2 + 1: OMK_CASE(OMK_Q8_MUL_SATURATING, 1); break;
    case OMK_Q8_MUL_TRUNCATING * 2: OMK_CASE(OMK_Q8_MUL_TRUNCATING, 0); break;
    case OMK_Q8_MUL_TRUNCATING * 2 + 1: OMK_CASE(OMK_Q8_MUL_TRUNCATING, 1); break;
    default: break;
    }
#undef OMK_CASE
}

#else

void omk_q8_binary_avx512(const omk_q8_binary_params *p, const void *a, const void *b, void *out, size_t lanes,
                          size_t runs, size_t stride, int a_scalar) {
    (void)p; (void)a; (void)b; (void)out; (void)lanes; (void)runs; (void)stride; (void)a_scalar;
}

void omk_q8_binary_avx2(const omk_q8_binary_params *p, const void *a, const void *b, void *out, size_t lanes,
                        size_t runs, size_t stride, int a_scalar) {
    (void)p; (void)a; (void)b; (void)out; (void)lanes; (void)runs; (void)stride; (void)a_scalar;
}

#endif

#include "kernels_arm.h"

// omk_requantize_i32 four channels at a time on aarch64 NEON, the same integers lane by lane (and
// the byte-storing stages of omk_requantize_i32_to_8_avx512 / omk_requantize_gemm_to_8_avx512):
// `vqrdmulhq_s32` is gemmlowp's SaturatingRoundingDoublingHighMul exactly (saturation included),
// the reference rounding is RoundingDivideByPOT written out (mask, remainder, threshold), and the
// GEMM variant's round-half-up shift is SRSHL, which rounds without intermediate overflow.

#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>

/// RoundingDivideByPOT(x, e) per lane for e in [0, 31]: (x >> e) + (remainder > threshold).
static inline int32x4_t rounding_divide_by_pot(int32x4_t x, int32x4_t e) {
    const int32x4_t one = vdupq_n_s32(1);
    const int32x4_t mask = vsubq_s32(vshlq_s32(one, e), one);
    const int32x4_t remainder = vandq_s32(x, mask);
    // threshold = (mask >> 1) + (x < 0): the comparison is all ones (−1) for negative x.
    const int32x4_t threshold = vsubq_s32(vshrq_n_s32(mask, 1), vreinterpretq_s32_u32(vcltzq_s32(x)));
    const int32x4_t up = vreinterpretq_s32_u32(vcgtq_s32(remainder, threshold));
    return vsubq_s32(vshlq_s32(x, vnegq_s32(e)), up);
}

/// Four channels starting at `c` (all loads in bounds).
static inline int32x4_t stage4(int32x4_t acc, const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                               const uint8_t *gemm_rounding, int32x4_t zp, int32x4_t lo, int32x4_t hi) {
    const int32x4_t x = vaddq_s32(acc, vld1q_s32(bias));
    const int32x4_t s = vld1q_s32(shift), zero = vdupq_n_s32(0), m = vld1q_s32(multiplier);
    const int32x4_t left = vmaxq_s32(s, zero), right = vmaxq_s32(vnegq_s32(s), zero);
    uint32_t flags;
    memcpy(&flags, gemm_rounding, 4);
    const uint8x8_t bytes = vreinterpret_u8_u32(vdup_n_u32(flags));
    // All-ones bytes for the GEMM channels, sign-extended to all-ones lanes.
    const int8x8_t ones = vreinterpret_s8_u8(vtst_u8(bytes, bytes));
    const uint32x4_t gemm = vreinterpretq_u32_s32(vmovl_s16(vget_low_s16(vmovl_s8(ones))));
    // GEMM rounding: high(x << (left & 31), m), then (high + 2^(right − 1)) >> right.
    const int32x4_t g_high = vqrdmulhq_s32(vshlq_s32(x, vandq_s32(left, vdupq_n_s32(31))), m);
    const int32x4_t g = vrshlq_s32(g_high, vnegq_s32(right));
    // Reference rounding: a left shift of 32 or more gives 0 (vshl by 32 does; larger is capped).
    const int32x4_t r_high = vqrdmulhq_s32(vshlq_s32(x, vminq_s32(left, vdupq_n_s32(32))), m);
    const int32x4_t r = rounding_divide_by_pot(r_high, right);
    const int32x4_t v = vaddq_s32(vbslq_s32(gemm, g, r), zp);
    return vminq_s32(vmaxq_s32(v, lo), hi);
}

void omk_requantize_i32_neon(int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                             int32_t hi) {
    const int32x4_t zp = vdupq_n_s32(zero_point), vlo = vdupq_n_s32(lo), vhi = vdupq_n_s32(hi);
    size_t c = 0;
    for (; c + 4 <= count; c += 4) {
        vst1q_s32(acc + c, stage4(vld1q_s32(acc + c), bias + c, multiplier + c, shift + c, gemm_rounding + c, zp, vlo,
                                  vhi));
    }
    if (c < count) {
        // The last 1...3 channels through a zero-padded copy (no load or store past the arrays).
        const size_t n = count - c;
        int32_t a[4] = {0}, b[4] = {0}, m[4] = {0}, s[4] = {0};
        uint8_t g[4] = {0};
        memcpy(a, acc + c, n * 4);
        memcpy(b, bias + c, n * 4);
        memcpy(m, multiplier + c, n * 4);
        memcpy(s, shift + c, n * 4);
        memcpy(g, gemm_rounding + c, n);
        vst1q_s32(a, stage4(vld1q_s32(a), b, m, s, g, zp, vlo, vhi));
        memcpy(acc + c, a, n * 4);
    }
}

/// The low bytes of four int32 lanes (values already clamped to an 8-bit type's range).
static inline void store4(uint8_t *out, int32x4_t v) {
    const uint8x8_t b = vreinterpret_u8_s8(vmovn_s16(vcombine_s16(vmovn_s32(v), vmovn_s32(v))));
    const uint32_t word = vget_lane_u32(vreinterpret_u32_u8(b), 0);
    memcpy(out, &word, 4);
}

void omk_requantize_i32_to_8_neon(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                  const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                                  int32_t hi, uint8_t *out) {
    const int32x4_t zp = vdupq_n_s32(zero_point), vlo = vdupq_n_s32(lo), vhi = vdupq_n_s32(hi);
    size_t c = 0;
    for (; c + 4 <= count; c += 4) {
        uint8_t b[4];
        store4(b, stage4(vld1q_s32(acc + c), bias + c, multiplier + c, shift + c, gemm_rounding + c, zp, vlo, vhi));
        memcpy(out + c, b, 4);
    }
    if (c < count) {
        const size_t n = count - c;
        int32_t a[4] = {0}, bs[4] = {0}, m[4] = {0}, s[4] = {0};
        uint8_t g[4] = {0}, b[4];
        memcpy(a, acc + c, n * 4);
        memcpy(bs, bias + c, n * 4);
        memcpy(m, multiplier + c, n * 4);
        memcpy(s, shift + c, n * 4);
        memcpy(g, gemm_rounding + c, n);
        store4(b, stage4(vld1q_s32(a), bs, m, s, g, zp, vlo, vhi));
        memcpy(out + c, b, n);
    }
}

/// Sixteen channels of the GEMM-rounding stage from the prepared parameters (see
/// omk_requantize_gemm_to_8_avx512): entries of block `base` hold the even channels' addend and
/// shift first, then the odd ones'.
static inline void gemm_stage16(const int32_t *acc, const int32_t *bias, const int32_t *multiplier,
                                const int32_t *left, const int64_t *addend, const int64_t *shift, int32x4_t zp,
                                int32x4_t lo, int32x4_t hi, uint8_t *out) {
    int32x4_t v[4];
    for (int q = 0; q < 4; q++) {
        const int32x4_t x = vshlq_s32(vaddq_s32(vld1q_s32(acc + 4 * q), vld1q_s32(bias + 4 * q)),
                                      vld1q_s32(left + 4 * q));
        const int32x4_t m = vld1q_s32(multiplier + 4 * q);
        const int64x2_t ae = vld1q_s64(addend + 2 * q), ao = vld1q_s64(addend + 8 + 2 * q);
        const int64x2_t se = vld1q_s64(shift + 2 * q), so = vld1q_s64(shift + 8 + 2 * q);
        int64x2_t l = vaddq_s64(vmull_s32(vget_low_s32(x), vget_low_s32(m)), vzip1q_s64(ae, ao));
        int64x2_t h = vaddq_s64(vmull_high_s32(x, m), vzip2q_s64(ae, ao));
        l = vshlq_s64(l, vnegq_s64(vzip1q_s64(se, so)));
        h = vshlq_s64(h, vnegq_s64(vzip2q_s64(se, so)));
        v[q] = vminq_s32(vmaxq_s32(vaddq_s32(vcombine_s32(vmovn_s64(l), vmovn_s64(h)), zp), lo), hi);
    }
    const int16x8_t h0 = vcombine_s16(vmovn_s32(v[0]), vmovn_s32(v[1]));
    const int16x8_t h1 = vcombine_s16(vmovn_s32(v[2]), vmovn_s32(v[3]));
    vst1q_u8(out, vreinterpretq_u8_s8(vcombine_s8(vmovn_s16(h0), vmovn_s16(h1))));
}

void omk_requantize_gemm_to_8_neon(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                   const int32_t *left, const int64_t *addend, const int64_t *shift,
                                   int32_t zero_point, int32_t lo, int32_t hi, uint8_t *out) {
    const int32x4_t zp = vdupq_n_s32(zero_point), vlo = vdupq_n_s32(lo), vhi = vdupq_n_s32(hi);
    size_t c = 0;
    for (; c + 16 <= count; c += 16) {
        gemm_stage16(acc + c, bias + c, multiplier + c, left + c, addend + c, shift + c, zp, vlo, vhi, out + c);
    }
    if (c < count) {
        // The last block through zero-padded copies of the accumulators and biases (the parameter
        // arrays hold whole blocks of 16).
        const size_t n = count - c;
        int32_t a[16] = {0}, b[16] = {0};
        uint8_t o[16];
        memcpy(a, acc + c, n * 4);
        memcpy(b, bias + c, n * 4);
        gemm_stage16(a, b, multiplier + c, left + c, addend + c, shift + c, zp, vlo, vhi, o);
        memcpy(out + c, o, n);
    }
}

#endif

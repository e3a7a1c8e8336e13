#include "kernels_arm.h"

// omk_requantize_i32 four channels at a time on aarch64 NEON, the same integers lane by lane:
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

#endif

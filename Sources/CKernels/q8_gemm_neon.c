#include "kernels_arm.h"

// The 8-bit GEMM with its fused output stage on aarch64: the packed weights and parameters of
// omk_q8_gemm_vnni (CKernels.h), so Swift prepares one layout for every CPU, and the same integers.
// The packing keeps 4 consecutive k of a column in one 32-bit lane, which is exactly the operand of
// the dot-product instructions: SDOT (FEAT_DotProd) multiplies signed bytes, so the activations
// go in as a − 128 and 128 · Σ w per column is added back; USDOT (FEAT_I8MM) takes the unsigned
// activations as they are, like VNNI's vpdpbusd. Plain NEON deinterleaves the 4 k (LD4) and uses
// widening multiply-adds. SMMLA/USMMLA (I8MM's 2x8 by 8x2 matrix multiply) would need a different
// packing (8 k of 2 columns per register) and are not used.
//
// Tiles are 4 rows by 16 columns (16 accumulators); the output stage is the VNNI kernel's: a
// 64-bit product of (acc + 2^31 as unsigned) and the multiplier, plus the prepared addend, shifted
// right arithmetically, then the zero point, the clamp and the low byte.

#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>

/// Loops over a tile's rows must unroll completely, so that the accumulators stay in registers.
#if defined(__clang__)
#define OMK_UNROLL _Pragma("clang loop unroll(full)")
#else
#define OMK_UNROLL _Pragma("GCC unroll 4")
#endif

/// Rows whose terms are computed together before the column groups sweep over them.
enum { ROW_BLOCK = 64 };

/// `out[0..<width]` = the output stage of one row's 16 accumulators for columns c..<c + 16.
static void finish(const omk_q8_gemm_params *p, const int32x4_t acc[4], size_t c, size_t width, uint8_t *out) {
    const int32x4_t zp = vdupq_n_s32(p->zero_point), lo = vdupq_n_s32(p->lo), hi = vdupq_n_s32(p->hi);
    // addend and shift: per block of 16, the even channels' entries, then the odd ones'.
    const size_t block = c / 64 * 64 + (c % 64) / 16 * 16;
    int32x4_t v[4];
    for (int q = 0; q < 4; q++) {
        int32x4_t x = acc[q];
        if (p->left) x = vshlq_s32(x, vld1q_s32(p->left + c + 4 * q));
        const uint32x4_t u = veorq_u32(vreinterpretq_u32_s32(x), vdupq_n_u32(0x80000000u));
        const uint32x4_t m = vreinterpretq_u32_s32(vld1q_s32(p->multiplier + c + 4 * q));
        const int64x2_t ae = vld1q_s64(p->addend + block + 2 * q), ao = vld1q_s64(p->addend + block + 8 + 2 * q);
        const int64x2_t se = vld1q_s64(p->shift + block + 2 * q), so = vld1q_s64(p->shift + block + 8 + 2 * q);
        // Lanes (c, c + 1) and (c + 2, c + 3): even and odd entries zipped back into channel order.
        int64x2_t l = vaddq_s64(vreinterpretq_s64_u64(vmull_u32(vget_low_u32(u), vget_low_u32(m))), vzip1q_s64(ae, ao));
        int64x2_t h = vaddq_s64(vreinterpretq_s64_u64(vmull_high_u32(u, m)), vzip2q_s64(ae, ao));
        l = vshlq_s64(l, vnegq_s64(vzip1q_s64(se, so)));
        h = vshlq_s64(h, vnegq_s64(vzip2q_s64(se, so)));
        const int32x4_t r = vcombine_s32(vmovn_s64(l), vmovn_s64(h));
        v[q] = vminq_s32(vmaxq_s32(vaddq_s32(r, zp), lo), hi);
    }
    // Clamped to an 8-bit type's range, the low byte is the value (int8 or uint8).
    const int16x8_t h0 = vcombine_s16(vmovn_s32(v[0]), vmovn_s32(v[1]));
    const int16x8_t h1 = vcombine_s16(vmovn_s32(v[2]), vmovn_s32(v[3]));
    const uint8x16_t bytes = vreinterpretq_u8_s8(vcombine_s8(vmovn_s16(h0), vmovn_s16(h1)));
    if (width == 16) {
        vst1q_u8(out, bytes);
    } else {
        uint8_t t[16];
        vst1q_u8(t, bytes);
        memcpy(out, t, width);
    }
}

/// `terms[r] = scale · Σ a[r][k]` (bytes as uint8, k < depth), wrapping int32.
static void row_terms(const uint8_t *a, size_t lda, size_t rows, size_t depth, int32_t scale, int32_t *terms) {
    for (size_t i = 0; i < rows; i++) {
        const uint8_t *r = a + i * lda;
        uint32x4_t s = vdupq_n_u32(0);
        size_t k = 0;
        for (; k + 16 <= depth; k += 16) s = vpadalq_u16(s, vpaddlq_u8(vld1q_u8(r + k)));
        uint32_t sum = vaddvq_u32(s);
        for (; k < depth; k++) sum += r[k];
        terms[i] = (int32_t)(sum * (uint32_t)scale);
    }
}

/// The im2col rows of output pixels `first..<first + count` (batch-major), `kp` bytes apart: each
/// tap's channels in (ky, kx) order (XOR 0x80 for int8), the input zero point (flipped alike) for a
/// tap in the padding, zeros up to `kp`: the rows omk_q8_im2col_vnni writes.
static void im2col_rows(const omk_q8_im2col_params *g, size_t first, size_t count, uint8_t *dst, size_t kp) {
    const size_t c = g->channels, line = g->input_width * c, image = g->input_height * line;
    const size_t k = g->filter_height * g->filter_width * c;
    const uint8_t flip = g->flip ? 0x80 : 0, zero = (uint8_t)(g->zero ^ flip);
    const uint8x16_t flips = vdupq_n_u8(flip);
    for (size_t t = 0; t < count; t++) {
        const size_t pixel = first + t, per_image = g->output_height * g->output_width;
        const size_t b = pixel / per_image, oy = pixel % per_image / g->output_width, ox = pixel % g->output_width;
        const ptrdiff_t iy0 = (ptrdiff_t)(oy * g->stride_height) - g->pad_top;
        const ptrdiff_t ix0 = (ptrdiff_t)(ox * g->stride_width) - g->pad_left;
        uint8_t *d = dst + t * kp;
        for (size_t ky = 0; ky < g->filter_height; ky++) {
            const ptrdiff_t iy = iy0 + (ptrdiff_t)(ky * g->dilation_height);
            for (size_t kx = 0; kx < g->filter_width; kx++, d += c) {
                const ptrdiff_t ix = ix0 + (ptrdiff_t)(kx * g->dilation_width);
                if (iy < 0 || iy >= (ptrdiff_t)g->input_height || ix < 0 || ix >= (ptrdiff_t)g->input_width) {
                    memset(d, zero, c);
                    continue;
                }
                const uint8_t *s = g->input + b * image + (size_t)iy * line + (size_t)ix * c;
                size_t i = 0;
                for (; i + 16 <= c; i += 16) vst1q_u8(d + i, veorq_u8(vld1q_u8(s + i), flips));
                for (; i < c; i++) d[i] = s[i] ^ flip;
            }
        }
        memset(dst + t * kp + k, 0, kp - k);
    }
}

#define OMK_VARIANT neon
#define OMK_VARIANT_TARGET
#define OMK_VARIANT_KIND 1
#include "q8_gemm_arm_body.h"
#undef OMK_VARIANT
#undef OMK_VARIANT_TARGET
#undef OMK_VARIANT_KIND

#define OMK_VARIANT dotprod
#define OMK_VARIANT_TARGET __attribute__((target("arch=armv8.2-a+dotprod")))
#define OMK_VARIANT_KIND 2
#include "q8_gemm_arm_body.h"
#undef OMK_VARIANT
#undef OMK_VARIANT_TARGET
#undef OMK_VARIANT_KIND

#define OMK_VARIANT i8mm
#define OMK_VARIANT_TARGET __attribute__((target("arch=armv8.2-a+dotprod+i8mm")))
#define OMK_VARIANT_KIND 3
#include "q8_gemm_arm_body.h"
#undef OMK_VARIANT
#undef OMK_VARIANT_TARGET
#undef OMK_VARIANT_KIND

#endif

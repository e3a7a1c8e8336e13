// The NEON row kernel of q8_dwconv.c (kernel 2): 16-channel blocks, widened bytes times int16
// weights with SMLAL, then the AVX2 kernel's output stage per channel (see dw_channel_params): the
// 64-bit product plus an addend offset by 2^62, a logical shift, the zero point adjusted for that
// offset, saturating narrows to 16 and 8 bits, and the clamp on bytes.

#include "q8_dwconv.h"

#if defined(__aarch64__)
#include <arm_neon.h>

/// 16 bytes of one pixel's channels c0..c0 + n (a zero-padded copy when n < 16), widened.
static inline int16x8x2_t load_pixel(const uint8_t *p, size_t n, int is_signed) {
    uint8x16_t b;
    if (n == 16) {
        b = vld1q_u8(p);
    } else {
        uint8_t t[16] = {0};
        memcpy(t, p, n);
        b = vld1q_u8(t);
    }
    int16x8x2_t r;
    if (is_signed) {
        r.val[0] = vmovl_s8(vget_low_s8(vreinterpretq_s8_u8(b)));
        r.val[1] = vmovl_high_s8(vreinterpretq_s8_u8(b));
    } else {
        r.val[0] = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(b)));
        r.val[1] = vreinterpretq_s16_u16(vmovl_high_u8(b));
    }
    return r;
}

/// The output stage of 4 lanes (parameters at lane offset `j` of the block's arrays).
static inline int32x4_t stage4(int32x4_t x, const uint8_t *params, size_t j, int has_left, int has_negfix) {
    const int32_t *mult = (const int32_t *)params + 16, *left = mult + 16, *zp = left + 16;
    const int64_t *addend = (const int64_t *)(zp + 16), *shift = addend + 16, *negfix = shift + 16;
    if (has_left) x = vshlq_s32(x, vld1q_s32(left + j));
    const int32x4_t m = vld1q_s32(mult + j);
    const int64x2_t p0 = vmull_s32(vget_low_s32(x), vget_low_s32(m)), p1 = vmull_high_s32(x, m);
    // Every sum lies in [0, 2^64) (the addend carries 2^62): unsigned arithmetic, logical shift.
    uint64x2_t t0 = vaddq_u64(vreinterpretq_u64_s64(p0), vreinterpretq_u64_s64(vld1q_s64(addend + j)));
    uint64x2_t t1 = vaddq_u64(vreinterpretq_u64_s64(p1), vreinterpretq_u64_s64(vld1q_s64(addend + j + 2)));
    if (has_negfix) {
        const int64x2_t limit = vdupq_n_s64(-((int64_t)1 << 30));
        t0 = vsubq_u64(t0, vandq_u64(vcltq_s64(p0, limit), vreinterpretq_u64_s64(vld1q_s64(negfix + j))));
        t1 = vsubq_u64(t1, vandq_u64(vcltq_s64(p1, limit), vreinterpretq_u64_s64(vld1q_s64(negfix + j + 2))));
    }
    t0 = vshlq_u64(t0, vnegq_s64(vld1q_s64(shift + j)));
    t1 = vshlq_u64(t1, vnegq_s64(vld1q_s64(shift + j + 2)));
    const int32x4_t r = vreinterpretq_s32_u32(vcombine_u32(vmovn_u64(t0), vmovn_u64(t1)));
    return vaddq_s32(r, vld1q_s32(zp + j));
}

void omk_q8_dwconv_rows_neon(const omk_q8_dwconv_shape *s, const dw_header *h, const uint8_t *packed,
                             const uint8_t *input, uint8_t *output, size_t first, size_t end) {
    const size_t channels = s->channels, kh = s->filter_height, kw = s->filter_width;
    const size_t blocks = (channels + 15) / 16, block_bytes = dw_neon_block_bytes(s);
    const size_t line = s->input_width * channels, image = s->input_height * line;
    const int is_signed = s->activations_signed, has_left = h->has_left, has_negfix = h->has_negfix;
    uint8_t zero_bytes[16];
    memset(zero_bytes, (int)(uint8_t)s->input_zero_point, sizeof zero_bytes);
    // A tap in the padding reads the input zero point (its share came off the bias when packing).
    const int16x8x2_t padding = load_pixel(zero_bytes, 16, is_signed);
    for (size_t row = first; row < end; row++) {
        const size_t batch = row / s->output_height, oy = row % s->output_height;
        const uint8_t *img = input + batch * image;
        const ptrdiff_t iy0 = (ptrdiff_t)(oy * s->stride_height) - s->pad_top;
        uint8_t *out_row = output + row * s->output_width * channels;
        for (size_t ox = 0; ox < s->output_width; ox++) {
            const ptrdiff_t ix0 = (ptrdiff_t)(ox * s->stride_width) - s->pad_left;
            for (size_t b = 0; b < blocks; b++) {
                const size_t c0 = b * 16, n = channels - c0 < 16 ? channels - c0 : 16;
                const uint8_t *params = packed + b * block_bytes;
                const int16_t *w = (const int16_t *)(params + DW_NEON_PARAM_BYTES);
                const int32_t *bias = (const int32_t *)params;
                int32x4_t a0 = vld1q_s32(bias), a1 = vld1q_s32(bias + 4);
                int32x4_t a2 = vld1q_s32(bias + 8), a3 = vld1q_s32(bias + 12);
                for (size_t ky = 0; ky < kh; ky++) {
                    const ptrdiff_t iy = iy0 + (ptrdiff_t)(ky * s->dilation_height);
                    const int row_inside = iy >= 0 && iy < (ptrdiff_t)s->input_height;
                    for (size_t kx = 0; kx < kw; kx++, w += 16) {
                        const ptrdiff_t ix = ix0 + (ptrdiff_t)(kx * s->dilation_width);
                        const int inside = row_inside && ix >= 0 && ix < (ptrdiff_t)s->input_width;
                        const int16x8x2_t x =
                            inside ? load_pixel(img + (size_t)iy * line + (size_t)ix * channels + c0, n, is_signed)
                                   : padding;
                        const int16x8_t w0 = vld1q_s16(w), w1 = vld1q_s16(w + 8);
                        a0 = vmlal_s16(a0, vget_low_s16(x.val[0]), vget_low_s16(w0));
                        a1 = vmlal_high_s16(a1, x.val[0], w0);
                        a2 = vmlal_s16(a2, vget_low_s16(x.val[1]), vget_low_s16(w1));
                        a3 = vmlal_high_s16(a3, x.val[1], w1);
                    }
                }
                const int16x8_t h0 = vcombine_s16(vqmovn_s32(stage4(a0, params, 0, has_left, has_negfix)),
                                                  vqmovn_s32(stage4(a1, params, 4, has_left, has_negfix)));
                const int16x8_t h1 = vcombine_s16(vqmovn_s32(stage4(a2, params, 8, has_left, has_negfix)),
                                                  vqmovn_s32(stage4(a3, params, 12, has_left, has_negfix)));
                uint8x16_t bytes;
                if (is_signed) {
                    const int8x16_t v = vcombine_s8(vqmovn_s16(h0), vqmovn_s16(h1));
                    const int8x16_t lo = vdupq_n_s8((int8_t)s->output_min), hi = vdupq_n_s8((int8_t)s->output_max);
                    bytes = vreinterpretq_u8_s8(vminq_s8(vmaxq_s8(v, lo), hi));
                } else {
                    const uint8x16_t v = vcombine_u8(vqmovun_s16(h0), vqmovun_s16(h1));
                    const uint8x16_t lo = vdupq_n_u8((uint8_t)s->output_min), hi = vdupq_n_u8((uint8_t)s->output_max);
                    bytes = vminq_u8(vmaxq_u8(v, lo), hi);
                }
                uint8_t *dst = out_row + ox * channels + c0;
                if (n == 16) {
                    vst1q_u8(dst, bytes);
                } else {
                    uint8_t t[16];
                    vst1q_u8(t, bytes);
                    memcpy(dst, t, n);
                }
            }
        }
    }
}

#endif

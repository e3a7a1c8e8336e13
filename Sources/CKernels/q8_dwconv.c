#include "q8_dwconv.h"

// Quantized depthwise convolution (depth multiplier 1, 8-bit activations), whole output rows per
// call with the output stage fused.
//
// For every output row, a tile of input columns is first repacked into a window buffer `v`: per
// column and per group of 4 filter rows, each channel's 4 vertically adjacent input bytes form one
// 32-bit lane. An output pixel then needs one 4-byte dot product per (group, filter column) and
// channel: `vpdpbusd` on AVX-512 VNNI, `vpmaddwd` on pairs of widened bytes on AVX2. Taps in the
// padding (rows or columns outside the image) hold the input zero point, so every pixel runs the
// same code, and the zero point's share `zx * Σ w` is taken off the bias once when packing:
// Σ (x − zx)·w ≡ Σ x·w − zx·Σ w in wrapping int32, which LiteRT's sums are.
//
// The byte interleave (unpack 8-bit, then 16-bit) permutes channels inside each 128-bit lane; the
// weights and output-stage parameters are packed in that order, and the saturating packs at the
// end (32 → 16 → 8 bits) undo it exactly, so the results come out in channel order.
//
// Output stage: LiteRT's two roundings of `x · m · 2^(shift − 31)` (see `omk_requantize_i32`) as one
// 64-bit rounding shift. With p = (x << left) · m and r the right shift, the high multiply is
// h = floor((p + 2^30) / 2^31) (m is never INT32_MIN); the GEMM rounding is floor((h + 2^(r−1)) / 2^r)
// and the reference one floor((h + 2^(r−1) − [h < 0]) / 2^r) for r > 0, where h < 0 exactly when
// p < −2^30. Nested floors of integer divisions merge: floor((p + 2^30 + 2^(30+r) − [ref, r > 0,
// p < −2^30]·2^31) / 2^(31+r)). For r ≤ 31 nothing overflows 64 bits.

/// Whether the fast kernels handle this shape at all (else the caller keeps its general path).
static int dw_supported(const omk_q8_dwconv_shape *s) {
    if (s->channels == 0 || s->filter_height == 0 || s->filter_width == 0) return 0;
    if (s->stride_height == 0 || s->stride_width == 0 || s->dilation_height == 0 || s->dilation_width == 0) return 0;
    if (s->filter_height > 4 * DW_GMAX) return 0;
    if (s->filter_width > DW_VMAX || (s->filter_width - 1) * s->dilation_width > DW_VMAX - 1) return 0;
    if (s->stride_width > DW_VMAX) return 0;
    if (s->output_min > s->output_max) return 0;
    return 1;
}

/// The output stage of channel c for `kernel` (with `offset_sum` = the input offset times Σ w taken
/// off the bias), or 0 when it cannot reproduce omk_requantize_i32 exactly.
///
/// VNNI adds the zero point before the shift (zp · 2^(31 + r) in the addend: the quotient's low 32
/// bits are then the wrapping `result + zp`), which stays inside 64 bits for r ≤ 22. AVX2 shifts
/// logically, so its addends carry an extra 2^62 that makes every sum non-negative (|p| ≤ 2^62) and
/// below 2^64, and its zero point has 2^62 / 2^(31 + r) taken off.
static int dw_channel_params(const omk_q8_dwconv_shape *s, int kernel, const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const uint8_t *gemm_rounding, size_t c, uint32_t offset_sum,
                             dw_channel *out) {
    const int32_t sh = shift[c];
    if (multiplier[c] == INT32_MIN || sh > 30 || sh < -31) return 0;
    const int r = sh > 0 ? 0 : -sh;
    if (kernel == 3 && r > 22) return 0;
    const int64_t zp = s->output_zero_point;
    if (zp < -256 || zp > 256) return 0;
    const int64_t offset = kernel == 3 ? zp * ((int64_t)1 << (31 + r)) : ((int64_t)1 << 62);
    out->bias = (int32_t)((uint32_t)bias[c] - offset_sum);
    out->multiplier = multiplier[c];
    out->left = sh > 0 ? sh : 0;
    out->addend = ((int64_t)1 << 30) + (r > 0 ? ((int64_t)1 << (30 + r)) : 0) + offset;
    out->shift = 31 + r;
    out->negfix = (!gemm_rounding[c] && r > 0) ? ((int64_t)1 << 31) : 0;
    out->zero_point = kernel == 3 ? 0 : (int32_t)((uint32_t)zp - ((uint32_t)1 << (31 - r)));
    return 1;
}

/// Writes the parameters of `lanes` (16 or 8) lanes whose channels are `channel_of[j]` (none when
/// ≥ channels) at p.
static void dw_write_params(uint8_t *p, size_t lanes, const size_t *channel_of, const dw_channel *ch,
                            size_t channels) {
    int32_t *bias = (int32_t *)p, *me = bias + lanes, *mo = me + lanes, *left = mo + lanes, *zp = left + lanes;
    int64_t *ae = (int64_t *)(zp + lanes), *ao = ae + lanes / 2, *se = ao + lanes / 2, *so = se + lanes / 2;
    int64_t *ne = so + lanes / 2, *no = ne + lanes / 2;
    memset(p, 0, lanes * (DW_PARAM_BYTES / 16));
    for (size_t j = 0; j < lanes; j++) {
        const size_t c = channel_of[j];
        // Lanes past the channels compute zeros that are never stored.
        const dw_channel none = {0, 0, 0, 0, 0, 31, 0};  // addend 0: no sign fix-up needed
        const dw_channel *d = c < channels ? &ch[c] : &none;
        bias[j] = d->bias;
        left[j] = d->left;
        zp[j] = d->zero_point;
        if (j % 2 == 0) {
            me[j] = d->multiplier;
            ae[j / 2] = d->addend;
            se[j / 2] = d->shift;
            ne[j / 2] = d->negfix;
        } else {
            mo[j - 1] = d->multiplier;
            ao[j / 2] = d->addend;
            so[j / 2] = d->shift;
            no[j / 2] = d->negfix;
        }
    }
}


/// Kernel 2 (NEON) blocks: per 16 channels the output stage as arrays, then the weights per tap.
static void dw_pack_neon(const omk_q8_dwconv_shape *s, const int16_t *weights, const dw_channel *ch, uint8_t *p) {
    const size_t channels = s->channels, taps = s->filter_height * s->filter_width, blocks = (channels + 15) / 16;
    for (size_t b = 0; b < blocks; b++, p += dw_neon_block_bytes(s)) {
        int32_t *bias = (int32_t *)p, *mult = bias + 16, *left = mult + 16, *zp = left + 16;
        int64_t *addend = (int64_t *)(zp + 16), *shift = addend + 16, *negfix = shift + 16;
        int16_t *w = (int16_t *)(p + DW_NEON_PARAM_BYTES);
        for (size_t j = 0; j < 16; j++) {
            const size_t c = b * 16 + j;
            // Lanes past the channels compute zeros that are never stored.
            const dw_channel none = {0, 0, 0, 0, 0, 31, 0};
            const dw_channel *d = c < channels ? &ch[c] : &none;
            bias[j] = d->bias;
            mult[j] = d->multiplier;
            left[j] = d->left;
            zp[j] = d->zero_point;
            addend[j] = d->addend;
            shift[j] = d->shift;
            negfix[j] = d->negfix;
            for (size_t t = 0; t < taps; t++) w[t * 16 + j] = c < channels ? weights[t * channels + c] : 0;
        }
    }
}

size_t omk_q8_dwconv_packed_size(const omk_q8_dwconv_shape *s, int kernel) {
    if (!dw_supported(s) || (kernel != 3 && kernel != 2 && kernel != 1)) return 0;
    if (kernel == 2) return 64 + dw_blocks_offset(s->channels) + (s->channels + 15) / 16 * dw_neon_block_bytes(s);
    const size_t groups = (s->filter_height + 3) / 4, width = kernel == 3 ? 64 : 16;
    const size_t blocks = (s->channels + width - 1) / width;
    // The header, the per-channel parameters, the blocks and alignment slack.
    return 64 + dw_blocks_offset(s->channels) + blocks * dw_block_bytes(s, kernel, groups);
}

int omk_q8_dwconv_pack(const omk_q8_dwconv_shape *s, int kernel, const int16_t *weights, const int32_t *bias,
                       const int32_t *multiplier, const int32_t *shift, const uint8_t *gemm_rounding, void *packed) {
    if (!dw_supported(s) || (kernel != 3 && kernel != 2 && kernel != 1)) return 0;
    const size_t kh = s->filter_height, kw = s->filter_width, channels = s->channels;
    const size_t groups = (kh + 3) / 4, taps = kh * kw;
    // VNNI multiplies unsigned input bytes (int8 inputs offset by 128) by signed weight bytes: int8
    // weights fit; uint8 weights minus their zero point lie in [-255, 255], and a block with one
    // outside [-128, 127] has them split into two signed bytes (hi + lo), which fails only for 255.
    for (size_t i = 0; i < taps * channels; i++) {
        if (weights[i] < -255 || weights[i] > 255) return 0;
        if (kernel == 3 && weights[i] > 254) return 0;
    }
    // The value every input (and padding) tap is offset by, whose products come off the bias.
    const int32_t offset = s->input_zero_point + (kernel == 3 && s->activations_signed ? 128 : 0);
    uint8_t *base = (uint8_t *)dw_align64(packed);
    dw_channel *ch = (dw_channel *)(base + sizeof(dw_header));
    int has_left = 0, has_negfix = 0;
    for (size_t c = 0; c < channels; c++) {
        uint32_t sum = 0;
        for (size_t t = 0; t < taps; t++) sum += (uint32_t)(int32_t)weights[t * channels + c];
        if (!dw_channel_params(s, kernel, bias, multiplier, shift, gemm_rounding, c, sum * (uint32_t)offset, &ch[c])) {
            return 0;
        }
        has_left |= ch[c].left != 0;
        has_negfix |= ch[c].negfix != 0;
    }
    dw_header *h = (dw_header *)base;
    memset(h, 0, sizeof *h);
    h->kernel = kernel;
    h->groups = (int32_t)groups;
    h->has_left = has_left;
    h->has_negfix = has_negfix;
    uint8_t *p = base + dw_blocks_offset(channels);
    if (kernel == 2) {
        dw_pack_neon(s, weights, ch, p);
        return 1;
    }
    const size_t width = kernel == 3 ? 64 : 16, blocks = (channels + width - 1) / width;
    for (size_t b = 0; b < blocks; b++) {
        const size_t c0 = b * width;
        if (kernel == 3) {
            // Lane j (of 16) of vector q: channel c0 + 16 (j / 4 mod 4 / share) + 4 q + j % 4 (a vector
            // holds `share` pixels of the block's channels); byte k: filter row 4g + k.
            const size_t n = channels - c0 < 64 ? channels - c0 : 64, lanes = n > 32 ? 4 : (n > 16 ? 2 : 1);
            int32_t parts = 1;
            for (size_t t = 0; t < taps; t++) {
                for (size_t c = c0; c < c0 + n; c++) {
                    const int16_t w = weights[t * channels + c];
                    if (w < -128 || w > 127) parts = 2;
                }
            }
            memset(p, 0, 64);
            memcpy(p, &parts, sizeof parts);
            uint8_t *const weights_end = p + 64 + dw_weight_bytes(s, 3, groups);
            p += 64;
            for (size_t g = 0; g < groups; g++) {
                for (size_t kx = 0; kx < kw; kx++) {
                    for (size_t part = 0; part < (size_t)parts; part++) {
                        for (size_t q = 0; q < 4; q++) {
                            for (size_t j = 0; j < 16; j++) {
                                const size_t c = c0 + 16 * (j / 4 % lanes) + 4 * q + j % 4;
                                for (size_t k = 0; k < 4; k++) {
                                    const size_t ky = 4 * g + k;
                                    int32_t w = c < channels && ky < kh ? weights[(ky * kw + kx) * channels + c] : 0;
                                    // hi = floor(w / 2), lo = w − hi, both in [-128, 127] for w ≤ 254.
                                    if (parts == 2) w = part == 0 ? (w >> 1) : w - (w >> 1);
                                    *p++ = (uint8_t)(int8_t)w;
                                }
                            }
                        }
                    }
                }
            }
            memset(p, 0, (size_t)(weights_end - p));
            p = weights_end;
            for (size_t q = 0; q < 4; q++) {
                size_t channel_of[16];
                for (size_t j = 0; j < 16; j++) channel_of[j] = c0 + 16 * (j / 4 % lanes) + 4 * q + j % 4;
                dw_write_params(p, 16, channel_of, ch, channels);
                p += DW_PARAM_BYTES;
            }
        } else {
            // Lane j (of 8) of half h: channel c0 + 8 (j / 4) + 4 h + j % 4; pair 0 holds filter rows
            // (4g, 4g + 1), pair 1 rows (4g + 2, 4g + 3), as int16.
            for (size_t g = 0; g < groups; g++) {
                for (size_t kx = 0; kx < kw; kx++) {
                    for (size_t pair = 0; pair < 2; pair++) {
                        for (size_t half = 0; half < 2; half++) {
                            int16_t *w16 = (int16_t *)p;
                            for (size_t j = 0; j < 8; j++) {
                                const size_t c = c0 + 8 * (j / 4) + 4 * half + j % 4;
                                for (size_t k = 0; k < 2; k++) {
                                    const size_t ky = 4 * g + 2 * pair + k;
                                    w16[2 * j + k] =
                                        c < channels && ky < kh ? weights[(ky * kw + kx) * channels + c] : 0;
                                }
                            }
                            p += 32;
                        }
                    }
                }
            }
            for (size_t half = 0; half < 2; half++) {
                size_t channel_of[8];
                for (size_t j = 0; j < 8; j++) channel_of[j] = c0 + 8 * (j / 4) + 4 * half + j % 4;
                dw_write_params(p, 8, channel_of, ch, channels);
                p += DW_PARAM_BYTES / 2;
            }
        }
    }
    return 1;
}

void omk_q8_dwconv_rows(const omk_q8_dwconv_shape *s, const void *packed, const uint8_t *input, uint8_t *output,
                        size_t first_row, size_t end_row) {
    const uint8_t *base = (const uint8_t *)dw_align64(packed);
    const dw_header *h = (const dw_header *)base;
    const size_t rows = s->batch * s->output_height;
    if (end_row > rows) end_row = rows;
    if (first_row >= end_row || s->output_width == 0) return;
#if defined(__x86_64__) || defined(__i386__)
    if (h->kernel == 3) {
        omk_q8_dwconv_rows_vnni(s, h, base + dw_blocks_offset(s->channels), input, output, first_row, end_row);
    } else if (h->kernel == 1) {
        omk_q8_dwconv_rows_avx2(s, h, base + dw_blocks_offset(s->channels), input, output, first_row, end_row);
    }
#elif defined(__aarch64__)
    if (h->kernel == 2) {
        omk_q8_dwconv_rows_neon(s, h, base + dw_blocks_offset(s->channels), input, output, first_row, end_row);
    }
#else
    (void)h; (void)input; (void)output;
#endif
}

#include "CKernels.h"

#include <string.h>

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

/// Input columns a tile's window buffer holds, and groups of 4 filter rows (filter height ≤ 8).
#define DW_VMAX 64
#define DW_GMAX 2

/// What omk_q8_dwconv_pack found, kept at the start of the packed buffer.
typedef struct {
    int32_t kernel, groups, has_left, has_negfix, reserved[12];
} dw_header;

static const void *align64(const void *p) { return (const void *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }

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

/// Per-channel output-stage parameters, as the kernels read them.
typedef struct {
    int32_t bias, multiplier, left, zero_point;
    int64_t addend, shift, negfix;
} dw_channel;

/// The output stage of channel c for `kernel` (with `share` = the input offset times Σ w taken
/// off the bias), or 0 when it cannot reproduce omk_requantize_i32 exactly.
///
/// VNNI adds the zero point before the shift (zp · 2^(31 + r) in the addend: the quotient's low 32
/// bits are then the wrapping `result + zp`), which stays inside 64 bits for r ≤ 22. AVX2 shifts
/// logically, so its addends carry an extra 2^62 that makes every sum non-negative (|p| ≤ 2^62) and
/// below 2^64, and its zero point has 2^62 / 2^(31 + r) taken off.
static int dw_channel_params(const omk_q8_dwconv_shape *s, int kernel, const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const uint8_t *gemm_rounding, size_t c, uint32_t share,
                             dw_channel *out) {
    const int32_t sh = shift[c];
    if (multiplier[c] == INT32_MIN || sh > 30 || sh < -31) return 0;
    const int r = sh > 0 ? 0 : -sh;
    if (kernel == 3 && r > 22) return 0;
    const int64_t zp = s->output_zero_point;
    if (zp < -256 || zp > 256) return 0;
    const int64_t offset = kernel == 3 ? zp * ((int64_t)1 << (31 + r)) : ((int64_t)1 << 62);
    out->bias = (int32_t)((uint32_t)bias[c] - share);
    out->multiplier = multiplier[c];
    out->left = sh > 0 ? sh : 0;
    out->addend = ((int64_t)1 << 30) + (r > 0 ? ((int64_t)1 << (30 + r)) : 0) + offset;
    out->shift = 31 + r;
    out->negfix = (!gemm_rounding[c] && r > 0) ? ((int64_t)1 << 31) : 0;
    out->zero_point = kernel == 3 ? 0 : (int32_t)((uint32_t)zp - ((uint32_t)1 << (31 - r)));
    return 1;
}

/// Bytes of output-stage parameters per 16 lanes, in the layout the kernels read: int32 bias,
/// multiplier of the even lanes, multiplier of the odd lanes (in the even positions), left shift,
/// zero point; then int64 addend, shift and negfix of the even and of the odd lanes. AVX2 keeps
/// each half of 8 lanes the same way in half the bytes.
#define DW_PARAM_BYTES (5 * 64 + 6 * 64)

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

/// Where the packed blocks start: after the header and the per-channel parameters (kept 64-byte aligned).
static size_t dw_blocks_offset(size_t channels) {
    return sizeof(dw_header) + (channels * sizeof(dw_channel) + 63) / 64 * 64;
}

/// Bytes of a block's weights: VNNI blocks of 64 channels hold per (group, filter column, part, q)
/// 64 bytes, room for two parts (see omk_q8_dwconv_pack); AVX2 blocks of 16 channels per (group,
/// filter column, pair, half) 32 bytes.
static size_t dw_weight_bytes(const omk_q8_dwconv_shape *s, int kernel, size_t groups) {
    return kernel == 3 ? groups * s->filter_width * 2 * 4 * 64 : groups * s->filter_width * 4 * 32;
}

/// Bytes per block: VNNI blocks start with 64 bytes holding their number of parts (int32), then the
/// weights and 4 × 16 lanes of parameters; AVX2 blocks hold the weights and 2 × 8 lanes.
static size_t dw_block_bytes(const omk_q8_dwconv_shape *s, int kernel, size_t groups) {
    if (kernel == 3) return 64 + dw_weight_bytes(s, kernel, groups) + 4 * DW_PARAM_BYTES;
    return dw_weight_bytes(s, kernel, groups) + DW_PARAM_BYTES;
}

size_t omk_q8_dwconv_packed_size(const omk_q8_dwconv_shape *s, int kernel) {
    if (!dw_supported(s) || (kernel != 3 && kernel != 1)) return 0;
    const size_t groups = (s->filter_height + 3) / 4, width = kernel == 3 ? 64 : 16;
    const size_t blocks = (s->channels + width - 1) / width;
    // The header, the per-channel parameters, the blocks and alignment slack.
    return 64 + dw_blocks_offset(s->channels) + blocks * dw_block_bytes(s, kernel, groups);
}

int omk_q8_dwconv_pack(const omk_q8_dwconv_shape *s, int kernel, const int16_t *weights, const int32_t *bias,
                       const int32_t *multiplier, const int32_t *shift, const uint8_t *gemm_rounding, void *packed) {
    if (!dw_supported(s) || (kernel != 3 && kernel != 1)) return 0;
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
    uint8_t *base = (uint8_t *)align64(packed);
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

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define OMK_VNNI __attribute__((target("avx512vnni,avx512bw,avx512vl,avx512f")))
#define OMK_AVX2 __attribute__((target("avx2")))
#define OMK_INLINE __attribute__((always_inline)) inline

/// Where one output row reads: per group slot (4g + k) the input row's first byte for this
/// channel block, or NULL when the filter row lies outside the image (or past the filter).
typedef struct {
    const uint8_t *row[4 * DW_GMAX];
    int inside[4 * DW_GMAX], past[4 * DW_GMAX];
} dw_rows;

static OMK_INLINE void dw_row_sources(const omk_q8_dwconv_shape *s, const uint8_t *image, size_t oy, size_t groups,
                                      dw_rows *r) {
    const ptrdiff_t iy0 = (ptrdiff_t)(oy * s->stride_height) - s->pad_top;
    for (size_t k = 0; k < 4 * groups; k++) {
        const ptrdiff_t iy = iy0 + (ptrdiff_t)(k * s->dilation_height);
        const int inside = k < s->filter_height && iy >= 0 && iy < (ptrdiff_t)s->input_height;
        r->inside[k] = inside;
        r->past[k] = k >= s->filter_height;
        r->row[k] = inside ? image + (size_t)iy * s->input_width * s->channels : NULL;
    }
}

// MARK: - AVX-512 VNNI

typedef struct {
    __m512i me, mo, left, ae, ao, se, so, ne, no;
} dw_vnni_params;

static OMK_VNNI OMK_INLINE dw_vnni_params dw_vnni_load_params(const uint8_t *p) {
    dw_vnni_params r;
    r.me = _mm512_loadu_si512((const void *)(p + 64));
    r.mo = _mm512_loadu_si512((const void *)(p + 128));
    r.left = _mm512_loadu_si512((const void *)(p + 192));
    r.ae = _mm512_loadu_si512((const void *)(p + 320));
    r.ao = _mm512_loadu_si512((const void *)(p + 384));
    r.se = _mm512_loadu_si512((const void *)(p + 448));
    r.so = _mm512_loadu_si512((const void *)(p + 512));
    r.ne = _mm512_loadu_si512((const void *)(p + 576));
    r.no = _mm512_loadu_si512((const void *)(p + 640));
    return r;
}

/// The output stage of 16 accumulators (bias included); the addends carry the zero point times
/// 2^(31 + r), so the low halves of the 64-bit quotients are the wrapping int32 `result + zp`.
static OMK_VNNI OMK_INLINE __m512i dw_vnni_requantize(__m512i x, const dw_vnni_params *p, const int has_left,
                                                      const int has_negfix) {
    if (has_left) x = _mm512_sllv_epi32(x, p->left);
    const __m512i pe = _mm512_mul_epi32(x, p->me);
    const __m512i po = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), p->mo);
    __m512i te = _mm512_add_epi64(pe, p->ae), to = _mm512_add_epi64(po, p->ao);
    if (has_negfix) {
        const __m512i limit = _mm512_set1_epi64(-((int64_t)1 << 30));
        te = _mm512_mask_sub_epi64(te, _mm512_cmplt_epi64_mask(pe, limit), te, p->ne);
        to = _mm512_mask_sub_epi64(to, _mm512_cmplt_epi64_mask(po, limit), to, p->no);
    }
    const __m512i re = _mm512_srav_epi64(te, p->se), ro = _mm512_srav_epi64(to, p->so);
    return _mm512_mask_shuffle_epi32(re, 0xAAAA, ro, _MM_PERM_CDAB);
}

/// How a block of channels maps onto vectors: `share` pixels per vector (1 for more than 32
/// channels, 2 for up to 32, 4 for up to 16), each pixel `piece = 64 / share` bytes of which `n` are
/// channels.
typedef struct {
    size_t share, piece, n;
    int full, contiguous;
} dw_vnni_block;

static dw_vnni_block dw_vnni_block_of(size_t channels, size_t c0, size_t stride_width) {
    dw_vnni_block b;
    b.n = channels - c0 < 64 ? channels - c0 : 64;
    b.share = b.n > 32 ? 1 : (b.n > 16 ? 2 : 4);
    b.piece = 64 / b.share;
    b.full = b.n == b.piece;
    // The pixels of one vector are adjacent in memory (one load, one store).
    b.contiguous = b.share == 1 || (b.full && channels == b.piece && stride_width == 1);
    return b;
}

/// The bytes of one row slot for the `share` pixels of a vector (input columns ix + u·step), each
/// piece from `src` (the row's bytes of this block) or the zero point outside the image.
static OMK_VNNI __m512i dw_vnni_gather(const uint8_t *src, ptrdiff_t ix, size_t step, size_t width, size_t channels,
                                       const dw_vnni_block *b, __m512i padding) {
    __m512i v = padding;
    for (size_t u = 0; u < b->share; u++) {
        const ptrdiff_t col = ix + (ptrdiff_t)(u * step);
        if (col < 0 || col >= (ptrdiff_t)width) continue;
        const void *at = src + (size_t)col * channels;
        if (b->share == 1) {
            v = _mm512_maskz_loadu_epi8(b->full ? ~(__mmask64)0 : (((__mmask64)1 << b->n) - 1), at);
        } else if (b->share == 2) {
            const __m256i piece = _mm256_maskz_loadu_epi8(b->full ? ~(__mmask32)0 : (((__mmask32)1 << b->n) - 1), at);
            v = u == 0 ? _mm512_inserti64x4(v, piece, 0) : _mm512_inserti64x4(v, piece, 1);
        } else {
            const __m128i piece = _mm_maskz_loadu_epi8((__mmask16)(b->full ? 0xFFFF : ((1u << b->n) - 1)), at);
            switch (u) {
                case 0: v = _mm512_inserti32x4(v, piece, 0); break;
                case 1: v = _mm512_inserti32x4(v, piece, 1); break;
                case 2: v = _mm512_inserti32x4(v, piece, 2); break;
                default: v = _mm512_inserti32x4(v, piece, 3); break;
            }
        }
    }
    return v;
}

/// Interleaves 4 slots' vectors into the 4 vectors (q = 0...3) of one window entry.
static OMK_VNNI OMK_INLINE void dw_vnni_interleave(__m512i x0, __m512i x1, __m512i x2, __m512i x3,
                                                   uint8_t *restrict dst) {
    const __m512i ab_lo = _mm512_unpacklo_epi8(x0, x1), ab_hi = _mm512_unpackhi_epi8(x0, x1);
    const __m512i cd_lo = _mm512_unpacklo_epi8(x2, x3), cd_hi = _mm512_unpackhi_epi8(x2, x3);
    _mm512_store_si512((void *)dst, _mm512_unpacklo_epi16(ab_lo, cd_lo));
    _mm512_store_si512((void *)(dst + 64), _mm512_unpackhi_epi16(ab_lo, cd_lo));
    _mm512_store_si512((void *)(dst + 128), _mm512_unpacklo_epi16(ab_hi, cd_hi));
    _mm512_store_si512((void *)(dst + 192), _mm512_unpackhi_epi16(ab_hi, cd_hi));
}

/// One present slot's bytes for the `share` pixels of an entry whose columns all lie inside the image:
/// one load when they are adjacent, else one piece per pixel, `gap` bytes apart.
static OMK_VNNI OMK_INLINE __m512i dw_vnni_load_inside(const uint8_t *p, size_t gap, const dw_vnni_block *b,
                                                       __mmask64 mask) {
    if (b->contiguous) return _mm512_maskz_loadu_epi8(mask, (const void *)p);
    if (b->share == 2) {
        const __mmask32 m = b->full ? ~(__mmask32)0 : (((__mmask32)1 << b->n) - 1);
        const __m256i lo = _mm256_maskz_loadu_epi8(m, (const void *)p);
        return _mm512_inserti64x4(_mm512_castsi256_si512(lo), _mm256_maskz_loadu_epi8(m, (const void *)(p + gap)), 1);
    }
    const __mmask16 m = (__mmask16)(b->full ? 0xFFFF : ((1u << b->n) - 1));
    __m512i v = _mm512_castsi128_si512(_mm_maskz_loadu_epi8(m, (const void *)p));
    v = _mm512_inserti32x4(v, _mm_maskz_loadu_epi8(m, (const void *)(p + gap)), 1);
    v = _mm512_inserti32x4(v, _mm_maskz_loadu_epi8(m, (const void *)(p + 2 * gap)), 2);
    return _mm512_inserti32x4(v, _mm_maskz_loadu_epi8(m, (const void *)(p + 3 * gap)), 3);
}

/// The window entries of one group of 4 row slots for a tile: entry j (of `columns`, only those
/// with `needed[j]` when it is given) holds input columns ix0 + j (+ u·stride for the other pixels
/// of a shared vector). `src[k]` is the row's bytes of this block, NULL outside the image or past
/// the filter (`fill[k]` then: the zero point, or past the filter anything, its weights being zero).
static OMK_VNNI void dw_vnni_build(const uint8_t *const *src, const __m512i *fill, ptrdiff_t ix0, size_t columns,
                                   const uint8_t *needed, size_t step, size_t width, size_t channels,
                                   const dw_vnni_block *b, __m512i padding, int is_signed, uint8_t *restrict v) {
    const __m512i flip = _mm512_set1_epi8(is_signed ? (char)0x80 : 0);
    // Entries whose columns all lie inside the image take the fast run below.
    ptrdiff_t inner_lo = -ix0 > 0 ? -ix0 : 0;
    ptrdiff_t inner_hi = (ptrdiff_t)width - (ptrdiff_t)((b->share - 1) * step) - ix0;
    if (inner_hi > (ptrdiff_t)columns) inner_hi = (ptrdiff_t)columns;
    if (inner_hi < inner_lo) inner_hi = inner_lo;
    const __mmask64 mask = b->share == 1 && !b->full ? (((__mmask64)1 << b->n) - 1) : ~(__mmask64)0;
    const size_t gap = step * channels;
    for (size_t j = 0; j < columns; j++) {
        if ((ptrdiff_t)j == inner_lo && inner_hi > inner_lo) {
            const int present = (src[0] != NULL) | (src[1] != NULL) << 1 | (src[2] != NULL) << 2 |
                                (src[3] != NULL) << 3;
            const size_t offset = (size_t)(ix0 + inner_lo) * channels;
            const uint8_t *p[4];
            for (size_t k = 0; k < 4; k++) p[k] = src[k] ? src[k] + offset : NULL;
            uint8_t *dst = v + j * 256;
            const size_t run = (size_t)(inner_hi - inner_lo);
            const uint8_t *need = needed ? needed + j : NULL;
            if (present == 7) {
                // Three filter rows inside the image (the common 3x3 case): the fourth slot is constant.
                const uint8_t *p0 = p[0], *p1 = p[1], *p2 = p[2];
                for (size_t e = 0; e < run; e++, p0 += channels, p1 += channels, p2 += channels, dst += 256) {
                    if (need && !need[e]) continue;
                    dw_vnni_interleave(_mm512_xor_si512(dw_vnni_load_inside(p0, gap, b, mask), flip),
                                       _mm512_xor_si512(dw_vnni_load_inside(p1, gap, b, mask), flip),
                                       _mm512_xor_si512(dw_vnni_load_inside(p2, gap, b, mask), flip), fill[3], dst);
                }
            } else {
                for (size_t e = 0; e < run; e++, dst += 256) {
                    if (need && !need[e]) continue;
                    __m512i x[4];
                    for (size_t k = 0; k < 4; k++) {
                        x[k] = p[k] ? _mm512_xor_si512(dw_vnni_load_inside(p[k] + e * channels, gap, b, mask), flip)
                                    : fill[k];
                    }
                    dw_vnni_interleave(x[0], x[1], x[2], x[3], dst);
                }
            }
            j = (size_t)inner_hi - 1;
            continue;
        }
        if (needed && !needed[j]) continue;
        const ptrdiff_t ix = ix0 + (ptrdiff_t)j;
        __m512i x[4];
        for (size_t k = 0; k < 4; k++) {
            x[k] = src[k] ? _mm512_xor_si512(dw_vnni_gather(src[k], ix, step, width, channels, b, padding), flip)
                          : fill[k];
        }
        dw_vnni_interleave(x[0], x[1], x[2], x[3], v + j * 256);
    }
}

/// Stores the `valid` (≤ share) pixels of one output vector.
static OMK_VNNI OMK_INLINE void dw_vnni_store(__m512i v, uint8_t *restrict out, size_t out_step,
                                              const dw_vnni_block *b, size_t valid) {
    if (b->share == 1) {
        if (b->full) {
            _mm512_storeu_si512((void *)out, v);
        } else {
            _mm512_mask_storeu_epi8((void *)out, ((__mmask64)1 << b->n) - 1, v);
        }
        return;
    }
    if (b->contiguous && valid == b->share) {
        _mm512_storeu_si512((void *)out, v);
        return;
    }
    for (size_t u = 0; u < valid; u++) {
        uint8_t *dst = out + u * out_step;
        if (b->share == 2) {
            const __m256i piece = u == 0 ? _mm512_castsi512_si256(v) : _mm512_extracti64x4_epi64(v, 1);
            _mm256_mask_storeu_epi8((void *)dst, b->full ? ~(__mmask32)0 : (((__mmask32)1 << b->n) - 1), piece);
        } else {
            __m128i piece;
            switch (u) {
                case 0: piece = _mm512_castsi512_si128(v); break;
                case 1: piece = _mm512_extracti32x4_epi32(v, 1); break;
                case 2: piece = _mm512_extracti32x4_epi32(v, 2); break;
                default: piece = _mm512_extracti32x4_epi32(v, 3); break;
            }
            _mm_mask_storeu_epi8((void *)dst, (__mmask16)(b->full ? 0xFFFF : ((1u << b->n) - 1)), piece);
        }
    }
}

/// `n` (constant) vectors' accumulators of lane group q: the bias, then one vpdpbusd per (group,
/// filter column, part) with the weights of q (`w`, 256 bytes apart).
static OMK_VNNI OMK_INLINE void dw_vnni_dot(__m512i *acc, const size_t n, __m512i bias, const uint8_t *restrict v,
                                            size_t vector_step, size_t column_step, const uint8_t *restrict w,
                                            const size_t kw, const size_t groups, const size_t parts) {
#pragma clang loop unroll(full)
    for (size_t i = 0; i < n; i++) acc[i] = bias;
    for (size_t g = 0; g < groups; g++) {
        for (size_t kx = 0; kx < kw; kx++) {
            const uint8_t *col = v + g * DW_VMAX * 256 + kx * column_step;
            for (size_t part = 0; part < parts; part++) {
                const __m512i wv = _mm512_loadu_si512((const void *)(w + ((g * kw + kx) * parts + part) * 256));
#pragma clang loop unroll(full)
                for (size_t i = 0; i < n; i++) {
                    const __m512i xv = _mm512_load_si512((const void *)(col + i * vector_step));
                    acc[i] = _mm512_dpbusd_epi32(acc[i], xv, wv);
                }
            }
        }
    }
}

/// One tile of `count` pixels (`vectors` vectors) of one block: per lane group q, every vector's
/// accumulators and output stage into `result`, then the bytes of each pixel from the 4 groups.
/// `kw`, `groups`, `parts` and the flags are constants in the specialized copies.
static OMK_VNNI OMK_INLINE void dw_vnni_tile(const omk_q8_dwconv_shape *s, const uint8_t *restrict v, size_t count,
                                             const uint8_t *restrict weights, const uint8_t *restrict params,
                                             const size_t kw, const size_t groups, const size_t parts,
                                             const int has_left, const int has_negfix, __m512i lo, __m512i hi,
                                             uint8_t *restrict out, const dw_vnni_block *b) {
    __m512i result[DW_VMAX][4];
    const size_t share = b->share, vectors = (count + share - 1) / share;
    const size_t vector_step = share * s->stride_width * 256, column_step = s->dilation_width * 256;
    for (size_t q = 0; q < 4; q++) {
        const uint8_t *w = weights + q * 64;
        const uint8_t *pq = params + q * DW_PARAM_BYTES;
        const __m512i bias = _mm512_loadu_si512((const void *)pq);
        const dw_vnni_params p = dw_vnni_load_params(pq);
        const uint8_t *vq = v + q * 64;
        size_t i = 0;
        for (; i + 4 <= vectors; i += 4) {
            __m512i acc[4];
            dw_vnni_dot(acc, 4, bias, vq + i * vector_step, vector_step, column_step, w, kw, groups, parts);
#pragma clang loop unroll(full)
            for (size_t u = 0; u < 4; u++) result[i + u][q] = dw_vnni_requantize(acc[u], &p, has_left, has_negfix);
        }
        for (; i < vectors; i++) {
            __m512i acc[1];
            dw_vnni_dot(acc, 1, bias, vq + i * vector_step, vector_step, column_step, w, kw, groups, parts);
            result[i][q] = dw_vnni_requantize(acc[0], &p, has_left, has_negfix);
        }
    }
    const size_t out_step = s->channels;
    for (size_t i = 0; i < vectors; i++) {
        // Saturating packs undo the interleave's channel order; the clamp range lies inside both
        // types' ranges, so saturating first changes nothing.
        const __m512i p01 = _mm512_packs_epi32(result[i][0], result[i][1]);
        const __m512i p23 = _mm512_packs_epi32(result[i][2], result[i][3]);
        __m512i bytes;
        if (s->activations_signed) {
            bytes = _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(p01, p23), lo), hi);
        } else {
            bytes = _mm512_min_epu8(_mm512_max_epu8(_mm512_packus_epi16(p01, p23), lo), hi);
        }
        const size_t first = i * share, valid = count - first < share ? count - first : share;
        dw_vnni_store(bytes, out + first * out_step, out_step, b, valid);
    }
}

#define DW_VNNI_TILE(name, KW, G, P, L, N)                                                                     \
    static OMK_VNNI __attribute__((noinline)) void name(const omk_q8_dwconv_shape *s, const uint8_t *v, size_t count, \
                                                        const uint8_t *weights, const uint8_t *params, __m512i lo,   \
                                                        __m512i hi, uint8_t *out, const dw_vnni_block *b) {          \
        dw_vnni_tile(s, v, count, weights, params, KW, G, P, L, N, lo, hi, out, b);                                \
    }
DW_VNNI_TILE(dw_vnni_tile_3x1, 3, 1, 1, 0, 0)
DW_VNNI_TILE(dw_vnni_tile_3x1_ref, 3, 1, 1, 0, 1)
DW_VNNI_TILE(dw_vnni_tile_3x1_split, 3, 1, 2, 0, 0)
DW_VNNI_TILE(dw_vnni_tile_3x1_split_ref, 3, 1, 2, 0, 1)
DW_VNNI_TILE(dw_vnni_tile_5x2, 5, 2, 1, 0, 0)
DW_VNNI_TILE(dw_vnni_tile_5x2_ref, 5, 2, 1, 0, 1)

static OMK_VNNI void dw_vnni_tile_any(const omk_q8_dwconv_shape *s, const dw_header *h, const uint8_t *v,
                                      size_t count, const uint8_t *weights, const uint8_t *params, size_t parts,
                                      __m512i lo, __m512i hi, uint8_t *out, const dw_vnni_block *b) {
    const size_t kw = s->filter_width, groups = (size_t)h->groups;
    const int negfix = h->has_negfix;
    if (!h->has_left && kw == 3 && groups == 1) {
        if (parts == 1) {
            (negfix ? dw_vnni_tile_3x1_ref : dw_vnni_tile_3x1)(s, v, count, weights, params, lo, hi, out, b);
        } else {
            (negfix ? dw_vnni_tile_3x1_split_ref : dw_vnni_tile_3x1_split)(s, v, count, weights, params, lo, hi, out, b);
        }
    } else if (!h->has_left && kw == 5 && groups == 2 && parts == 1) {
        (negfix ? dw_vnni_tile_5x2_ref : dw_vnni_tile_5x2)(s, v, count, weights, params, lo, hi, out, b);
    } else {
        dw_vnni_tile(s, v, count, weights, params, kw, groups, parts, h->has_left, negfix, lo, hi, out, b);
    }
}

static OMK_VNNI void dw_rows_vnni(const omk_q8_dwconv_shape *s, const dw_header *h, const uint8_t *packed,
                                  const uint8_t *input, uint8_t *output, size_t first, size_t end) {
    uint8_t v[DW_GMAX * DW_VMAX * 256] __attribute__((aligned(64)));
    uint8_t needed[DW_VMAX];
    const size_t channels = s->channels, kw = s->filter_width, groups = (size_t)h->groups;
    const size_t blocks = (channels + 63) / 64;
    const size_t block_bytes = dw_block_bytes(s, 3, groups), weight_bytes = dw_weight_bytes(s, 3, groups);
    const size_t image_bytes = s->input_height * s->input_width * channels;
    const size_t span = (kw - 1) * s->dilation_width;
    const size_t tile = (DW_VMAX - 1 - span) / s->stride_width + 1;
    const int is_signed = s->activations_signed;
    const __m512i padding = _mm512_set1_epi8((char)s->input_zero_point);
    const __m512i flipped = _mm512_xor_si512(padding, _mm512_set1_epi8(is_signed ? (char)0x80 : 0));
    const __m512i lo = _mm512_set1_epi8((char)s->output_min), hi = _mm512_set1_epi8((char)s->output_max);
    for (size_t row = first; row < end; row++) {
        const size_t batch = row / s->output_height, oy = row % s->output_height;
        dw_rows r;
        dw_row_sources(s, input + batch * image_bytes, oy, groups, &r);
        uint8_t *out_row = output + row * s->output_width * channels;
        __m512i fill[4 * DW_GMAX];
        for (size_t k = 0; k < 4 * groups; k++) fill[k] = flipped;
        for (size_t blk = 0; blk < blocks; blk++) {
            const size_t c0 = blk * 64;
            const dw_vnni_block b = dw_vnni_block_of(channels, c0, s->stride_width);
            const uint8_t *block = packed + blk * block_bytes, *wb = block + 64;
            int32_t parts;
            memcpy(&parts, block, sizeof parts);
            const uint8_t *src[4 * DW_GMAX];
            for (size_t k = 0; k < 4 * groups; k++) src[k] = r.inside[k] ? r.row[k] + c0 : NULL;
            for (size_t ox0 = 0; ox0 < s->output_width; ox0 += tile) {
                const size_t count = s->output_width - ox0 < tile ? s->output_width - ox0 : tile;
                const ptrdiff_t ix0 = (ptrdiff_t)(ox0 * s->stride_width) - s->pad_left;
                const size_t columns = (count - 1) * s->stride_width + span + 1;
                // Shared vectors read only the entries j = t·stride + kx·dilation for t = 0, share, ...
                const uint8_t *need = NULL;
                if (b.share > 1) {
                    memset(needed, 0, columns);
                    size_t marked = 0;
                    for (size_t t = 0; t < count; t += b.share) {
                        for (size_t kx = 0; kx < kw; kx++) {
                            const size_t j = t * s->stride_width + kx * s->dilation_width;
                            marked += !needed[j];
                            needed[j] = 1;
                        }
                    }
                    if (marked < columns) need = needed;
                }
                for (size_t g = 0; g < groups; g++) {
                    dw_vnni_build(src + 4 * g, fill + 4 * g, ix0, columns, need, s->stride_width, s->input_width,
                                  channels, &b, padding, is_signed, v + g * DW_VMAX * 256);
                }
                dw_vnni_tile_any(s, h, v, count, wb, wb + weight_bytes, (size_t)parts, lo, hi,
                                 out_row + ox0 * channels + c0, &b);
            }
        }
    }
}

// MARK: - AVX2

typedef struct {
    __m256i me, mo, left, zp, ae, ao, se, so, ne, no;
} dw_avx2_params;

static OMK_AVX2 OMK_INLINE dw_avx2_params dw_avx2_load_params(const uint8_t *p) {
    dw_avx2_params r;
    r.me = _mm256_loadu_si256((const __m256i *)(p + 32));
    r.mo = _mm256_loadu_si256((const __m256i *)(p + 64));
    r.left = _mm256_loadu_si256((const __m256i *)(p + 96));
    r.zp = _mm256_loadu_si256((const __m256i *)(p + 128));
    r.ae = _mm256_loadu_si256((const __m256i *)(p + 160));
    r.ao = _mm256_loadu_si256((const __m256i *)(p + 192));
    r.se = _mm256_loadu_si256((const __m256i *)(p + 224));
    r.so = _mm256_loadu_si256((const __m256i *)(p + 256));
    r.ne = _mm256_loadu_si256((const __m256i *)(p + 288));
    r.no = _mm256_loadu_si256((const __m256i *)(p + 320));
    return r;
}

/// The output stage of 8 accumulators (bias included), zero point included. AVX2 has no 64-bit
/// arithmetic shift: the addends carry an extra 2^62, which keeps every sum in [0, 2^64), so a
/// logical shift floors it, and the zero point has 2^62 / 2^(31 + r) taken off.
static OMK_AVX2 OMK_INLINE __m256i dw_avx2_requantize(__m256i x, const dw_avx2_params *p, const int has_left,
                                                      const int has_negfix) {
    if (has_left) x = _mm256_sllv_epi32(x, p->left);
    const __m256i pe = _mm256_mul_epi32(x, p->me);
    const __m256i po = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), p->mo);
    __m256i te = _mm256_add_epi64(pe, p->ae), to = _mm256_add_epi64(po, p->ao);
    if (has_negfix) {
        const __m256i limit = _mm256_set1_epi64x(-((int64_t)1 << 30));
        te = _mm256_sub_epi64(te, _mm256_and_si256(_mm256_cmpgt_epi64(limit, pe), p->ne));
        to = _mm256_sub_epi64(to, _mm256_and_si256(_mm256_cmpgt_epi64(limit, po), p->no));
    }
    const __m256i re = _mm256_srlv_epi64(te, p->se), ro = _mm256_srlv_epi64(to, p->so);
    return _mm256_add_epi32(_mm256_blend_epi32(re, _mm256_slli_epi64(ro, 32), 0xAA), p->zp);
}

/// 16 bytes of a row for `n` channels (a copy when fewer than 16, so nothing past them is read).
static OMK_AVX2 OMK_INLINE __m128i dw_avx2_load16(const uint8_t *p, size_t n) {
    if (n == 16) return _mm_loadu_si128((const __m128i *)p);
    uint8_t tmp[16] = {0};
    memcpy(tmp, p, n);
    return _mm_loadu_si128((const __m128i *)tmp);
}

static OMK_AVX2 OMK_INLINE __m256i dw_avx2_widen(__m128i bytes, int is_signed) {
    return is_signed ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
}

/// One window entry from 4 slots' widened rows: pairs (rows 0-1, then 2-3) of each half's channels.
static OMK_AVX2 OMK_INLINE void dw_avx2_interleave(__m256i x0, __m256i x1, __m256i x2, __m256i x3,
                                                   uint8_t *restrict dst) {
    _mm256_store_si256((__m256i *)dst, _mm256_unpacklo_epi16(x0, x1));
    _mm256_store_si256((__m256i *)(dst + 32), _mm256_unpackhi_epi16(x0, x1));
    _mm256_store_si256((__m256i *)(dst + 64), _mm256_unpacklo_epi16(x2, x3));
    _mm256_store_si256((__m256i *)(dst + 96), _mm256_unpackhi_epi16(x2, x3));
}

/// The window entries of one group of 4 row slots for a tile (as dw_vnni_build, 16 channels, one
/// pixel per entry): `fill[k]` for missing rows and columns outside the image.
static OMK_AVX2 void dw_avx2_build(const uint8_t *const *src, const __m256i *fill, ptrdiff_t ix0, size_t columns,
                                   size_t width, size_t channels, size_t n, int is_signed, uint8_t *restrict v) {
    for (size_t j = 0; j < columns; j++) {
        const ptrdiff_t ix = ix0 + (ptrdiff_t)j;
        const int inside = ix >= 0 && ix < (ptrdiff_t)width;
        __m256i x[4];
        for (size_t k = 0; k < 4; k++) {
            x[k] = src[k] && inside ? dw_avx2_widen(dw_avx2_load16(src[k] + (size_t)ix * channels, n), is_signed)
                                    : fill[k];
        }
        dw_avx2_interleave(x[0], x[1], x[2], x[3], v + j * 128);
    }
}

/// The fast case of dw_avx2_build: three rows inside the image and whole 16-channel blocks, with
/// the entries' columns all inside.
static OMK_AVX2 void dw_avx2_build3(const uint8_t *p0, const uint8_t *p1, const uint8_t *p2, __m256i fill3,
                                    size_t run, size_t channels, int is_signed, uint8_t *restrict v) {
    if (is_signed) {
        for (size_t e = 0; e < run; e++, p0 += channels, p1 += channels, p2 += channels, v += 128) {
            dw_avx2_interleave(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)p0)),
                               _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)p1)),
                               _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)p2)), fill3, v);
        }
    } else {
        for (size_t e = 0; e < run; e++, p0 += channels, p1 += channels, p2 += channels, v += 128) {
            dw_avx2_interleave(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p0)),
                               _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p1)),
                               _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p2)), fill3, v);
        }
    }
}

/// `n` (constant) pixels' accumulators of half h: the bias, then per (group, filter column) the
/// two pairs' vpmaddwd with the weights of h (`w`, 128 bytes per column, pairs 64 bytes apart).
static OMK_AVX2 OMK_INLINE void dw_avx2_dot(__m256i *acc, const size_t n, __m256i bias, const uint8_t *restrict v,
                                            size_t pixel_step, size_t column_step, const uint8_t *restrict w,
                                            const size_t kw, const size_t groups) {
    for (size_t i = 0; i < n; i++) acc[i] = bias;
    for (size_t g = 0; g < groups; g++) {
        for (size_t kx = 0; kx < kw; kx++) {
            const uint8_t *col = v + g * DW_VMAX * 128 + kx * column_step;
            const uint8_t *wc = w + (g * kw + kx) * 128;
            const __m256i w01 = _mm256_loadu_si256((const __m256i *)wc);
            const __m256i w23 = _mm256_loadu_si256((const __m256i *)(wc + 64));
            for (size_t i = 0; i < n; i++) {
                const uint8_t *x = col + i * pixel_step;
                const __m256i s01 = _mm256_madd_epi16(_mm256_load_si256((const __m256i *)x), w01);
                const __m256i s23 = _mm256_madd_epi16(_mm256_load_si256((const __m256i *)(x + 64)), w23);
                acc[i] = _mm256_add_epi32(acc[i], _mm256_add_epi32(s01, s23));
            }
        }
    }
}

/// One tile of `count` pixels of one 16-channel block (`n` channels): per half, every pixel's
/// accumulators and output stage into `result`, then each pixel's bytes.
static OMK_AVX2 OMK_INLINE void dw_avx2_tile(const omk_q8_dwconv_shape *s, const uint8_t *restrict v, size_t count,
                                             const uint8_t *restrict weights, const uint8_t *restrict params,
                                             const size_t kw, const size_t groups, const int has_left,
                                             const int has_negfix, __m128i lo, __m128i hi, uint8_t *restrict out,
                                             size_t n) {
    __m256i result[DW_VMAX][2];
    const size_t pixel_step = s->stride_width * 128, column_step = s->dilation_width * 128;
    for (size_t half = 0; half < 2; half++) {
        const uint8_t *ph = params + half * (DW_PARAM_BYTES / 2);
        const __m256i bias = _mm256_loadu_si256((const __m256i *)ph);
        const dw_avx2_params p = dw_avx2_load_params(ph);
        const uint8_t *vh = v + half * 32, *wh = weights + half * 32;
        size_t i = 0;
        for (; i + 2 <= count; i += 2) {
            __m256i acc[2];
            dw_avx2_dot(acc, 2, bias, vh + i * pixel_step, pixel_step, column_step, wh, kw, groups);
            result[i][half] = dw_avx2_requantize(acc[0], &p, has_left, has_negfix);
            result[i + 1][half] = dw_avx2_requantize(acc[1], &p, has_left, has_negfix);
        }
        if (i < count) {
            __m256i acc[1];
            dw_avx2_dot(acc, 1, bias, vh + i * pixel_step, pixel_step, column_step, wh, kw, groups);
            result[i][half] = dw_avx2_requantize(acc[0], &p, has_left, has_negfix);
        }
    }
    const size_t out_step = s->channels;
    for (size_t i = 0; i < count; i++) {
        // The saturating packs put the halves' interleaved lanes back in channel order.
        const __m256i w16 = _mm256_packs_epi32(result[i][0], result[i][1]);
        const __m128i l = _mm256_castsi256_si128(w16), u = _mm256_extracti128_si256(w16, 1);
        __m128i b;
        if (s->activations_signed) {
            b = _mm_min_epi8(_mm_max_epi8(_mm_packs_epi16(l, u), lo), hi);
        } else {
            b = _mm_min_epu8(_mm_max_epu8(_mm_packus_epi16(l, u), lo), hi);
        }
        uint8_t *dst = out + i * out_step;
        if (n == 16) {
            _mm_storeu_si128((__m128i *)dst, b);
        } else {
            uint8_t tmp[16];
            _mm_storeu_si128((__m128i *)tmp, b);
            memcpy(dst, tmp, n);
        }
    }
}

#define DW_AVX2_TILE(name, KW, G, L, N)                                                                        \
    static OMK_AVX2 __attribute__((noinline)) void name(const omk_q8_dwconv_shape *s, const uint8_t *v, size_t count, \
                                                        const uint8_t *weights, const uint8_t *params, __m128i lo,   \
                                                        __m128i hi, uint8_t *out, size_t n) {                        \
        dw_avx2_tile(s, v, count, weights, params, KW, G, L, N, lo, hi, out, n);                                   \
    }
DW_AVX2_TILE(dw_avx2_tile_3x1, 3, 1, 0, 0)
DW_AVX2_TILE(dw_avx2_tile_3x1_ref, 3, 1, 0, 1)

static OMK_AVX2 void dw_avx2_tile_any(const omk_q8_dwconv_shape *s, const dw_header *h, const uint8_t *v, size_t count,
                                      const uint8_t *weights, const uint8_t *params, __m128i lo, __m128i hi,
                                      uint8_t *out, size_t n) {
    const size_t kw = s->filter_width, groups = (size_t)h->groups;
    if (kw == 3 && groups == 1 && !h->has_left) {
        (h->has_negfix ? dw_avx2_tile_3x1_ref : dw_avx2_tile_3x1)(s, v, count, weights, params, lo, hi, out, n);
    } else {
        dw_avx2_tile(s, v, count, weights, params, kw, groups, h->has_left, h->has_negfix, lo, hi, out, n);
    }
}

static OMK_AVX2 void dw_rows_avx2(const omk_q8_dwconv_shape *s, const dw_header *h, const uint8_t *packed,
                                  const uint8_t *input, uint8_t *output, size_t first, size_t end) {
    uint8_t v[DW_GMAX * DW_VMAX * 128] __attribute__((aligned(32)));
    const size_t channels = s->channels, kw = s->filter_width, groups = (size_t)h->groups;
    const size_t blocks = (channels + 15) / 16;
    const size_t block_bytes = dw_block_bytes(s, 1, groups), weight_bytes = dw_weight_bytes(s, 1, groups);
    const size_t image_bytes = s->input_height * s->input_width * channels;
    const size_t span = (kw - 1) * s->dilation_width;
    const size_t tile = (DW_VMAX - 1 - span) / s->stride_width + 1;
    const int is_signed = s->activations_signed;
    const __m256i padding = dw_avx2_widen(_mm_set1_epi8((char)s->input_zero_point), is_signed);
    const __m128i lo = _mm_set1_epi8((char)s->output_min), hi = _mm_set1_epi8((char)s->output_max);
    for (size_t row = first; row < end; row++) {
        const size_t batch = row / s->output_height, oy = row % s->output_height;
        dw_rows r;
        dw_row_sources(s, input + batch * image_bytes, oy, groups, &r);
        uint8_t *out_row = output + row * s->output_width * channels;
        __m256i fill[4 * DW_GMAX];
        for (size_t k = 0; k < 4 * groups; k++) fill[k] = r.past[k] ? _mm256_setzero_si256() : padding;
        for (size_t blk = 0; blk < blocks; blk++) {
            const size_t c0 = blk * 16, n = channels - c0 < 16 ? channels - c0 : 16;
            const uint8_t *wb = packed + blk * block_bytes;
            const uint8_t *src[4 * DW_GMAX];
            for (size_t k = 0; k < 4 * groups; k++) src[k] = r.inside[k] ? r.row[k] + c0 : NULL;
            for (size_t ox0 = 0; ox0 < s->output_width; ox0 += tile) {
                const size_t count = s->output_width - ox0 < tile ? s->output_width - ox0 : tile;
                const ptrdiff_t ix0 = (ptrdiff_t)(ox0 * s->stride_width) - s->pad_left;
                const size_t columns = (count - 1) * s->stride_width + span + 1;
                for (size_t g = 0; g < groups; g++) {
                    const uint8_t *const *sg = src + 4 * g;
                    uint8_t *vg = v + g * DW_VMAX * 128;
                    ptrdiff_t inner_lo = -ix0 > 0 ? -ix0 : 0;
                    ptrdiff_t inner_hi = (ptrdiff_t)s->input_width - ix0;
                    if (inner_hi > (ptrdiff_t)columns) inner_hi = (ptrdiff_t)columns;
                    if (n == 16 && sg[0] && sg[1] && sg[2] && !sg[3] && inner_hi > inner_lo) {
                        // Columns before, inside and after the image.
                        dw_avx2_build(sg, fill + 4 * g, ix0, (size_t)inner_lo, s->input_width, channels, n, is_signed,
                                      vg);
                        const size_t offset = (size_t)(ix0 + inner_lo) * channels;
                        dw_avx2_build3(sg[0] + offset, sg[1] + offset, sg[2] + offset, fill[4 * g + 3],
                                       (size_t)(inner_hi - inner_lo), channels, is_signed, vg + inner_lo * 128);
                        dw_avx2_build(sg, fill + 4 * g, ix0 + inner_hi, columns - (size_t)inner_hi, s->input_width,
                                      channels, n, is_signed, vg + inner_hi * 128);
                    } else {
                        dw_avx2_build(sg, fill + 4 * g, ix0, columns, s->input_width, channels, n, is_signed, vg);
                    }
                }
                dw_avx2_tile_any(s, h, v, count, wb, wb + weight_bytes, lo, hi, out_row + ox0 * channels + c0, n);
            }
        }
    }
}

void omk_q8_dwconv_rows(const omk_q8_dwconv_shape *s, const void *packed, const uint8_t *input, uint8_t *output,
                        size_t first_row, size_t end_row) {
    const uint8_t *base = (const uint8_t *)align64(packed);
    const dw_header *h = (const dw_header *)base;
    const size_t rows = s->batch * s->output_height;
    if (end_row > rows) end_row = rows;
    if (first_row >= end_row || s->output_width == 0) return;
    if (h->kernel == 3) {
        dw_rows_vnni(s, h, base + dw_blocks_offset(s->channels), input, output, first_row, end_row);
    } else if (h->kernel == 1) {
        dw_rows_avx2(s, h, base + dw_blocks_offset(s->channels), input, output, first_row, end_row);
    }
}

#else

void omk_q8_dwconv_rows(const omk_q8_dwconv_shape *s, const void *packed, const uint8_t *input, uint8_t *output,
                        size_t first_row, size_t end_row) {
    (void)s; (void)packed; (void)input; (void)output; (void)first_row; (void)end_row;
}

#endif

// The AVX2 row kernel of q8_dwconv.c: 16-channel blocks, `vpmaddwd` on pairs of widened filter rows.

#include "q8_dwconv.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define OMK_AVX2 __attribute__((target("avx2")))
#define OMK_INLINE __attribute__((always_inline)) inline

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

OMK_AVX2 void omk_q8_dwconv_rows_avx2(const omk_q8_dwconv_shape *s, const dw_header *h, const uint8_t *packed,
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

#endif

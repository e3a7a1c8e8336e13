// The AVX-512 VNNI row kernel of q8_dwconv.c: 64-channel blocks, `vpdpbusd` on 4 filter rows at once.

#include "q8_dwconv.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define OMK_VNNI __attribute__((target("avx512vnni,avx512bw,avx512vl,avx512f")))
#define OMK_INLINE __attribute__((always_inline)) inline

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

/// `run` entries of a 3-row filter whose pixels are adjacent (one load per row and entry), all
/// columns inside the image.
static OMK_VNNI __attribute__((noinline)) void dw_vnni_build3(const uint8_t *p0, const uint8_t *p1, const uint8_t *p2,
                                                              __m512i fill3, size_t run, size_t channels,
                                                              __mmask64 mask, __m512i flip, uint8_t *restrict dst) {
    for (size_t e = 0; e < run; e++, p0 += channels, p1 += channels, p2 += channels, dst += 256) {
        dw_vnni_interleave(_mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, (const void *)p0), flip),
                           _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, (const void *)p1), flip),
                           _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, (const void *)p2), flip), fill3, dst);
    }
}

/// `run` entries of a 3-row filter whose vectors hold `share` (2 or 4, constant) pixels `gap` bytes
/// apart, all columns inside the image; only the entries with `need[e]` when it is given.
static OMK_VNNI OMK_INLINE void dw_vnni_build3_apart(const uint8_t *p0, const uint8_t *p1, const uint8_t *p2,
                                                     __m512i fill3, size_t run, size_t channels, size_t gap,
                                                     const dw_vnni_block *b, const size_t share, const uint8_t *need,
                                                     __m512i flip, uint8_t *restrict dst) {
    dw_vnni_block fixed = *b;
    fixed.share = share;
    fixed.contiguous = 0;
    for (size_t e = 0; e < run; e++, p0 += channels, p1 += channels, p2 += channels, dst += 256) {
        if (need && !need[e]) continue;
        dw_vnni_interleave(_mm512_xor_si512(dw_vnni_load_inside(p0, gap, &fixed, 0), flip),
                           _mm512_xor_si512(dw_vnni_load_inside(p1, gap, &fixed, 0), flip),
                           _mm512_xor_si512(dw_vnni_load_inside(p2, gap, &fixed, 0), flip), fill3, dst);
    }
}

static OMK_VNNI __attribute__((noinline)) void dw_vnni_build3_pairs(const uint8_t *p0, const uint8_t *p1,
                                                                    const uint8_t *p2, __m512i fill3, size_t run,
                                                                    size_t channels, size_t gap,
                                                                    const dw_vnni_block *b, const uint8_t *need,
                                                                    __m512i flip, uint8_t *restrict dst) {
    dw_vnni_build3_apart(p0, p1, p2, fill3, run, channels, gap, b, 2, need, flip, dst);
}

static OMK_VNNI __attribute__((noinline)) void dw_vnni_build3_quads(const uint8_t *p0, const uint8_t *p1,
                                                                    const uint8_t *p2, __m512i fill3, size_t run,
                                                                    size_t channels, size_t gap,
                                                                    const dw_vnni_block *b, const uint8_t *need,
                                                                    __m512i flip, uint8_t *restrict dst) {
    dw_vnni_build3_apart(p0, p1, p2, fill3, run, channels, gap, b, 4, need, flip, dst);
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
            if (present == 7 && b->contiguous) {
                // Three filter rows inside the image (the common 3x3 case), one load per row; with unit
                // stride (contiguous), building the few entries no vector reads costs less than skipping.
                dw_vnni_build3(p[0], p[1], p[2], fill[3], run, channels, mask, flip, dst);
            } else if (present == 7 && b->share == 2) {
                dw_vnni_build3_pairs(p[0], p[1], p[2], fill[3], run, channels, gap, b, need, flip, dst);
            } else if (present == 7) {
                dw_vnni_build3_quads(p[0], p[1], p[2], fill[3], run, channels, gap, b, need, flip, dst);
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
            (negfix ? dw_vnni_tile_3x1_split_ref : dw_vnni_tile_3x1_split)(s, v, count, weights, params, lo, hi, out,
                                                                           b);
        }
    } else if (!h->has_left && kw == 5 && groups == 2 && parts == 1) {
        (negfix ? dw_vnni_tile_5x2_ref : dw_vnni_tile_5x2)(s, v, count, weights, params, lo, hi, out, b);
    } else {
        dw_vnni_tile(s, v, count, weights, params, kw, groups, parts, h->has_left, negfix, lo, hi, out, b);
    }
}

OMK_VNNI void omk_q8_dwconv_rows_vnni(const omk_q8_dwconv_shape *s, const dw_header *h, const uint8_t *packed,
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

#endif

#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#define OMK_VNNI __attribute__((target("avx512vnni,avx512bw,avx512vl,avx512dq,avx512f")))
#define OMK_INLINE __attribute__((always_inline)) inline
/// Loops over a tile's rows and blocks must unroll completely, so that the accumulators live in registers.
#define OMK_UNROLL _Pragma("clang loop unroll(full)")

/// Rows whose activation sums are computed together before the column groups are swept over them:
/// a multiple of both tile heights (6 and 8), small enough that the block's bytes stay in L2.
enum { ROW_BLOCK = 96 };

/// Four consecutive bytes of a row as one broadcast 32-bit lane (an operand of vpdpbusd).
static OMK_VNNI OMK_INLINE __m512i quad(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return _mm512_set1_epi32(v);
}

/// The last 1...3 bytes of a row (`n_mask` has one bit per byte), zero-extended to four: a masked
/// load reads no byte past the row, which may end the tensor; the packed weights of the missing k
/// are zero anyway.
static OMK_VNNI OMK_INLINE __m512i tail_quad(const uint8_t *p, __mmask16 n_mask) {
    return _mm512_broadcastd_epi32(_mm_maskz_loadu_epi8(n_mask, (const void *)p));
}

/// `c + x · v` per 32-bit lane, over 4 byte products: weights `v` unsigned and activations `x`
/// signed when `weights_unsigned` (int8 models), the other way round otherwise.
static OMK_VNNI OMK_INLINE __m512i dot(__m512i c, __m512i v, __m512i x, const int weights_unsigned) {
    return weights_unsigned ? _mm512_dpbusd_epi32(c, v, x) : _mm512_dpbusd_epi32(c, x, v);
}

/// The output stage of 16 columns, loaded once per tile and applied to each of its rows.
typedef struct {
    __m512i multiplier, multiplier_odd, addend_even, addend_odd, shift_even, shift_odd;
} stage16;

static OMK_VNNI OMK_INLINE stage16 load_stage(const omk_q8_gemm_params *p, size_t c) {
    stage16 s;
    s.multiplier = _mm512_loadu_si512((const void *)(p->multiplier + c));
    s.multiplier_odd = _mm512_srli_epi64(s.multiplier, 32);
    s.addend_even = _mm512_loadu_si512((const void *)(p->addend + c));
    s.addend_odd = _mm512_loadu_si512((const void *)(p->addend + c + 8));
    s.shift_even = _mm512_loadu_si512((const void *)(p->shift + c));
    s.shift_odd = _mm512_loadu_si512((const void *)(p->shift + c + 8));
    return s;
}

/// `omk_requantize_gemm_to_8_avx512` on 16 accumulators that already include the bias, up to the
/// zero point: the same integers, with the stage's parameters in registers.
static OMK_VNNI OMK_INLINE __m512i requantize(__m512i x, const stage16 *s) {
    // One rounding shift of the 64-bit product does both of ruy's roundings (see requantize_avx512.c).
    const __m512i even =
        _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, s->multiplier), s->addend_even), s->shift_even);
    const __m512i odd = _mm512_srav_epi64(
        _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), s->multiplier_odd), s->addend_odd),
        s->shift_odd);
    return _mm512_mask_shuffle_epi32(even, 0xAAAA, odd, _MM_PERM_CDAB);
}

/// One tile: `mr` (constant) rows by `n` (constant, 1...4) blocks of 16 columns of one column group,
/// finished into 8-bit outputs. Rows past `rows` repeat the last valid row and are not stored;
/// `last` masks the columns of the final block. `weights_unsigned` chooses the operand order of
/// vpdpbusd (see omk_q8_gemm_params).
static OMK_VNNI OMK_INLINE void tile(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows,
                                     const int32_t *terms, const uint8_t *w, size_t col, __mmask16 last,
                                     uint8_t *out, size_t ldo, const int mr, const int n, const int weights_unsigned,
                                     const int shifts_left) {
    const uint8_t *r[8];
    int32_t t[8];
    OMK_UNROLL
    for (int i = 0; i < mr; i++) {
        const size_t row = (size_t)i < rows ? (size_t)i : rows - 1;
        r[i] = a + row * lda;
        t[i] = terms[row];
    }
    __m512i c[8][4];
    OMK_UNROLL
    for (int j = 0; j < n; j++) {
        const __m512i bias = _mm512_loadu_si512((const void *)(p->bias + col + 16 * j));
        OMK_UNROLL
        for (int i = 0; i < mr; i++) c[i][j] = _mm512_add_epi32(bias, _mm512_set1_epi32(t[i]));
    }
    const size_t depth = p->depth, quads = depth / 4, rest = depth % 4;
    for (size_t q = 0; q < quads; q++) {
        __m512i v[4];
        OMK_UNROLL
        for (int j = 0; j < n; j++) v[j] = _mm512_loadu_si512((const void *)(w + 64 * j));
        OMK_UNROLL
        for (int i = 0; i < mr; i++) {
            const __m512i x = quad(r[i] + 4 * q);
            OMK_UNROLL
            for (int j = 0; j < n; j++) c[i][j] = dot(c[i][j], v[j], x, weights_unsigned);
        }
        w += 64 * n;
    }
    if (rest) {
        const __mmask16 rest_mask = (__mmask16)((1u << rest) - 1);
        __m512i v[4];
        OMK_UNROLL
        for (int j = 0; j < n; j++) v[j] = _mm512_loadu_si512((const void *)(w + 64 * j));
        OMK_UNROLL
        for (int i = 0; i < mr; i++) {
            const __m512i x = tail_quad(r[i] + 4 * quads, rest_mask);
            OMK_UNROLL
            for (int j = 0; j < n; j++) c[i][j] = dot(c[i][j], v[j], x, weights_unsigned);
        }
    }
    if (shifts_left) {
        // Multipliers above 1 shift left first (rare: most layers have none and use tiles without this).
        OMK_UNROLL
        for (int j = 0; j < n; j++) {
            const __m512i left = _mm512_loadu_si512((const void *)(p->left + col + 16 * (size_t)j));
            OMK_UNROLL
            for (int i = 0; i < mr; i++) c[i][j] = _mm512_sllv_epi32(c[i][j], left);
        }
    }
    if (n == 1) {
        const stage16 s = load_stage(p, col);
        const __m512i zp = _mm512_set1_epi32(p->zero_point), lo = _mm512_set1_epi32(p->lo);
        const __m512i hi = _mm512_set1_epi32(p->hi);
        OMK_UNROLL
        for (int i = 0; i < mr; i++) {
            if ((size_t)i < rows) {
                __m512i v = _mm512_add_epi32(requantize(c[i][0], &s), zp);
                v = _mm512_min_epi32(_mm512_max_epi32(v, lo), hi);
                // Clamped to an 8-bit type's range, the low byte is the value (int8 or uint8).
                _mm_mask_storeu_epi8(out + (size_t)i * ldo + col, last, _mm512_cvtepi32_epi8(v));
            }
        }
        return;
    }
    OMK_UNROLL
    for (int j = 0; j < n; j++) {
        const stage16 s = load_stage(p, col + 16 * (size_t)j);
        OMK_UNROLL
        for (int i = 0; i < mr; i++) c[i][j] = requantize(c[i][j], &s);
    }
    // Every block requantized before any row is packed: otherwise the compiler interleaves the rows
    // and keeps all the blocks' parameters live at once, spilling them (measured 25% slower).
    OMK_UNROLL
    for (int j = 0; j < n; j++) {
        OMK_UNROLL
        for (int i = 0; i < mr; i++) __asm__ volatile("" : "+v"(c[i][j]));
    }
    // Several blocks: saturating packs to 8 bits (the zero point added in 16 bits), then the clamp
    // on bytes. Saturation never changes a value that the clamp keeps: such a value lies within
    // [-255, 255] before the zero point is added.
    const unsigned bytes = 16 * (unsigned)(n - 1) + (unsigned)__builtin_popcount(last);
    const __mmask64 store_mask = bytes == 64 ? ~(__mmask64)0 : ((__mmask64)1 << bytes) - 1;
    const __m512i zp = _mm512_set1_epi16((short)p->zero_point);
    const __m512i lo = _mm512_set1_epi8((char)p->lo), hi = _mm512_set1_epi8((char)p->hi);
    // packs work within 128-bit lanes: lane k of the bytes holds dwords k of blocks 0, 1, 2, 3.
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    OMK_UNROLL
    for (int i = 0; i < mr; i++) {
        if ((size_t)i < rows) {
            // Blocks past n repeat block n - 1; their bytes are not stored.
            const __m512i b2 = n > 2 ? c[i][2] : c[i][1], b3 = n > 3 ? c[i][3] : b2;
            const __m512i h01 = _mm512_adds_epi16(_mm512_packs_epi32(c[i][0], c[i][1]), zp);
            const __m512i h23 = _mm512_adds_epi16(_mm512_packs_epi32(b2, b3), zp);
            __m512i v;
            if (weights_unsigned) {
                v = _mm512_permutexvar_epi32(order, _mm512_packs_epi16(h01, h23));
                v = _mm512_min_epi8(_mm512_max_epi8(v, lo), hi);
            } else {
                v = _mm512_permutexvar_epi32(order, _mm512_packus_epi16(h01, h23));
                v = _mm512_min_epu8(_mm512_max_epu8(v, lo), hi);
            }
            if (bytes == 64) {
                _mm512_storeu_si512((void *)(out + (size_t)i * ldo + col), v);
            } else {
                _mm512_mask_storeu_epi8(out + (size_t)i * ldo + col, store_mask, v);
            }
        }
    }
}

typedef void (*tile_fn)(const omk_q8_gemm_params *, const uint8_t *, size_t, size_t, const int32_t *, const uint8_t *,
                        size_t, __mmask16, uint8_t *, size_t);

#define OMK_TILE(MR, N, WU, SL)                                                                                    \
    static OMK_VNNI void tile_##MR##_##N##_##WU##SL(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda,     \
                                                    size_t rows, const int32_t *terms, const uint8_t *w,           \
                                                    size_t col, __mmask16 last, uint8_t *out, size_t ldo) {        \
        tile(p, a, lda, rows, terms, w, col, last, out, ldo, MR, N, WU, SL);                                        \
    }

/// Per operand order, left shift and block count: tiles of 1, 2, 4 and the full height (6 rows for
/// 4 blocks, which fill 24 of the 32 registers, 8 rows otherwise).
#define OMK_TILES(N, WU, SL, FULL) \
    OMK_TILE(1, N, WU, SL) OMK_TILE(2, N, WU, SL) OMK_TILE(4, N, WU, SL) OMK_TILE(FULL, N, WU, SL)
#define OMK_TILE_SET(WU, SL) \
    OMK_TILES(1, WU, SL, 8) OMK_TILES(2, WU, SL, 8) OMK_TILES(3, WU, SL, 8) OMK_TILES(4, WU, SL, 6)
OMK_TILE_SET(0, 0)
OMK_TILE_SET(0, 1)
OMK_TILE_SET(1, 0)
OMK_TILE_SET(1, 1)

#define OMK_TILE_ROW(N, WU, SL, FULL) \
    {tile_1_##N##_##WU##SL, tile_2_##N##_##WU##SL, tile_4_##N##_##WU##SL, tile_##FULL##_##N##_##WU##SL}
#define OMK_TILE_TABLE(WU, SL) \
    {OMK_TILE_ROW(1, WU, SL, 8), OMK_TILE_ROW(2, WU, SL, 8), OMK_TILE_ROW(3, WU, SL, 8), OMK_TILE_ROW(4, WU, SL, 6)}
/// `tiles[weights_unsigned][shifts_left][blocks - 1][height]`.
static const tile_fn tiles[2][2][4][4] = {
    {OMK_TILE_TABLE(0, 0), OMK_TILE_TABLE(0, 1)},
    {OMK_TILE_TABLE(1, 0), OMK_TILE_TABLE(1, 1)},
};

/// The bytes `v` (int8 when `activations_signed`, else uint8) summed in groups of 4 into `s`.
static OMK_VNNI OMK_INLINE __m512i add_bytes(__m512i s, __m512i v, const int activations_signed) {
    const __m512i ones = _mm512_set1_epi8(1);
    return activations_signed ? _mm512_dpbusd_epi32(s, ones, v) : _mm512_dpbusd_epi32(s, v, ones);
}

/// The 16-lane sums of one row's bytes, k < depth (`tail` masks the bytes of the last 64 or fewer).
static OMK_VNNI OMK_INLINE __m512i row_sum16(const uint8_t *p, size_t depth, __mmask64 tail,
                                             const int activations_signed) {
    __m512i s = _mm512_setzero_si512();
    size_t k = 0;
    for (; k + 64 < depth; k += 64) s = add_bytes(s, _mm512_loadu_si512((const void *)(p + k)), activations_signed);
    // Masked-off bytes are neither read nor counted (they load as zero).
    return add_bytes(s, _mm512_maskz_loadu_epi8(tail, (const void *)(p + k)), activations_signed);
}

/// Lane-wise a + b of the two vectors' alternating halves: pairs of rows reduced together.
static OMK_VNNI OMK_INLINE __m512i fold32(__m512i a, __m512i b) {
    return _mm512_add_epi32(_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
}
static OMK_VNNI OMK_INLINE __m512i fold64(__m512i a, __m512i b) {
    return _mm512_add_epi32(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
}
static OMK_VNNI OMK_INLINE __m512i fold128(__m512i a, __m512i b) {
    return _mm512_add_epi32(_mm512_shuffle_i32x4(a, b, 0x88), _mm512_shuffle_i32x4(a, b, 0xDD));
}

static OMK_VNNI OMK_INLINE void row_terms_of(const uint8_t *a, size_t lda, size_t rows, size_t depth, int32_t scale,
                                             int32_t *terms, const int activations_signed) {
    const __mmask64 tail = depth % 64 ? (__mmask64)((1ULL << (depth % 64)) - 1) : ~(__mmask64)0;
    const __m512i factor = _mm512_set1_epi32(scale);
    size_t i = 0;
    for (; i + 16 <= rows; i += 16) {
        __m512i s[16];
        OMK_UNROLL
        for (int r = 0; r < 16; r++) s[r] = row_sum16(a + (i + (size_t)r) * lda, depth, tail, activations_signed);
        // After fold32 and fold64, 128-bit lane L of g[q] holds lane-L partial sums of rows 4q..4q+3;
        // the fold128 steps add up the lanes, leaving rows 0-3, 4-7, 8-11, 12-15 in lane order.
        __m512i f[8], g[4];
        OMK_UNROLL
        for (int r = 0; r < 8; r++) f[r] = fold32(s[2 * r], s[2 * r + 1]);
        OMK_UNROLL
        for (int r = 0; r < 4; r++) g[r] = fold64(f[2 * r], f[2 * r + 1]);
        const __m512i sums = fold128(fold128(g[0], g[1]), fold128(g[2], g[3]));
        // Wrapping products, like LiteRT's int32 sums.
        _mm512_storeu_si512((void *)(terms + i), _mm512_mullo_epi32(sums, factor));
    }
    for (; i < rows; i++) {
        const __m512i s = row_sum16(a + i * lda, depth, tail, activations_signed);
        terms[i] = (int32_t)((uint32_t)_mm512_reduce_add_epi32(s) * (uint32_t)scale);
    }
}

/// `terms[r] = scale · Σ a[r][k]` for k < depth (at least 1), the bytes read as int8
/// (`activations_signed`) or uint8, in wrapping int32 arithmetic; no byte past a row is read.
/// Sixteen rows at a time, their lane sums reduced together (a transpose by unpacks and shuffles).
static OMK_VNNI void row_terms(const uint8_t *a, size_t lda, size_t rows, size_t depth, int activations_signed,
                               int32_t scale, int32_t *terms) {
    if (scale == 0) {
        memset(terms, 0, rows * sizeof *terms);
    } else if (activations_signed) {
        row_terms_of(a, lda, rows, depth, scale, terms, 1);
    } else {
        row_terms_of(a, lda, rows, depth, scale, terms, 0);
    }
}

OMK_VNNI void omk_q8_gemm_vnni(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows,
                               size_t group_begin, size_t group_end, uint8_t *out, size_t ldo) {
    int32_t terms[ROW_BLOCK];
    const size_t quads = (p->depth + 3) / 4, groups = (p->columns + 63) / 64;
    const int wu = p->weights_unsigned != 0;
    if (group_end > groups) group_end = groups;
    for (size_t r0 = 0; r0 < rows; r0 += ROW_BLOCK) {
        const size_t count = rows - r0 < ROW_BLOCK ? rows - r0 : ROW_BLOCK;
        const uint8_t *block = a + r0 * lda;
        uint8_t *block_out = out + r0 * ldo;
        // Activations are signed exactly when the weights are packed unsigned (int8 models).
        row_terms(block, lda, count, p->depth, wu, p->row_scale, terms);
        for (size_t g = group_begin; g < group_end; g++) {
            const size_t col = g * 64, cols = p->columns - col < 64 ? p->columns - col : 64;
            const size_t n = (cols + 15) / 16, in_last = cols - 16 * (n - 1);
            const __mmask16 last = (__mmask16)(in_last == 16 ? 0xFFFF : (1u << in_last) - 1);
            const uint8_t *w = p->weights + g * quads * 256;
            const tile_fn *fn = tiles[wu][p->left != NULL][n - 1];
            const size_t full = n == 4 ? 6 : 8;
            size_t i = 0;
            for (; i + full <= count; i += full) {
                fn[3](p, block + i * lda, lda, full, terms + i, w, col, last, block_out + i * ldo, ldo);
            }
            const size_t left = count - i;
            if (left > 0) {
                // The shortest tile that covers the leftover rows (it repeats the last one).
                const int which = left == 1 ? 0 : left == 2 ? 1 : left <= 4 ? 2 : 3;
                fn[which](p, block + i * lda, lda, left, terms + i, w, col, last, block_out + i * ldo, ldo);
            }
        }
    }
}

/// Copies `n` bytes with 64-byte vectors, the last one masked.
static OMK_VNNI OMK_INLINE void copy_bytes(uint8_t *dst, const uint8_t *src, size_t n) {
    for (; n >= 64; n -= 64, dst += 64, src += 64) {
        _mm512_storeu_si512((void *)dst, _mm512_loadu_si512((const void *)src));
    }
    if (n) {
        const __mmask64 m = (__mmask64)((1ULL << n) - 1);
        _mm512_mask_storeu_epi8((void *)dst, m, _mm512_maskz_loadu_epi8(m, (const void *)src));
    }
}

/// Sets `n` bytes to `value`.
static OMK_VNNI OMK_INLINE void fill_bytes(uint8_t *dst, __m512i value, size_t n) {
    for (; n >= 64; n -= 64, dst += 64) _mm512_storeu_si512((void *)dst, value);
    if (n) _mm512_mask_storeu_epi8((void *)dst, (__mmask64)((1ULL << n) - 1), value);
}

/// Where one im2col row reads: the scalars of omk_q8_im2col_params, unpacked once per block.
typedef struct {
    const uint8_t *input, *end;
    size_t c, fh, fw, oh, ow, sh, sw, dh, dw, span, k, line_bytes, image_bytes;
    ptrdiff_t height, width, pad_top, pad_left, reach;
} im2col_geometry;

/// The im2col row of one output pixel, byte by byte exact: each tap's channels, or the zero point
/// for a tap in the padding, then zeros up to `kp`. For the pixels at the borders and for filter
/// rows longer than 64 bytes.
static OMK_VNNI __attribute__((noinline)) void im2col_pixel(const im2col_geometry *g, size_t b, size_t oy,
                                                           size_t ox, __m512i zero, uint8_t *d, size_t kp) {
    const uint8_t *image = g->input + b * g->image_bytes;
    const ptrdiff_t iy0 = (ptrdiff_t)(oy * g->sh) - g->pad_top, ix0 = (ptrdiff_t)(ox * g->sw) - g->pad_left;
    const int inside = g->dw == 1 && ix0 >= 0 && ix0 + g->reach < g->width;
    for (size_t ky = 0; ky < g->fh; ky++) {
        const ptrdiff_t iy = iy0 + (ptrdiff_t)(ky * g->dh);
        if (iy < 0 || iy >= g->height) {
            fill_bytes(d + ky * g->span, zero, g->span);
            continue;
        }
        if (inside) {
            copy_bytes(d + ky * g->span, image + (size_t)iy * g->line_bytes + (size_t)ix0 * g->c, g->span);
            continue;
        }
        for (size_t kx = 0; kx < g->fw; kx++) {
            const ptrdiff_t ix = ix0 + (ptrdiff_t)(kx * g->dw);
            uint8_t *t = d + ky * g->span + kx * g->c;
            if (ix < 0 || ix >= g->width) {
                fill_bytes(t, zero, g->c);
            } else {
                copy_bytes(t, image + (size_t)iy * g->line_bytes + (size_t)ix * g->c, g->c);
            }
        }
    }
    fill_bytes(d + g->k, _mm512_setzero_si512(), kp - g->k);
}

/// Filter rows that one output row reads (up to this many take the fast path).
enum { MAX_FAST_FILTER_ROWS = 16 };

/// The rows of output pixels `first..<first + count` (batch-major), `kp` bytes apart: every tap's
/// input channels in (ky, kx) order, the input zero point for a tap in the padding (as LiteRT's
/// im2col), then zeros up to `kp`.
///
/// Fast path: when a filter row is at most 64 contiguous bytes (no horizontal dilation), each moves
/// with one 64-byte load and store. The bytes stored past it land where the rest of this row and
/// the next are written later (or in the 64 bytes of slack at the end of the scratch); the load
/// past it stays inside the input except near its end, where the output row takes masked loads.
static OMK_VNNI void im2col(const omk_q8_im2col_params *params, size_t first, size_t count, uint8_t *restrict dst,
                            size_t kp) {
    im2col_geometry g;
    g.input = params->input;
    g.c = params->channels;
    g.fh = params->filter_height;
    g.fw = params->filter_width;
    g.oh = params->output_height;
    g.ow = params->output_width;
    g.sh = params->stride_height;
    g.sw = params->stride_width;
    g.dh = params->dilation_height;
    g.dw = params->dilation_width;
    g.height = (ptrdiff_t)params->input_height;
    g.width = (ptrdiff_t)params->input_width;
    g.pad_top = params->pad_top;
    g.pad_left = params->pad_left;
    g.span = g.fw * g.c;
    g.k = g.fh * g.span;
    g.line_bytes = params->input_width * g.c;
    g.image_bytes = params->input_height * g.line_bytes;
    g.end = g.input + params->batch * g.image_bytes;
    g.reach = (ptrdiff_t)((g.fw - 1) * g.dw);
    const __m512i zero = _mm512_set1_epi8((char)params->zero), zeros = _mm512_setzero_si512();
    const int fast = g.dw == 1 && g.span <= 64 && g.fh <= MAX_FAST_FILTER_ROWS && kp - g.k <= 64;
    const __mmask64 span_mask = fast ? ~(__mmask64)0 >> (64 - g.span) : 0;
    const size_t per_image = g.oh * g.ow;
    size_t b = first / per_image, oy = first % per_image / g.ow, ox = first % g.ow;
    size_t i = 0;
    while (i < count) {
        // The pixels of one output row: the filter rows they read are the same.
        const size_t run = count - i < g.ow - ox ? count - i : g.ow - ox;
        const uint8_t *image = g.input + b * g.image_bytes;
        const ptrdiff_t iy0 = (ptrdiff_t)(oy * g.sh) - g.pad_top;
        const uint8_t *lines[MAX_FAST_FILTER_ROWS];
        const uint8_t *furthest = image;
        if (fast) {
            for (size_t ky = 0; ky < g.fh; ky++) {
                const ptrdiff_t iy = iy0 + (ptrdiff_t)(ky * g.dh);
                lines[ky] = iy < 0 || iy >= g.height ? NULL : image + (size_t)iy * g.line_bytes;
                if (lines[ky] != NULL) furthest = lines[ky];
            }
        }
        // Whether 64 bytes from the last column's window still lie inside the input.
        const int unmasked = furthest + g.line_bytes + 64 <= g.end;
        for (size_t j = 0; j < run; j++, ox++) {
            uint8_t *d = dst + (i + j) * kp;
            const ptrdiff_t ix0 = (ptrdiff_t)(ox * g.sw) - g.pad_left;
            if (!fast || ix0 < 0 || ix0 + g.reach >= g.width) {
                im2col_pixel(&g, b, oy, ox, zero, d, kp);
                continue;
            }
            const size_t offset = (size_t)ix0 * g.c;
            for (size_t ky = 0; ky < g.fh; ky++) {
                __m512i v = zero;
                if (lines[ky] != NULL) {
                    v = unmasked ? _mm512_loadu_si512((const void *)(lines[ky] + offset))
                                 : _mm512_maskz_loadu_epi8(span_mask, (const void *)(lines[ky] + offset));
                }
                _mm512_storeu_si512((void *)(d + ky * g.span), v);
            }
            _mm512_storeu_si512((void *)(d + g.k), zeros);
        }
        i += run;
        if (ox == g.ow) {
            ox = 0;
            if (++oy == g.oh) {
                oy = 0;
                b++;
            }
        }
    }
}

OMK_VNNI void omk_q8_conv_vnni(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin,
                               size_t row_end, size_t group_begin, size_t group_end, uint8_t *out, size_t ldo,
                               uint8_t *scratch) {
    // The im2col rows are padded with zeros to whole quads: no tail, and the zeros add nothing
    // (their packed weights are zero too).
    omk_q8_gemm_params padded = *p;
    const size_t kp = (p->depth + 3) / 4 * 4;
    padded.depth = kp;
    for (size_t r0 = row_begin; r0 < row_end; r0 += ROW_BLOCK) {
        const size_t count = row_end - r0 < ROW_BLOCK ? row_end - r0 : ROW_BLOCK;
        im2col(g, r0, count, scratch, kp);
        omk_q8_gemm_vnni(&padded, scratch, kp, count, group_begin, group_end, out + r0 * ldo, ldo);
    }
}

#else

void omk_q8_gemm_vnni(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows, size_t group_begin,
                      size_t group_end, uint8_t *out, size_t ldo) {
    (void)p; (void)a; (void)lda; (void)rows; (void)group_begin; (void)group_end; (void)out; (void)ldo;
}

void omk_q8_conv_vnni(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin, size_t row_end,
                      size_t group_begin, size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch) {
    (void)p; (void)g; (void)row_begin; (void)row_end; (void)group_begin; (void)group_end; (void)out; (void)ldo;
    (void)scratch;
}

#endif

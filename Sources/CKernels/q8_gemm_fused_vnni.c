#include "CKernels.h"
#include "q8_im2col.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#define OMK_VNNI __attribute__((target("avx512vnni,avx512bw,avx512vl,avx512dq,avx512f")))
#define OMK_INLINE __attribute__((always_inline)) inline
/// Loops over a tile's rows and blocks must unroll completely, so that the accumulators live in registers.
#define OMK_UNROLL _Pragma("clang loop unroll(full)")

/// Rows prepared together (row sums for uint8, a flipped copy or im2col rows for int8) before every
/// column group sweeps over them: a multiple of both tile heights (6 and 8), small enough that the
/// block's bytes stay in L1 or L2.
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

/// `c + x · v` per 32-bit lane, over 4 byte products of unsigned activations `x` (int8 ones come
/// with their top bit flipped, see omk_q8_gemm_params) and signed packed weights `v`.
static OMK_VNNI OMK_INLINE __m512i dot(__m512i c, __m512i v, __m512i x) { return _mm512_dpbusd_epi32(c, x, v); }

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
/// zero point: the same integers, with the stage's parameters in registers. The accumulators come
/// offset by 2^31 (`x + 2^31`, read as unsigned), so that the products are unsigned (on the Zen 5
/// core this was tuned on, vpmuludq issues on two pipes and the signed vpmuldq on one); the addend
/// subtracts `multiplier · 2^31` again, and the 64-bit sum is the signed one's exactly (it fits:
/// |x · multiplier| < 2^62).
static OMK_VNNI OMK_INLINE __m512i requantize(__m512i x, const stage16 *s) {
    // One rounding shift of the 64-bit product does both of ruy's roundings (see requantize_avx512.c).
    const __m512i even =
        _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epu32(x, s->multiplier), s->addend_even), s->shift_even);
    const __m512i odd = _mm512_srav_epi64(
        _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(x, 32), s->multiplier_odd), s->addend_odd),
        s->shift_odd);
    return _mm512_mask_shuffle_epi32(even, 0xAAAA, odd, _MM_PERM_CDAB);
}

/// One tile: `mr` (constant) rows by `n` (constant, 1...4) blocks of 16 columns of one column group,
/// finished into 8-bit outputs. Rows past `rows` repeat the last valid row and are not stored;
/// `last` masks the columns of the final block. `flip`: int8 activations, already flipped, and int8
/// outputs, no row term (`terms` unused); otherwise uint8 activations and outputs, with `terms`.
static OMK_VNNI OMK_INLINE void tile(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows,
                                     const int32_t *terms, const uint8_t *w, size_t col, __mmask16 last,
                                     uint8_t *out, size_t ldo, const int mr, const int n, const int flip,
                                     const int shifts_left) {
    const uint8_t *r[8];
    int32_t t[8];
    OMK_UNROLL
    for (int i = 0; i < mr; i++) {
        const size_t row = (size_t)i < rows ? (size_t)i : rows - 1;
        r[i] = a + row * lda;
        t[i] = flip ? 0 : terms[row];
    }
    // Every accumulator starts offset by 2^31 (see requantize).
    const __m512i offset = _mm512_set1_epi32(INT32_MIN);
    __m512i c[8][4];
    OMK_UNROLL
    for (int j = 0; j < n; j++) {
        const __m512i bias = _mm512_xor_si512(_mm512_loadu_si512((const void *)(p->bias + col + 16 * j)), offset);
        OMK_UNROLL
        for (int i = 0; i < mr; i++) c[i][j] = flip ? bias : _mm512_add_epi32(bias, _mm512_set1_epi32(t[i]));
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
            for (int j = 0; j < n; j++) c[i][j] = dot(c[i][j], v[j], x);
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
            for (int j = 0; j < n; j++) c[i][j] = dot(c[i][j], v[j], x);
        }
    }
    if (shifts_left) {
        // Multipliers above 1 shift left first (rare: most layers have none and use tiles without this).
        OMK_UNROLL
        for (int j = 0; j < n; j++) {
            const __m512i left = _mm512_loadu_si512((const void *)(p->left + col + 16 * (size_t)j));
            OMK_UNROLL
            for (int i = 0; i < mr; i++) {
                c[i][j] = _mm512_xor_si512(_mm512_sllv_epi32(_mm512_xor_si512(c[i][j], offset), left), offset);
            }
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
    // The zero point is added in 32 bits, wrapping as in the reference output stage: added after the
    // saturating pack to 16 bits, a requantized value within 255 of INT32_MAX gave 255 where the
    // wrapped sum clamps to the low end (found by the harness's edge cases: bias and multiplier
    // INT32_MAX with a left shift).
    const __m512i zp32 = _mm512_set1_epi32(p->zero_point);
    OMK_UNROLL
    for (int j = 0; j < n; j++) {
        const stage16 s = load_stage(p, col + 16 * (size_t)j);
        OMK_UNROLL
        for (int i = 0; i < mr; i++) c[i][j] = _mm512_add_epi32(requantize(c[i][j], &s), zp32);
    }
    // Every block requantized before any row is packed: otherwise the compiler interleaves the rows
    // and keeps all the blocks' parameters live at once, spilling them (measured 25% slower).
    OMK_UNROLL
    for (int j = 0; j < n; j++) {
        OMK_UNROLL
        for (int i = 0; i < mr; i++) __asm__ volatile("" : "+v"(c[i][j]));
    }
    // Several blocks: saturating packs to 8 bits, then the clamp on bytes. Saturation never changes
    // a value that the clamp keeps (the clamp range lies inside the 8-bit type's).
    const unsigned bytes = 16 * (unsigned)(n - 1) + (unsigned)__builtin_popcount(last);
    const __mmask64 store_mask = bytes == 64 ? ~(__mmask64)0 : ((__mmask64)1 << bytes) - 1;
    const __m512i lo = _mm512_set1_epi8((char)p->lo), hi = _mm512_set1_epi8((char)p->hi);
    // packs work within 128-bit lanes: lane k of the bytes holds dwords k of blocks 0, 1, 2, 3.
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    OMK_UNROLL
    for (int i = 0; i < mr; i++) {
        if ((size_t)i < rows) {
            // Blocks past n repeat block n - 1; their bytes are not stored.
            const __m512i b2 = n > 2 ? c[i][2] : c[i][1], b3 = n > 3 ? c[i][3] : b2;
            const __m512i h01 = _mm512_packs_epi32(c[i][0], c[i][1]);
            const __m512i h23 = _mm512_packs_epi32(b2, b3);
            __m512i v;
            if (flip) {
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

/// Tiles of MR rows down `rows` rows (the last one may be shorter).
#define OMK_TILE(MR, N, FL, SL)                                                                                    \
    static OMK_VNNI void tile_##MR##_##N##_##FL##SL(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda,     \
                                                    size_t rows, const int32_t *terms, const uint8_t *w,           \
                                                    size_t col, __mmask16 last, uint8_t *out, size_t ldo) {        \
        for (size_t i = 0; i < rows; i += MR) {                                                                    \
            const size_t left = rows - i < MR ? rows - i : MR;                                                     \
            tile(p, a + i * lda, lda, left, terms + i, w, col, last, out + i * ldo, ldo, MR, N, FL, SL);           \
        }                                                                                                          \
    }

/// Per activation type, left shift and block count: tiles of 1, 2, 4 and the full height (6 rows for
/// 4 blocks, which fill 24 of the 32 registers, 8 rows otherwise).
#define OMK_TILES(N, FL, SL, FULL) \
    OMK_TILE(1, N, FL, SL) OMK_TILE(2, N, FL, SL) OMK_TILE(4, N, FL, SL) OMK_TILE(FULL, N, FL, SL)
#define OMK_TILE_SET(FL, SL) \
    OMK_TILES(1, FL, SL, 8) OMK_TILES(2, FL, SL, 8) OMK_TILES(3, FL, SL, 8) OMK_TILES(4, FL, SL, 6)
OMK_TILE_SET(0, 0)
OMK_TILE_SET(0, 1)
OMK_TILE_SET(1, 0)
OMK_TILE_SET(1, 1)

#define OMK_TILE_ROW(N, FL, SL, FULL) \
    {tile_1_##N##_##FL##SL, tile_2_##N##_##FL##SL, tile_4_##N##_##FL##SL, tile_##FULL##_##N##_##FL##SL}
#define OMK_TILE_TABLE(FL, SL) \
    {OMK_TILE_ROW(1, FL, SL, 8), OMK_TILE_ROW(2, FL, SL, 8), OMK_TILE_ROW(3, FL, SL, 8), OMK_TILE_ROW(4, FL, SL, 6)}
/// `tiles[flip_activations][shifts_left][blocks - 1][height]`.
static const tile_fn tiles[2][2][4][4] = {
    {OMK_TILE_TABLE(0, 0), OMK_TILE_TABLE(0, 1)},
    {OMK_TILE_TABLE(1, 0), OMK_TILE_TABLE(1, 1)},
};

/// The 16-lane sums of one row's bytes (uint8), k < depth (`tail` masks the bytes of the last 64 or
/// fewer; masked-off bytes are neither read nor counted).
static OMK_VNNI OMK_INLINE __m512i row_sum16(const uint8_t *p, size_t depth, __mmask64 tail) {
    const __m512i ones = _mm512_set1_epi8(1);
    __m512i s = _mm512_setzero_si512();
    size_t k = 0;
    for (; k + 64 < depth; k += 64) s = _mm512_dpbusd_epi32(s, _mm512_loadu_si512((const void *)(p + k)), ones);
    return _mm512_dpbusd_epi32(s, _mm512_maskz_loadu_epi8(tail, (const void *)(p + k)), ones);
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

/// `terms[r] = scale · Σ a[r][k]` for k < depth (at least 1), the bytes read as uint8, in wrapping
/// int32 arithmetic; no byte past a row is read. Sixteen rows at a time, their lane sums reduced
/// together (a transpose by unpacks and shuffles).
static OMK_VNNI void row_terms(const uint8_t *a, size_t lda, size_t rows, size_t depth, int32_t scale,
                               int32_t *terms) {
    if (scale == 0) {
        memset(terms, 0, rows * sizeof *terms);
        return;
    }
    const __mmask64 tail = depth % 64 ? (__mmask64)((1ULL << (depth % 64)) - 1) : ~(__mmask64)0;
    const __m512i factor = _mm512_set1_epi32(scale);
    size_t i = 0;
    for (; i + 16 <= rows; i += 16) {
        __m512i s[16];
        OMK_UNROLL
        for (int r = 0; r < 16; r++) s[r] = row_sum16(a + (i + (size_t)r) * lda, depth, tail);
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
        const __m512i s = row_sum16(a + i * lda, depth, tail);
        terms[i] = (int32_t)((uint32_t)_mm512_reduce_add_epi32(s) * (uint32_t)scale);
    }
}

/// Rows `a`, `lda` bytes apart, as the tiles read them (int8 ones flipped), at most ROW_BLOCK of them,
/// times column groups `group_begin..<group_end`.
static OMK_VNNI void gemm_block(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t count,
                                size_t group_begin, size_t group_end, uint8_t *out, size_t ldo) {
    int32_t terms[ROW_BLOCK];
    const size_t quads = (p->depth + 3) / 4;
    const int flip = p->flip_activations != 0;
    // Only uint8 activations have a row term.
    if (!flip) row_terms(a, lda, count, p->depth, p->row_scale, terms);
    for (size_t g = group_begin; g < group_end; g++) {
        const size_t col = g * 64, cols = p->columns - col < 64 ? p->columns - col : 64;
        const size_t n = (cols + 15) / 16, in_last = cols - 16 * (n - 1);
        const __mmask16 last = (__mmask16)(in_last == 16 ? 0xFFFF : (1u << in_last) - 1);
        const uint8_t *w = p->weights + g * quads * 256;
        const tile_fn *fn = tiles[flip][p->left != NULL][n - 1];
        const size_t full = n == 4 ? 6 : 8;
        const size_t i = count - count % full, left = count - i;
        if (i > 0) fn[3](p, a, lda, i, terms, w, col, last, out, ldo);
        if (left > 0) {
            // The shortest tile that covers the leftover rows (it repeats the last one).
            const int which = left == 1 ? 0 : left == 2 ? 1 : left <= 4 ? 2 : 3;
            fn[which](p, a + i * lda, lda, left, terms + i, w, col, last, out + i * ldo, ldo);
        }
    }
}

/// Rows per block of scratch rows `kp` bytes long: ROW_BLOCK, fewer for long rows (at least 8).
size_t omk_q8_block_rows(size_t kp) {
    const size_t budget = (size_t)ROW_BLOCK * 1024;
    if (kp <= 1024) return ROW_BLOCK;
    const size_t rows = budget / kp / 8 * 8;
    return rows < 8 ? 8 : rows;
}

size_t omk_q8_gemm_scratch_bytes(size_t depth, size_t rows) {
    const size_t kp = (depth + 3) / 4 * 4, block = omk_q8_block_rows(kp);
    return (rows < block ? rows : block) * kp + 64;
}

/// `count` rows of `depth` bytes, `lda` apart, into rows `kp` apart with their top bits flipped and
/// zeros up to `kp`.
static OMK_VNNI void flip_rows(const uint8_t *a, size_t lda, size_t count, size_t depth, size_t kp, uint8_t *dst) {
    const __m512i flips = _mm512_set1_epi8((char)0x80);
    if (lda == depth && kp == depth) {
        // Contiguous: one stream of bytes.
        size_t n = count * depth, k = 0;
        for (; k + 64 <= n; k += 64) {
            _mm512_storeu_si512((void *)(dst + k), _mm512_xor_si512(_mm512_loadu_si512((const void *)(a + k)), flips));
        }
        if (k < n) {
            const __mmask64 m = (__mmask64)((1ULL << (n - k)) - 1);
            _mm512_mask_storeu_epi8((void *)(dst + k), m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, a + k), flips));
        }
        return;
    }
    for (size_t i = 0; i < count; i++) {
        const uint8_t *src = a + i * lda;
        uint8_t *d = dst + i * kp;
        size_t k = 0;
        for (; k + 64 <= depth; k += 64) {
            _mm512_storeu_si512((void *)(d + k), _mm512_xor_si512(_mm512_loadu_si512((const void *)(src + k)), flips));
        }
        // The last bytes (masked: no byte past the row is read), then zeros up to kp (at most 64
        // bytes from k: kp − k is rest rounded up to 4).
        const size_t rest = depth - k, padded = kp - k;
        if (padded > 0) {
            const __mmask64 m = (__mmask64)((1ULL << rest) - 1);
            const __mmask64 store = padded == 64 ? ~(__mmask64)0 : (__mmask64)((1ULL << padded) - 1);
            const __m512i v = _mm512_maskz_mov_epi8(m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, src + k), flips));
            _mm512_mask_storeu_epi8((void *)(d + k), store, v);
        }
    }
}

OMK_VNNI void omk_q8_gemm_vnni(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows,
                               size_t group_begin, size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch) {
    const size_t groups = (p->columns + 63) / 64;
    if (group_end > groups) group_end = groups;
    if (!p->flip_activations) {
        for (size_t r0 = 0; r0 < rows; r0 += ROW_BLOCK) {
            const size_t count = rows - r0 < ROW_BLOCK ? rows - r0 : ROW_BLOCK;
            gemm_block(p, a + r0 * lda, lda, count, group_begin, group_end, out + r0 * ldo, ldo);
        }
        return;
    }
    // int8: each block of rows flipped into the scratch once, for every column group, with whole
    // quads (zeros past the depth: no tail in the tiles).
    omk_q8_gemm_params padded = *p;
    const size_t kp = (p->depth + 3) / 4 * 4, block = omk_q8_block_rows(kp);
    padded.depth = kp;
    for (size_t r0 = 0; r0 < rows; r0 += block) {
        const size_t count = rows - r0 < block ? rows - r0 : block;
        flip_rows(a + r0 * lda, lda, count, p->depth, kp, scratch);
        gemm_block(&padded, scratch, kp, count, group_begin, group_end, out + r0 * ldo, ldo);
    }
}

OMK_VNNI void omk_q8_conv_vnni(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin,
                               size_t row_end, size_t group_begin, size_t group_end, uint8_t *out, size_t ldo,
                               uint8_t *scratch) {
    // The im2col rows are padded with zeros to whole quads: no tail, and the zeros add nothing
    // (their packed weights are zero too).
    omk_q8_gemm_params padded = *p;
    const size_t kp = (p->depth + 3) / 4 * 4, block = omk_q8_block_rows(kp), groups = (p->columns + 63) / 64;
    padded.depth = kp;
    if (group_end > groups) group_end = groups;
    for (size_t r0 = row_begin; r0 < row_end; r0 += block) {
        const size_t count = row_end - r0 < block ? row_end - r0 : block;
        omk_q8_im2col_vnni(g, r0, count, scratch, kp);
        gemm_block(&padded, scratch, kp, count, group_begin, group_end, out + r0 * ldo, ldo);
    }
}

#else

size_t omk_q8_gemm_scratch_bytes(size_t depth, size_t rows) { return rows * ((depth + 3) / 4 * 4) + 64; }

void omk_q8_gemm_vnni(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows, size_t group_begin,
                      size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch) {
    (void)p; (void)a; (void)lda; (void)rows; (void)group_begin; (void)group_end; (void)out; (void)ldo; (void)scratch;
}

void omk_q8_conv_vnni(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin, size_t row_end,
                      size_t group_begin, size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch) {
    (void)p; (void)g; (void)row_begin; (void)row_end; (void)group_begin; (void)group_end; (void)out; (void)ldo;
    (void)scratch;
}

#endif

#include "CKernels.h"
#include "q8_im2col.h"

// Dynamic-range (hybrid) CONV_2D on the 8-bit VNNI dot product (vpdpbusd, 4 byte products per
// 32-bit lane; the int16 path's vpdpwssd does 2). The activations arrive quantized to int8 q and
// stored as the unsigned bytes q + 128 (the top bit flipped); the weights are int8, packed by
// omk_q8_pack_weights with its column sums Σw. Then for every row and column
//
//     Σ (q − zero) · w = Σ (q + 128) · w − (128 + zero) · Σ w
//
// in wrapping int32: the same integers as the int16 GEMM's, so the float outputs after the same
// finish (omk_hybrid_finish's expression) are bit-identical.

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#define OMK_VNNI __attribute__((target("avx512vnni,avx512bw,avx512vl,avx512dq,avx512f")))
#define OMK_INLINE __attribute__((always_inline)) inline
#define OMK_UNROLL _Pragma("clang loop unroll(full)")

// Products are rounded before they are added (as omk_hybrid_finish).
#pragma STDC FP_CONTRACT OFF

/// Rows prepared together (the same rule as q8_gemm_fused_vnni.c, so that omk_q8_gemm_scratch_bytes
/// sizes this kernel's scratch too).
enum { ROW_BLOCK = 96 };

static size_t block_rows(size_t kp) {
    const size_t budget = (size_t)ROW_BLOCK * 1024;
    if (kp <= 1024) return ROW_BLOCK;
    const size_t rows = budget / kp / 8 * 8;
    return rows < 8 ? 8 : rows;
}

static OMK_VNNI OMK_INLINE __m512i quad(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return _mm512_set1_epi32(v);
}

/// The last 1...3 bytes of a row, zero-extended to four (no byte past the row is read).
static OMK_VNNI OMK_INLINE __m512i tail_quad(const uint8_t *p, __mmask16 n_mask) {
    return _mm512_broadcastd_epi32(_mm_maskz_loadu_epi8(n_mask, (const void *)p));
}

/// One tile: `mr` rows (constant; rows past `rows` repeat the last one and are not stored) by `n`
/// (constant, 1...4) blocks of 16 columns of one column group. `zero[i]` and `scale[i]` are row i's
/// quantization offset and batch scale; `uniform`: every row has the same zero (one correction
/// product per block instead of one per row). Stores int32 accumulators when `p->acc` is set,
/// otherwise the finished floats.
static OMK_VNNI OMK_INLINE void tile(const omk_hybrid_gemm_params *p, const uint8_t *a, size_t lda, size_t rows,
                                     size_t depth, const int32_t *zero, const float *scale, int uniform,
                                     const uint8_t *w, size_t col, __mmask16 last, size_t out_row, float *out,
                                     size_t ldo, const int mr, const int n) {
    const uint8_t *r[8];
    OMK_UNROLL
    for (int i = 0; i < mr; i++) r[i] = a + ((size_t)i < rows ? (size_t)i : rows - 1) * lda;
    __m512i c[8][4];
    OMK_UNROLL
    for (int j = 0; j < n; j++) {
        OMK_UNROLL
        for (int i = 0; i < mr; i++) c[i][j] = _mm512_setzero_si512();
    }
    const size_t quads = depth / 4, rest = depth % 4;
    for (size_t q = 0; q < quads; q++) {
        __m512i v[4];
        OMK_UNROLL
        for (int j = 0; j < n; j++) v[j] = _mm512_loadu_si512((const void *)(w + 64 * j));
        OMK_UNROLL
        for (int i = 0; i < mr; i++) {
            const __m512i x = quad(r[i] + 4 * q);
            OMK_UNROLL
            for (int j = 0; j < n; j++) c[i][j] = _mm512_dpbusd_epi32(c[i][j], x, v[j]);
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
            for (int j = 0; j < n; j++) c[i][j] = _mm512_dpbusd_epi32(c[i][j], x, v[j]);
        }
    }
    // − (128 + zero) · Σw, wrapping (unsigned arithmetic for the factor: no undefined overflow).
    OMK_UNROLL
    for (int j = 0; j < n; j++) {
        const __mmask16 m = j == n - 1 ? last : (__mmask16)0xFFFF;
        const __m512i sums = _mm512_maskz_loadu_epi32(m, (const void *)(p->column_sums + col + 16 * (size_t)j));
        if (uniform) {
            const __m512i corr = _mm512_mullo_epi32(sums, _mm512_set1_epi32((int32_t)(0u - 128u - (uint32_t)zero[0])));
            OMK_UNROLL
            for (int i = 0; i < mr; i++) c[i][j] = _mm512_add_epi32(c[i][j], corr);
        } else {
            OMK_UNROLL
            for (int i = 0; i < mr; i++) {
                const size_t row = (size_t)i < rows ? (size_t)i : rows - 1;
                const int32_t f = (int32_t)(0u - 128u - (uint32_t)zero[row]);
                c[i][j] = _mm512_add_epi32(c[i][j], _mm512_mullo_epi32(sums, _mm512_set1_epi32(f)));
            }
        }
    }
    if (p->acc) {
        OMK_UNROLL
        for (int j = 0; j < n; j++) {
            const __mmask16 m = j == n - 1 ? last : (__mmask16)0xFFFF;
            OMK_UNROLL
            for (int i = 0; i < mr; i++) {
                if ((size_t)i < rows) {
                    _mm512_mask_storeu_epi32((void *)(p->acc + (out_row + (size_t)i) * ldo + col + 16 * (size_t)j), m,
                                             c[i][j]);
                }
            }
        }
        return;
    }
    // omk_hybrid_finish: clamp(acc · (weight_scale[c] · batch_scale) + bias[c]), a NaN passing the clamp.
    const __m512 lower = _mm512_set1_ps(p->lower), upper = _mm512_set1_ps(p->upper);
    OMK_UNROLL
    for (int j = 0; j < n; j++) {
        const __mmask16 m = j == n - 1 ? last : (__mmask16)0xFFFF;
        const __m512 ws = _mm512_maskz_loadu_ps(m, (const void *)(p->weight_scale + col + 16 * (size_t)j));
        const __m512 bias = _mm512_maskz_loadu_ps(m, (const void *)(p->bias + col + 16 * (size_t)j));
        OMK_UNROLL
        for (int i = 0; i < mr; i++) {
            if ((size_t)i < rows) {
                const __m512 s = _mm512_mul_ps(ws, _mm512_set1_ps(scale[i]));
                const __m512 v = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(c[i][j]), s), bias);
                // m = lower >= v ? lower : v; out = upper < m ? upper : m (ordered comparisons).
                const __m512 t = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(lower, v, _CMP_GE_OQ), v, lower);
                const __m512 y = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(upper, t, _CMP_LT_OQ), t, upper);
                _mm512_mask_storeu_ps((void *)(out + (out_row + (size_t)i) * ldo + col + 16 * (size_t)j), m, y);
            }
        }
    }
}

typedef void (*tile_fn)(const omk_hybrid_gemm_params *, const uint8_t *, size_t, size_t, size_t, const int32_t *,
                        const float *, int, const uint8_t *, size_t, __mmask16, size_t, float *, size_t);

/// Tiles of MR rows down `rows` rows (the last one may be shorter).
#define OMK_HTILE(MR, N)                                                                                           \
    static OMK_VNNI void htile_##MR##_##N(const omk_hybrid_gemm_params *p, const uint8_t *a, size_t lda,           \
                                          size_t rows, size_t depth, const int32_t *zero, const float *scale,      \
                                          int uniform, const uint8_t *w, size_t col, __mmask16 last,               \
                                          size_t out_row, float *out, size_t ldo) {                                \
        for (size_t i = 0; i < rows; i += MR) {                                                                    \
            const size_t left = rows - i < MR ? rows - i : MR;                                                     \
            tile(p, a + i * lda, lda, left, depth, zero + i, scale + i, uniform, w, col, last, out_row + i, out,   \
                 ldo, MR, N);                                                                                      \
        }                                                                                                          \
    }
#define OMK_HTILES(N, FULL) OMK_HTILE(1, N) OMK_HTILE(2, N) OMK_HTILE(4, N) OMK_HTILE(FULL, N)
OMK_HTILES(1, 8)
OMK_HTILES(2, 8)
OMK_HTILES(3, 8)
OMK_HTILES(4, 6)

#define OMK_HROW(N, FULL) {htile_1_##N, htile_2_##N, htile_4_##N, htile_##FULL##_##N}
/// `tiles[blocks - 1][height]`: heights 1, 2, 4 and the full one (6 rows for 4 blocks, 8 otherwise).
static const tile_fn tiles[4][4] = {OMK_HROW(1, 8), OMK_HROW(2, 8), OMK_HROW(3, 8), OMK_HROW(4, 6)};

/// `count` (at most ROW_BLOCK) rows from `a`, `lda` apart, `depth` bytes each as the tiles read
/// them, which are rows `first..<first + count` of the whole GEMM (for their batch's zero and scale),
/// times column groups `group_begin..<group_end`.
static OMK_VNNI void hybrid_block(const omk_hybrid_gemm_params *p, const uint8_t *a, size_t lda, size_t count,
                                  size_t depth, size_t first, size_t group_begin, size_t group_end, float *out,
                                  size_t ldo) {
    int32_t zero[ROW_BLOCK];
    float scale[ROW_BLOCK];
    const size_t per = p->rows_per_batch ? p->rows_per_batch : 1;
    int uniform = 1;
    for (size_t i = 0; i < count; i++) {
        const size_t b = (first + i) / per;
        zero[i] = p->batch_zero[b];
        scale[i] = p->batch_scale[b];
        uniform &= zero[i] == zero[0];
    }
    const size_t quads = (p->depth + 3) / 4;
    for (size_t g = group_begin; g < group_end; g++) {
        const size_t col = g * 64, cols = p->columns - col < 64 ? p->columns - col : 64;
        const size_t n = (cols + 15) / 16, in_last = cols - 16 * (n - 1);
        const __mmask16 last = (__mmask16)(in_last == 16 ? 0xFFFF : (1u << in_last) - 1);
        const uint8_t *w = p->weights + g * quads * 256;
        const tile_fn *fn = tiles[n - 1];
        const size_t full = n == 4 ? 6 : 8;
        const size_t i = count - count % full, left = count - i;
        if (i > 0) fn[3](p, a, lda, i, depth, zero, scale, uniform, w, col, last, first, out, ldo);
        if (left > 0) {
            const int which = left == 1 ? 0 : left == 2 ? 1 : left <= 4 ? 2 : 3;
            fn[which](p, a + i * lda, lda, left, depth, zero + i, scale + i, uniform, w, col, last, first + i, out, ldo);
        }
    }
}

OMK_VNNI void omk_hybrid_gemm_vnni(const omk_hybrid_gemm_params *p, const uint8_t *a, size_t lda, size_t row_begin,
                                   size_t row_end, size_t group_begin, size_t group_end, float *out, size_t ldo) {
    const size_t groups = (p->columns + 63) / 64;
    if (group_end > groups) group_end = groups;
    for (size_t r0 = row_begin; r0 < row_end; r0 += ROW_BLOCK) {
        const size_t count = row_end - r0 < ROW_BLOCK ? row_end - r0 : ROW_BLOCK;
        hybrid_block(p, a + r0 * lda, lda, count, p->depth, r0, group_begin, group_end, out, ldo);
    }
}

OMK_VNNI void omk_hybrid_conv_vnni(const omk_hybrid_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin,
                                   size_t row_end, size_t group_begin, size_t group_end, float *out, size_t ldo,
                                   uint8_t *scratch) {
    // im2col rows padded with zeros to whole quads (their packed weights are zero too); blocks end at
    // image boundaries, so that the padding byte is one image's zero + 128.
    const size_t kp = (p->depth + 3) / 4 * 4, block = block_rows(kp), groups = (p->columns + 63) / 64;
    const size_t per_image = g->output_height * g->output_width;
    if (group_end > groups) group_end = groups;
    omk_q8_im2col_params image = *g;
    image.flip = 0;
    for (size_t r0 = row_begin; r0 < row_end;) {
        size_t count = row_end - r0 < block ? row_end - r0 : block;
        const size_t to_edge = per_image - r0 % per_image;
        if (count > to_edge) count = to_edge;
        image.zero = (uint8_t)(p->batch_zero[r0 / per_image] + 128);
        omk_q8_im2col_vnni(&image, r0, count, scratch, kp);
        hybrid_block(p, scratch, kp, count, kp, r0, group_begin, group_end, out, ldo);
        r0 += count;
    }
}

#else

void omk_hybrid_gemm_vnni(const omk_hybrid_gemm_params *p, const uint8_t *a, size_t lda, size_t row_begin,
                          size_t row_end, size_t group_begin, size_t group_end, float *out, size_t ldo) {
    (void)p; (void)a; (void)lda; (void)row_begin; (void)row_end; (void)group_begin; (void)group_end; (void)out;
    (void)ldo;
}

void omk_hybrid_conv_vnni(const omk_hybrid_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin,
                          size_t row_end, size_t group_begin, size_t group_end, float *out, size_t ldo,
                          uint8_t *scratch) {
    (void)p; (void)g; (void)row_begin; (void)row_end; (void)group_begin; (void)group_end; (void)out; (void)ldo;
    (void)scratch;
}

#endif

#include "CKernels.h"

// The 8-bit GEMM with its fused output stage on AVX2 (and AVX-512 without VNNI): the packed weights
// and parameters of omk_q8_gemm_vnni (CKernels.h), and the same integers. AVX2 has no byte dot
// product that is exact here (vpmaddubsw saturates its pair sums), so each block of 4 columns x 4 k
// is sign-extended to 16 int16 lanes and multiplied with the row's 4 activations (0...255, widened)
// by vpmaddwd: each 32-bit lane then holds one column's sum over 2 k, and the two lanes of a column
// are added when the tile is finished. Before this kernel, AVX2 CPUs ran 8-bit convolutions on the
// int16 GEMM, with the activations widened in Swift and the output stage as a separate pass.
//
// A tile's rows are widened to int16 once (XOR 0x80 first for int8 activations), for all the column
// blocks they meet, so that each quad of a row is one 64-bit broadcast. Tiles are up to 6 rows by 8
// columns (12 accumulators); rows of more than WIDE_DEPTH bytes are widened quad by quad instead.
// The output stage is omk_requantize_gemm_to_8's GEMM rounding, with the parameters' addend turned
// back from the fused GEMM's convention (which multiplies acc + 2^31 as unsigned) into the signed one.

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#include "q8_avx2_tile.h"
#include "q8_im2col.h"

/// One block of 8 channels' output stage, prepared once for all the rows of a tile.
typedef struct {
    __m256i bias, left, multiplier, odd_multiplier;
    /// Per 64-bit lane (even channels, odd channels): the addend plus 2^62, the right shift, what
    /// 2^62 becomes under that shift, and all ones where the shift is 63 (the result is then 0).
    __m256i add_even, add_odd, shift_even, shift_odd, sub_even, sub_odd, zero_even, zero_odd;
    /// The zero point and clamp (copied here: a byte store could alias the parameters' fields, which
    /// the compiler would then read again for every row).
    __m256i zero_point, lo, hi;
    int has_left, has_zero;
} stage8;

/// The parameters of channels `c..<c + 8` (whole arrays: every per-channel array is padded).
static OMK_AVX2 OMK_INLINE stage8 prepare_stage(const omk_q8_gemm_params *p, size_t c) {
    stage8 st;
    st.bias = _mm256_loadu_si256((const __m256i *)(p->bias + c));
    st.has_left = p->left != NULL;
    st.left = st.has_left ? _mm256_loadu_si256((const __m256i *)(p->left + c)) : _mm256_setzero_si256();
    const __m256i m = _mm256_loadu_si256((const __m256i *)(p->multiplier + c));
    st.multiplier = m;
    st.odd_multiplier = _mm256_srli_epi64(m, 32);
    // Per block of 16 channels the 64-bit parameters hold the even channels', then the odd ones';
    // channels 2j of this half of the block are at 4·half + j, channels 2j + 1 at 8 + 4·half + j.
    const size_t block = c / 16 * 16, half = (c % 16) / 8;
    const int64_t *addend = p->addend + block + 4 * half, *shift = p->shift + block + 4 * half;
    // The fused GEMM's addend is the stage's minus multiplier · 2^31 (multipliers are non-negative);
    // the sum below is formed as p + addend + 2^62, positive and below 2^64 for |p| < 2^62 and
    // 0 < addend <= 2^62, so that AVX2's logical 64-bit shift gives the floor.
    const __m256i offset = _mm256_set1_epi64x((int64_t)1 << 62), all63 = _mm256_set1_epi64x(63);
    const __m256i m_even = _mm256_and_si256(m, _mm256_set1_epi64x(0xFFFFFFFF));
    st.add_even = _mm256_add_epi64(_mm256_add_epi64(_mm256_loadu_si256((const __m256i *)addend), _mm256_slli_epi64(m_even, 31)), offset);
    st.add_odd = _mm256_add_epi64(
        _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(addend + 8)), _mm256_slli_epi64(st.odd_multiplier, 31)), offset);
    st.shift_even = _mm256_loadu_si256((const __m256i *)shift);
    st.shift_odd = _mm256_loadu_si256((const __m256i *)(shift + 8));
    st.sub_even = _mm256_srlv_epi64(offset, st.shift_even);
    st.sub_odd = _mm256_srlv_epi64(offset, st.shift_odd);
    st.zero_even = _mm256_cmpeq_epi64(st.shift_even, all63);
    st.zero_odd = _mm256_cmpeq_epi64(st.shift_odd, all63);
    st.has_zero = !_mm256_testz_si256(_mm256_or_si256(st.zero_even, st.zero_odd), _mm256_or_si256(st.zero_even, st.zero_odd));
    st.zero_point = _mm256_set1_epi32(p->zero_point);
    st.lo = _mm256_set1_epi32(p->lo);
    st.hi = _mm256_set1_epi32(p->hi);
    return st;
}

/// The output stage of the 8 channels of `st` for one row (`x`: its accumulators without the bias,
/// in channel order), stored as `width` bytes at `out`.
static OMK_AVX2 OMK_INLINE void finish(const stage8 *st, __m256i x, size_t width, uint8_t *out) {
    x = _mm256_add_epi32(x, st->bias);
    if (st->has_left) x = _mm256_sllv_epi32(x, st->left);
    __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, st->multiplier), st->add_even);
    __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), st->odd_multiplier), st->add_odd);
    even = _mm256_sub_epi64(_mm256_srlv_epi64(even, st->shift_even), st->sub_even);
    odd = _mm256_sub_epi64(_mm256_srlv_epi64(odd, st->shift_odd), st->sub_odd);
    if (st->has_zero) {
        even = _mm256_andnot_si256(st->zero_even, even);
        odd = _mm256_andnot_si256(st->zero_odd, odd);
    }
    __m256i v = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
    v = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, st->zero_point), st->lo), st->hi);
    // Clamped to an 8-bit type's range, the low byte is the value (int8 or uint8).
    const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12,
                                          -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i b = _mm256_shuffle_epi8(v, pick);
    const __m128i bytes = _mm_unpacklo_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1));
    if (width == 8) {
        _mm_storel_epi64((__m128i *)out, bytes);
    } else {
        uint8_t t[8];
        _mm_storel_epi64((__m128i *)t, bytes);
        memcpy(out, t, width);
    }
}

/// `terms[r] = scale · Σ a[r][k]` (bytes as uint8, k < depth), wrapping int32.
static OMK_AVX2 void row_terms(const uint8_t *a, size_t lda, size_t rows, size_t depth, int32_t scale, int32_t *terms) {
    for (size_t i = 0; i < rows; i++) {
        const uint8_t *r = a + i * lda;
        __m256i s = _mm256_setzero_si256();
        size_t k = 0;
        for (; k + 32 <= depth; k += 32) {
            s = _mm256_add_epi64(s, _mm256_sad_epu8(_mm256_loadu_si256((const __m256i *)(r + k)), _mm256_setzero_si256()));
        }
        uint64_t lanes[4];
        _mm256_storeu_si256((__m256i *)lanes, s);
        uint32_t sum = (uint32_t)(lanes[0] + lanes[1] + lanes[2] + lanes[3]);
        for (; k < depth; k++) sum += r[k];
        terms[i] = (int32_t)(sum * (uint32_t)scale);
    }
}

/// `count` rows at `a`, `lda` apart, `depth` bytes each read as byte XOR `fl`, times column groups
/// [group_begin, group_end) of the packed weights, finished into `out + r * ldo + c`. `terms`: the
/// uint8 rows' terms (or NULL).
static OMK_AVX2 void block(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t count, size_t depth,
                           int32_t fl, const int32_t *terms, size_t group_begin, size_t group_end, uint8_t *out,
                           size_t ldo) {
    const size_t quads = (p->depth + 3) / 4, kp = 4 * quads;
    const int wide = widens_rows(kp, p->columns, group_begin, group_end);
    int16_t x[wide ? MR * kp : 1] __attribute__((aligned(32)));
    for (size_t i0 = 0; i0 < count; i0 += MR) {
        const size_t rows = count - i0 < MR ? count - i0 : MR;
        if (wide) widen_rows(a + i0 * lda, lda, rows, depth, fl, kp, x);
        __m256i t[MR];
        for (size_t i = 0; i < MR; i++) t[i] = _mm256_set1_epi32(terms && i < rows ? terms[i0 + i] : 0);
        for (size_t g = group_begin; g < group_end; g++) {
            const size_t col = g * 64, cols = p->columns - col < 64 ? p->columns - col : 64;
            const size_t n = (cols + 15) / 16;
            const int8_t *wg = (const int8_t *)p->weights + g * quads * 256;
            for (size_t h = 0; 8 * h < cols; h++) {
                const size_t c = col + 8 * h, width = cols - 8 * h < 8 ? cols - 8 * h : 8;
                __m256i acc[MR][2];
                tile_rows(x, wide, a + i0 * lda, lda, rows, depth, fl, quads, wg + 64 * (h / 2) + 32 * (h % 2), 64 * n,
                          acc);
                const stage8 st = prepare_stage(p, c);
                for (size_t i = 0; i < rows; i++) {
                    finish(&st, _mm256_add_epi32(column_sums8(acc[i]), t[i]), width, out + (i0 + i) * ldo + c);
                }
            }
        }
    }
}

OMK_AVX2 void omk_q8_gemm_avx2(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows,
                               size_t group_begin, size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch) {
    (void)scratch;
    enum { ROWS = 64 };
    const size_t groups = (p->columns + 63) / 64;
    if (group_end > groups) group_end = groups;
    const int flip = p->flip_activations != 0;
    int32_t terms[ROWS];
    for (size_t r0 = 0; r0 < rows; r0 += ROWS) {
        const size_t count = rows - r0 < ROWS ? rows - r0 : ROWS;
        if (!flip) row_terms(a + r0 * lda, lda, count, p->depth, p->row_scale, terms);
        block(p, a + r0 * lda, lda, count, p->depth, flip ? (int32_t)0x80808080u : 0, flip ? NULL : terms,
              group_begin, group_end, out + r0 * ldo, ldo);
    }
}

OMK_AVX2 void omk_q8_conv_avx2(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin,
                               size_t row_end, size_t group_begin, size_t group_end, uint8_t *out, size_t ldo,
                               uint8_t *scratch) {
    // The rows are padded with zeros to whole quads (their packed weights are zero too), in blocks
    // as many as omk_q8_gemm_scratch_bytes sized the scratch for.
    const size_t kp = (p->depth + 3) / 4 * 4, rows_per_block = omk_q8_block_rows(kp), groups = (p->columns + 63) / 64;
    if (group_end > groups) group_end = groups;
    int32_t terms[64];
    for (size_t r0 = row_begin; r0 < row_end; r0 += rows_per_block) {
        const size_t count = row_end - r0 < rows_per_block ? row_end - r0 : rows_per_block;
        im2col_rows(g, r0, count, scratch, kp);
        // Row terms a sub-block of 64 rows at a time (the im2col rows are already flipped for int8).
        for (size_t s0 = 0; s0 < count; s0 += 64) {
            const size_t n = count - s0 < 64 ? count - s0 : 64;
            const uint8_t *rows = scratch + s0 * kp;
            if (!p->flip_activations) row_terms(rows, kp, n, kp, p->row_scale, terms);
            block(p, rows, kp, n, kp, 0, p->flip_activations ? NULL : terms, group_begin, group_end,
                  out + (r0 + s0) * ldo, ldo);
        }
    }
}

#else

void omk_q8_gemm_avx2(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows, size_t group_begin,
                      size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch) {
    (void)p; (void)a; (void)lda; (void)rows; (void)group_begin; (void)group_end; (void)out; (void)ldo; (void)scratch;
}

void omk_q8_conv_avx2(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin, size_t row_end,
                      size_t group_begin, size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch) {
    (void)p; (void)g; (void)row_begin; (void)row_end; (void)group_begin; (void)group_end; (void)out; (void)ldo;
    (void)scratch;
}

#endif

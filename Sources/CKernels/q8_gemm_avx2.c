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

#include "q8_im2col.h"

#define OMK_AVX2 __attribute__((target("avx2")))
#define OMK_INLINE inline __attribute__((always_inline))

/// The row's 4 activation bytes at `p` (XOR `fl`), widened to int16 and repeated in each 64-bit lane.
static OMK_AVX2 OMK_INLINE __m256i quad_activations(const uint8_t *p, int32_t fl) {
    int32_t word;
    memcpy(&word, p, 4);
    return _mm256_cvtepu8_epi16(_mm_set1_epi32(word ^ fl));
}

/// The last 1...3 bytes of a row (zero-extended; their packed weights are zero), XOR `fl`.
static OMK_AVX2 OMK_INLINE __m256i tail_activations(const uint8_t *p, size_t rest, int32_t fl) {
    int32_t word = 0;
    memcpy(&word, p, rest);
    // Only the bytes that exist are flipped: the others must stay 0 (their products are 0 anyway).
    const int32_t mask = (int32_t)((1u << (8 * rest)) - 1);
    return _mm256_cvtepu8_epi16(_mm_set1_epi32(word ^ (fl & mask)));
}

/// `acc[i]` (two vectors per row: columns 0-3 and 4-7 of the 8, each column's sum in two lanes) over
/// `depth` k of the rows `r[0..<4]` against 8 columns of packed weights at `w` (32 bytes per quad,
/// quads `stride` bytes apart).
static OMK_AVX2 OMK_INLINE void tile(const uint8_t *const r[4], size_t depth, int32_t fl, const int8_t *w,
                                     size_t stride, __m256i acc[4][2]) {
    const size_t quads = depth / 4, rest = depth % 4;
    for (size_t q = 0; q < quads; q++, w += stride) {
        const __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)w));
        const __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + 16)));
        for (int i = 0; i < 4; i++) {
            const __m256i x = quad_activations(r[i] + 4 * q, fl);
            acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(w0, x));
            acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(w1, x));
        }
    }
    if (rest != 0) {
        const __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)w));
        const __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + 16)));
        for (int i = 0; i < 4; i++) {
            const __m256i x = tail_activations(r[i] + 4 * quads, rest, fl);
            acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(w0, x));
            acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(w1, x));
        }
    }
}

/// Rows of a tile, and the longest rows widened whole (MR rows of int16 on the stack: 48 KB).
enum { MR = 6, WIDE_DEPTH = 4096 };

/// `acc[i]` over `quads` quads of `R` widened rows (`x + i * ldx`, int16) against 8 columns of packed
/// weights at `w` (32 bytes per quad, quads `stride` bytes apart).
static OMK_AVX2 OMK_INLINE void tile_wide(const int16_t *x, size_t ldx, size_t quads, const int8_t *w, size_t stride,
                                          __m256i acc[MR][2], const int R) {
    // Local sums (acc itself could alias the operands for all the compiler knows, and would be
    // stored back on every quad).
    __m256i s0[MR], s1[MR];
    for (int i = 0; i < R; i++) s0[i] = s1[i] = _mm256_setzero_si256();
    for (size_t q = 0; q < quads; q++, w += stride) {
        const __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)w));
        const __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + 16)));
        for (int i = 0; i < R; i++) {
            int64_t quad;
            memcpy(&quad, x + (size_t)i * ldx + 4 * q, 8);
            const __m256i a = _mm256_set1_epi64x(quad);
            s0[i] = _mm256_add_epi32(s0[i], _mm256_madd_epi16(w0, a));
            s1[i] = _mm256_add_epi32(s1[i], _mm256_madd_epi16(w1, a));
        }
    }
    for (int i = 0; i < R; i++) {
        acc[i][0] = s0[i];
        acc[i][1] = s1[i];
    }
}

typedef void (*wide_fn)(const int16_t *, size_t, size_t, const int8_t *, size_t, __m256i[MR][2]);
#define OMK_WIDE(R)                                                                                             \
    static OMK_AVX2 void tile_wide_##R(const int16_t *x, size_t ldx, size_t quads, const int8_t *w, size_t stride, \
                                       __m256i acc[MR][2]) {                                                     \
        tile_wide(x, ldx, quads, w, stride, acc, R);                                                             \
    }
OMK_WIDE(1) OMK_WIDE(2) OMK_WIDE(3) OMK_WIDE(4) OMK_WIDE(5) OMK_WIDE(6)
static const wide_fn wide_tiles[MR] = {tile_wide_1, tile_wide_2, tile_wide_3, tile_wide_4, tile_wide_5, tile_wide_6};

/// `rows` rows of `depth` bytes at `a` (`lda` apart; no byte past a row is read), XOR `fl`, widened
/// to int16 at `x` (`kp` apart, zeros from `depth` to `kp`).
static OMK_AVX2 void widen_rows(const uint8_t *a, size_t lda, size_t rows, size_t depth, int32_t fl, size_t kp,
                                int16_t *x) {
    const __m128i flips = _mm_set1_epi8((char)(fl & 0xFF));
    for (size_t i = 0; i < rows; i++) {
        const uint8_t *r = a + i * lda;
        int16_t *d = x + i * kp;
        size_t k = 0;
        for (; k + 16 <= depth; k += 16) {
            const __m128i v = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(r + k)), flips);
            _mm256_storeu_si256((__m256i *)(d + k), _mm256_cvtepu8_epi16(v));
        }
        for (; k < depth; k++) d[k] = (int16_t)(uint8_t)(r[k] ^ (uint8_t)fl);
        for (; k < kp; k++) d[k] = 0;
    }
}

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
    const int wide = kp <= WIDE_DEPTH;
    int16_t x[wide ? MR * kp : 1] __attribute__((aligned(32)));
    for (size_t i0 = 0; i0 < count; i0 += MR) {
        const size_t rows = count - i0 < MR ? count - i0 : MR;
        const uint8_t *r[4] = {0};
        if (wide) widen_rows(a + i0 * lda, lda, rows, depth, fl, kp, x);
        __m256i t[MR];
        for (size_t i = 0; i < MR; i++) t[i] = _mm256_set1_epi32(terms && i < rows ? terms[i0 + i] : 0);
        for (size_t g = group_begin; g < group_end; g++) {
            const size_t col = g * 64, cols = p->columns - col < 64 ? p->columns - col : 64;
            const size_t n = (cols + 15) / 16;
            const int8_t *wg = (const int8_t *)p->weights + g * quads * 256;
            for (size_t h = 0; 8 * h < cols; h++) {
                const size_t c = col + 8 * h, width = cols - 8 * h < 8 ? cols - 8 * h : 8;
                const int8_t *w = wg + 64 * (h / 2) + 32 * (h % 2);
                __m256i acc[MR][2];
                for (int i = 0; i < MR; i++) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
                if (wide) {
                    wide_tiles[rows - 1](x, kp, quads, w, 64 * n, acc);
                } else {
                    // Long rows: 4 rows at a time, widened quad by quad (rows past the last repeat it).
                    for (size_t j0 = 0; j0 < rows; j0 += 4) {
                        __m256i part[4][2];
                        for (int i = 0; i < 4; i++) {
                            r[i] = a + (i0 + (j0 + (size_t)i < rows ? j0 + (size_t)i : rows - 1)) * lda;
                            part[i][0] = part[i][1] = _mm256_setzero_si256();
                        }
                        tile(r, depth, fl, w, 64 * n, part);
                        for (size_t i = 0; i < 4 && j0 + i < rows; i++) {
                            acc[j0 + i][0] = part[i][0];
                            acc[j0 + i][1] = part[i][1];
                        }
                    }
                }
                const stage8 st = prepare_stage(p, c);
                for (size_t i = 0; i < rows; i++) {
                    // Lanes (c0, c0, c1, c1 | c2, c2, c3, c3) and the same for c4-c7: pairs added,
                    // then the 128-bit halves put back in channel order.
                    const __m256i sums = _mm256_permute4x64_epi64(_mm256_hadd_epi32(acc[i][0], acc[i][1]), 0xD8);
                    finish(&st, _mm256_add_epi32(sums, t[i]), width, out + (i0 + i) * ldo + c);
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

/// The im2col rows of output pixels `first..<first + count` (batch-major), `kp` bytes apart: each
/// tap's channels in (ky, kx) order (XOR 0x80 for int8), the input zero point (flipped alike) for a
/// tap in the padding, zeros up to `kp`: the rows omk_q8_im2col_vnni writes.
static OMK_AVX2 void im2col_rows(const omk_q8_im2col_params *g, size_t first, size_t count, uint8_t *dst, size_t kp) {
    const size_t c = g->channels, line = g->input_width * c, image = g->input_height * line;
    const size_t k = g->filter_height * g->filter_width * c, per_image = g->output_height * g->output_width;
    const uint8_t flip = g->flip ? 0x80 : 0, zero = (uint8_t)(g->zero ^ flip);
    const __m256i flips = _mm256_set1_epi8((char)flip);
    for (size_t t = 0; t < count; t++) {
        const size_t pixel = first + t;
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
                for (; i + 32 <= c; i += 32) {
                    _mm256_storeu_si256((__m256i *)(d + i),
                                        _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(s + i)), flips));
                }
                for (; i < c; i++) d[i] = s[i] ^ flip;
            }
        }
        memset(dst + t * kp + k, 0, kp - k);
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

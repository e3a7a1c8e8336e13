#ifndef OMK_Q8_AVX2_TILE_H
#define OMK_Q8_AVX2_TILE_H

// The AVX2 tiles of the 8-bit GEMM that reads omk_q8_pack_weights' layout with vpmaddwd
// (q8_gemm_avx2.c; private, x86 only). Each quad of 4
// columns x 4 k is sign-extended to 16 int16 lanes and multiplied with a row's 4 activations
// (unsigned bytes, widened, repeated per 64-bit lane), so a column's sum lies in two 32-bit lanes;
// `column_sums8` adds them when a tile is finished.

#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

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

/// Whether a tile's rows are widened once (into MR rows of int16) rather than quad by quad: worth it
/// when they meet at least 3 blocks of 8 columns (below that, widening costs about what it saves)
/// and fit WIDE_DEPTH.
static inline int widens_rows(size_t kp, size_t columns, size_t group_begin, size_t group_end) {
    const size_t first = group_begin * 64, end = group_end * 64 < columns ? group_end * 64 : columns;
    return kp <= WIDE_DEPTH && end > first && (end - first + 7) / 8 >= 3;
}

/// The 8 column sums of one row of a tile (`acc`: columns 0-3 and 4-7, two lanes per column), in
/// column order.
static OMK_AVX2 OMK_INLINE __m256i column_sums8(const __m256i acc[2]) {
    return _mm256_permute4x64_epi64(_mm256_hadd_epi32(acc[0], acc[1]), 0xD8);
}

/// A tile's `rows` (at most MR) rows at `a` (`lda` apart, `depth` readable bytes each, XOR `fl`)
/// times 8 columns of packed weights at `w` (quads `stride` bytes apart) into `acc`: through the
/// widened rows at `x` (`kp` int16 apart, made by the caller with widen_rows) when `wide`, else 4 rows
/// at a time, widened quad by quad.
static OMK_AVX2 OMK_INLINE void tile_rows(const int16_t *x, int wide, const uint8_t *a, size_t lda, size_t rows,
                                          size_t depth, int32_t fl, size_t quads, const int8_t *w, size_t stride,
                                          __m256i acc[MR][2]) {
    for (int i = 0; i < MR; i++) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
    if (wide) {
        wide_tiles[rows - 1](x, 4 * quads, quads, w, stride, acc);
        return;
    }
    for (size_t j0 = 0; j0 < rows; j0 += 4) {
        const uint8_t *r[4];
        __m256i part[4][2];
        for (int i = 0; i < 4; i++) {
            // Rows past the last repeat it (not stored).
            r[i] = a + (j0 + (size_t)i < rows ? j0 + (size_t)i : rows - 1) * lda;
            part[i][0] = part[i][1] = _mm256_setzero_si256();
        }
        tile(r, depth, fl, w, stride, part);
        for (size_t i = 0; i < 4 && j0 + i < rows; i++) {
            acc[j0 + i][0] = part[i][0];
            acc[j0 + i][1] = part[i][1];
        }
    }
}

/// `n` bytes from `s` to `d`, XOR `flip` (`flips`: it in every byte).
static OMK_AVX2 OMK_INLINE void copy_flipped(uint8_t *d, const uint8_t *s, size_t n, uint8_t flip, __m256i flips) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        _mm256_storeu_si256((__m256i *)(d + i), _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(s + i)), flips));
    }
    for (; i < n; i++) d[i] = s[i] ^ flip;
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
            const int row_inside = iy >= 0 && iy < (ptrdiff_t)g->input_height;
            if (row_inside && g->dilation_width == 1 && ix0 >= 0 &&
                ix0 + (ptrdiff_t)g->filter_width <= (ptrdiff_t)g->input_width) {
                // The filter row lies inside the image: its taps are one run of the input.
                copy_flipped(d, g->input + b * image + (size_t)iy * line + (size_t)ix0 * c, g->filter_width * c, flip,
                             flips);
                d += g->filter_width * c;
                continue;
            }
            for (size_t kx = 0; kx < g->filter_width; kx++, d += c) {
                const ptrdiff_t ix = ix0 + (ptrdiff_t)(kx * g->dilation_width);
                if (!row_inside || ix < 0 || ix >= (ptrdiff_t)g->input_width) {
                    memset(d, zero, c);
                    continue;
                }
                copy_flipped(d, g->input + b * image + (size_t)iy * line + (size_t)ix * c, c, flip, flips);
            }
        }
        memset(dst + t * kp + k, 0, kp - k);
    }
}

#endif

#endif

#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#define OMK_VNNI __attribute__((target("avx512vnni,avx512bw,avx512vl,avx512f")))
#define OMK_INLINE __attribute__((always_inline)) inline

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

/// The tile body for a constant `mr` (so the accumulator array lives in registers) and operand
/// order: `weights_unsigned` multiplies unsigned packed weights by signed activations (int8 models),
/// otherwise unsigned activations by signed packed weights (uint8 models).
static OMK_VNNI OMK_INLINE void tile(const uint8_t *const *a, const size_t mr, size_t taps, size_t depth,
                                     const uint8_t *b, const int weights_unsigned, const int32_t *row_offset,
                                     int32_t *acc, size_t ldacc) {
    __m512i c[8];
    for (size_t i = 0; i < mr; i++) c[i] = _mm512_set1_epi32(row_offset[i]);
    const size_t quads = depth / 4, rest = depth % 4;
    const __mmask16 rest_mask = (__mmask16)((1u << rest) - 1);
    const uint8_t *w = b;
    for (size_t t = 0; t < taps; t++) {
        const uint8_t *const *r = a + t * 8;
        const uint8_t *p[8];
        for (size_t i = 0; i < mr; i++) p[i] = r[i];
        for (size_t q = 0; q < quads; q++) {
            const __m512i v = _mm512_loadu_si512((const void *)w);
            for (size_t i = 0; i < mr; i++) {
                const __m512i x = quad(p[i] + 4 * q);
                c[i] = weights_unsigned ? _mm512_dpbusd_epi32(c[i], v, x) : _mm512_dpbusd_epi32(c[i], x, v);
            }
            w += 64;
        }
        if (rest) {
            const __m512i v = _mm512_loadu_si512((const void *)w);
            for (size_t i = 0; i < mr; i++) {
                const __m512i x = tail_quad(p[i] + 4 * quads, rest_mask);
                c[i] = weights_unsigned ? _mm512_dpbusd_epi32(c[i], v, x) : _mm512_dpbusd_epi32(c[i], x, v);
            }
            w += 64;
        }
    }
    for (size_t i = 0; i < mr; i++) _mm512_storeu_si512((void *)(acc + i * ldacc), c[i]);
}

#define OMK_TILE_CASE(n)                                                                  \
    case n:                                                                               \
        if (weights_unsigned)                                                             \
            tile(a, n, taps, depth, b, 1, row_offset, acc, ldacc);                        \
        else                                                                              \
            tile(a, n, taps, depth, b, 0, row_offset, acc, ldacc);                        \
        break;

OMK_VNNI void omk_q8_gemm_8x16_vnni(const uint8_t *const *a, size_t rows, size_t taps, size_t depth,
                                    const uint8_t *b, int weights_unsigned, const int32_t *row_offset, int32_t *acc,
                                    size_t ldacc) {
    switch (rows) {
        OMK_TILE_CASE(1)
        OMK_TILE_CASE(2)
        OMK_TILE_CASE(3)
        OMK_TILE_CASE(4)
        OMK_TILE_CASE(5)
        OMK_TILE_CASE(6)
        OMK_TILE_CASE(7)
        OMK_TILE_CASE(8)
        default: break;
    }
}

OMK_VNNI void omk_q8_row_offsets_vnni(const uint8_t *const *a, size_t rows, size_t taps, size_t depth,
                                      int activations_signed, int32_t scale, int32_t *row_offset) {
    const __m512i ones = _mm512_set1_epi8(1);
    for (size_t i = 0; i < rows; i++) {
        __m512i s = _mm512_setzero_si512();
        for (size_t t = 0; t < taps; t++) {
            const uint8_t *p = a[t * 8 + i];
            size_t k = 0;
            for (; k + 64 <= depth; k += 64) {
                const __m512i v = _mm512_loadu_si512((const void *)(p + k));
                s = activations_signed ? _mm512_dpbusd_epi32(s, ones, v) : _mm512_dpbusd_epi32(s, v, ones);
            }
            if (k < depth) {
                // Masked-off bytes are neither read nor counted (they load as zero).
                const __mmask64 m = (1ULL << (depth - k)) - 1;
                const __m512i v = _mm512_maskz_loadu_epi8(m, (const void *)(p + k));
                s = activations_signed ? _mm512_dpbusd_epi32(s, ones, v) : _mm512_dpbusd_epi32(s, v, ones);
            }
        }
        // Unsigned arithmetic: the products wrap like LiteRT's int32 sums, without undefined behaviour.
        const uint32_t sum = (uint32_t)_mm512_reduce_add_epi32(s);
        row_offset[i] = (int32_t)(sum * (uint32_t)scale);
    }
}

#else

void omk_q8_gemm_8x16_vnni(const uint8_t *const *a, size_t rows, size_t taps, size_t depth, const uint8_t *b,
                           int weights_unsigned, const int32_t *row_offset, int32_t *acc, size_t ldacc) {
    (void)a; (void)rows; (void)taps; (void)depth; (void)b; (void)weights_unsigned; (void)row_offset; (void)acc;
    (void)ldacc;
}

void omk_q8_row_offsets_vnni(const uint8_t *const *a, size_t rows, size_t taps, size_t depth, int activations_signed,
                             int32_t scale, int32_t *row_offset) {
    (void)a; (void)rows; (void)taps; (void)depth; (void)activations_signed; (void)scale; (void)row_offset;
}

#endif

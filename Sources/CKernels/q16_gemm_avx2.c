#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#define OMK_TARGET __attribute__((target("avx2")))

/// Two consecutive int16 values as one broadcast 32-bit lane (the operand of vpmaddwd).
static OMK_TARGET inline __m256i pair32(const int16_t *p) {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return _mm256_set1_epi32(v);
}

/// The odd last value of a row, paired with 0 (its packed weight partner is 0 too).
static OMK_TARGET inline __m256i last16(const int16_t *p) { return _mm256_set1_epi32((int32_t)(uint16_t)*p); }

OMK_TARGET void omk_q16_gemm_8x8_avx2(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b,
                                      int32_t *acc, size_t ldacc) {
    __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
    const int16_t *w = b;
    for (size_t t = 0; t < taps; t++) {
        const int16_t *const *r = a + t * 8;
        const int16_t *a0 = r[0], *a1 = r[1], *a2 = r[2], *a3 = r[3];
        const int16_t *a4 = r[4], *a5 = r[5], *a6 = r[6], *a7 = r[7];
        const size_t pairs = depth / 2;
        for (size_t p = 0; p < pairs; p++) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)w);
            const size_t k = 2 * p;
            c0 = _mm256_add_epi32(c0, _mm256_madd_epi16(pair32(a0 + k), v));
            c1 = _mm256_add_epi32(c1, _mm256_madd_epi16(pair32(a1 + k), v));
            c2 = _mm256_add_epi32(c2, _mm256_madd_epi16(pair32(a2 + k), v));
            c3 = _mm256_add_epi32(c3, _mm256_madd_epi16(pair32(a3 + k), v));
            c4 = _mm256_add_epi32(c4, _mm256_madd_epi16(pair32(a4 + k), v));
            c5 = _mm256_add_epi32(c5, _mm256_madd_epi16(pair32(a5 + k), v));
            c6 = _mm256_add_epi32(c6, _mm256_madd_epi16(pair32(a6 + k), v));
            c7 = _mm256_add_epi32(c7, _mm256_madd_epi16(pair32(a7 + k), v));
            w += 16;
        }
        if (depth & 1) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)w);
            const size_t k = depth - 1;
            c0 = _mm256_add_epi32(c0, _mm256_madd_epi16(last16(a0 + k), v));
            c1 = _mm256_add_epi32(c1, _mm256_madd_epi16(last16(a1 + k), v));
            c2 = _mm256_add_epi32(c2, _mm256_madd_epi16(last16(a2 + k), v));
            c3 = _mm256_add_epi32(c3, _mm256_madd_epi16(last16(a3 + k), v));
            c4 = _mm256_add_epi32(c4, _mm256_madd_epi16(last16(a4 + k), v));
            c5 = _mm256_add_epi32(c5, _mm256_madd_epi16(last16(a5 + k), v));
            c6 = _mm256_add_epi32(c6, _mm256_madd_epi16(last16(a6 + k), v));
            c7 = _mm256_add_epi32(c7, _mm256_madd_epi16(last16(a7 + k), v));
            w += 16;
        }
    }
    _mm256_storeu_si256((__m256i *)(acc + 0 * ldacc), c0);
    _mm256_storeu_si256((__m256i *)(acc + 1 * ldacc), c1);
    _mm256_storeu_si256((__m256i *)(acc + 2 * ldacc), c2);
    _mm256_storeu_si256((__m256i *)(acc + 3 * ldacc), c3);
    _mm256_storeu_si256((__m256i *)(acc + 4 * ldacc), c4);
    _mm256_storeu_si256((__m256i *)(acc + 5 * ldacc), c5);
    _mm256_storeu_si256((__m256i *)(acc + 6 * ldacc), c6);
    _mm256_storeu_si256((__m256i *)(acc + 7 * ldacc), c7);
}

#else

void omk_q16_gemm_8x8_avx2(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b, int32_t *acc,
                           size_t ldacc) {
    (void)a; (void)taps; (void)depth; (void)b; (void)acc; (void)ldacc;
}

#endif

#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#define OMK_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#define OMK_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))

/// Two consecutive int16 values as one broadcast 32-bit lane.
static OMK_AVX512 inline __m512i pair32(const int16_t *p) {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return _mm512_set1_epi32(v);
}

/// The odd last value of a row, paired with 0 (its packed weight partner is 0 too).
static OMK_AVX512 inline __m512i last16(const int16_t *p) { return _mm512_set1_epi32((int32_t)(uint16_t)*p); }

/// The weights of one pair of k for two adjacent 8-column panels, as one 16-column vector.
static OMK_AVX512 inline __m512i panels2(const int16_t *w0, const int16_t *w1) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)w0)),
                              _mm256_loadu_si256((const __m256i *)w1), 1);
}

// acc + Σ pair products, wrapping like vpmaddwd + vpaddd (every sum is modulo 2^32 either way).
#define MADD_BW(c, x, v) _mm512_add_epi32((c), _mm512_madd_epi16((x), (v)))
#define MADD_VNNI(c, x, v) _mm512_dpwssd_epi32((c), (x), (v))

/// 8 rows × 16 columns (two packed 8-column panels at `b0` and `b1`) of the int16 GEMM.
#define Q16_GEMM_8X16(NAME, TARGET, MADD)                                                                        \
    TARGET void NAME(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b0, const int16_t *b1,    \
                     int32_t *acc, size_t ldacc) {                                                                \
        __m512i c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;      \
        const int16_t *w0 = b0, *w1 = b1;                                                                        \
        const size_t pairs = depth / 2;                                                                          \
        for (size_t t = 0; t < taps; t++) {                                                                      \
            const int16_t *const *r = a + t * 8;                                                                 \
            const int16_t *a0 = r[0], *a1 = r[1], *a2 = r[2], *a3 = r[3];                                        \
            const int16_t *a4 = r[4], *a5 = r[5], *a6 = r[6], *a7 = r[7];                                        \
            for (size_t p = 0; p < pairs; p++) {                                                                 \
                const __m512i v = panels2(w0, w1);                                                               \
                const size_t k = 2 * p;                                                                          \
                c0 = MADD(c0, pair32(a0 + k), v);                                                                \
                c1 = MADD(c1, pair32(a1 + k), v);                                                                \
                c2 = MADD(c2, pair32(a2 + k), v);                                                                \
                c3 = MADD(c3, pair32(a3 + k), v);                                                                \
                c4 = MADD(c4, pair32(a4 + k), v);                                                                \
                c5 = MADD(c5, pair32(a5 + k), v);                                                                \
                c6 = MADD(c6, pair32(a6 + k), v);                                                                \
                c7 = MADD(c7, pair32(a7 + k), v);                                                                \
                w0 += 16;                                                                                        \
                w1 += 16;                                                                                        \
            }                                                                                                    \
            if (depth & 1) {                                                                                     \
                const __m512i v = panels2(w0, w1);                                                               \
                const size_t k = depth - 1;                                                                      \
                c0 = MADD(c0, last16(a0 + k), v);                                                                \
                c1 = MADD(c1, last16(a1 + k), v);                                                                \
                c2 = MADD(c2, last16(a2 + k), v);                                                                \
                c3 = MADD(c3, last16(a3 + k), v);                                                                \
                c4 = MADD(c4, last16(a4 + k), v);                                                                \
                c5 = MADD(c5, last16(a5 + k), v);                                                                \
                c6 = MADD(c6, last16(a6 + k), v);                                                                \
                c7 = MADD(c7, last16(a7 + k), v);                                                                \
                w0 += 16;                                                                                        \
                w1 += 16;                                                                                        \
            }                                                                                                    \
        }                                                                                                        \
        _mm512_storeu_si512((void *)(acc + 0 * ldacc), c0);                                                      \
        _mm512_storeu_si512((void *)(acc + 1 * ldacc), c1);                                                      \
        _mm512_storeu_si512((void *)(acc + 2 * ldacc), c2);                                                      \
        _mm512_storeu_si512((void *)(acc + 3 * ldacc), c3);                                                      \
        _mm512_storeu_si512((void *)(acc + 4 * ldacc), c4);                                                      \
        _mm512_storeu_si512((void *)(acc + 5 * ldacc), c5);                                                      \
        _mm512_storeu_si512((void *)(acc + 6 * ldacc), c6);                                                      \
        _mm512_storeu_si512((void *)(acc + 7 * ldacc), c7);                                                      \
    }

Q16_GEMM_8X16(omk_q16_gemm_8x16_avx512, OMK_AVX512, MADD_BW)
Q16_GEMM_8X16(omk_q16_gemm_8x16_vnni, OMK_VNNI, MADD_VNNI)

#else

void omk_q16_gemm_8x16_avx512(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b0,
                              const int16_t *b1, int32_t *acc, size_t ldacc) {
    (void)a; (void)taps; (void)depth; (void)b0; (void)b1; (void)acc; (void)ldacc;
}

void omk_q16_gemm_8x16_vnni(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b0, const int16_t *b1,
                            int32_t *acc, size_t ldacc) {
    (void)a; (void)taps; (void)depth; (void)b0; (void)b1; (void)acc; (void)ldacc;
}

#endif

#include "CKernels.h"

// QUANTIZE float32 -> int8/uint8 as LiteRT's x86 wheel runs its NEON block loop (through
// NEON_2_SSE): `vcvtnq_s32_f32(x · (1 / scale))`, which is SSE's `cvtps2dq` in the default rounding
// mode (ties to even; NaN and values outside int32 give INT32_MIN), plus the zero point in
// wrapping int32, clamped to the type's range. Swift's `QuantizeKernel` keeps the scalar tail.
// x86 only: the aarch64 conversion saturates instead, and the table leaves the entry NULL there.

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define OMK_AVX2 __attribute__((target("avx2,fma")))
#define OMK_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

OMK_AVX2 void omk_q8_quantize_f32_avx2(const float *x, size_t count, float reciprocal, int32_t zero_point, int32_t lo,
                                       int32_t hi, uint8_t *out) {
    const __m256 r = _mm256_set1_ps(reciprocal);
    const __m256i zp = _mm256_set1_epi32(zero_point), vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
    for (size_t i = 0; i + 8 <= count; i += 8) {
        __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + i), r)), zp);
        q = _mm256_min_epi32(_mm256_max_epi32(q, vlo), vhi);
        // Clamped to an 8-bit type's range: the low byte of each lane is the value.
        const __m256i bytes = _mm256_shuffle_epi8(
            q, _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1,
                                -1, -1, -1, -1, -1, -1, -1, -1, -1));
        const uint32_t low = (uint32_t)_mm256_extract_epi32(bytes, 0), high = (uint32_t)_mm256_extract_epi32(bytes, 4);
        const uint64_t word = (uint64_t)low | (uint64_t)high << 32;
        __builtin_memcpy(out + i, &word, 8);
    }
}

OMK_AVX512 void omk_q8_quantize_f32_avx512(const float *x, size_t count, float reciprocal, int32_t zero_point,
                                           int32_t lo, int32_t hi, uint8_t *out) {
    const __m512 r = _mm512_set1_ps(reciprocal);
    const __m512i zp = _mm512_set1_epi32(zero_point), vlo = _mm512_set1_epi32(lo), vhi = _mm512_set1_epi32(hi);
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x + i), r)), zp);
        q = _mm512_min_epi32(_mm512_max_epi32(q, vlo), vhi);
        _mm_storeu_si128((__m128i *)(out + i), _mm512_cvtepi32_epi8(q));
    }
    if (i < count) omk_q8_quantize_f32_avx2(x + i, count - i, reciprocal, zero_point, lo, hi, out + i);
}

#else

void omk_q8_quantize_f32_avx2(const float *x, size_t count, float reciprocal, int32_t zero_point, int32_t lo,
                              int32_t hi, uint8_t *out) {
    (void)x; (void)count; (void)reciprocal; (void)zero_point; (void)lo; (void)hi; (void)out;
}

void omk_q8_quantize_f32_avx512(const float *x, size_t count, float reciprocal, int32_t zero_point, int32_t lo,
                                int32_t hi, uint8_t *out) {
    (void)x; (void)count; (void)reciprocal; (void)zero_point; (void)lo; (void)hi; (void)out;
}

#endif

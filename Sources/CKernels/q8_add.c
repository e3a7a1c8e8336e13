#include "CKernels.h"

#include <string.h>

#include "q8_add_stage.h"

// 8-bit quantized ADD without broadcasting, as the vector blocks of LiteRT's optimized kernels run
// on x86 (NEON through NEON_2_SSE): the same integers as `QuantizedBinaryParams.addBlockInt8` and
// `addBlockShiftAfter`, 16 (AVX-512) or 8 (AVX2) elements at a time. Every lane is independent, so
// the grouping does not change any result; the caller keeps LiteRT's block/tail split.

typedef omk_q8_add_stage input_stage;

#if defined(__aarch64__)
#include <arm_neon.h>

#include "kernels_arm.h"

/// One input's stage on four lanes: offset, shifts by (wrapping left, truncating right) amounts,
/// then the doubling high multiply (`vqrdmulhq_s32`, as LiteRT's NEON blocks themselves run it).
static inline int32x4_t input4(int32x4_t x, const input_stage *s) {
    int32x4_t v = vaddq_s32(x, vdupq_n_s32(s->offset));
    v = vshlq_s32(vshlq_s32(v, vdupq_n_s32(s->pre_left)), vdupq_n_s32(-s->pre_right));
    v = vqrdmulhq_s32(v, vdupq_n_s32(s->multiplier));
    return vshlq_s32(vshlq_s32(v, vdupq_n_s32(s->post_left)), vdupq_n_s32(-s->post_right));
}

/// Eight bytes widened to two vectors of four int32 lanes.
static inline void widen8(uint8x8_t bytes, int is_signed, int32x4_t *lo, int32x4_t *hi) {
    const int16x8_t h = is_signed ? vmovl_s8(vreinterpret_s8_u8(bytes)) : vreinterpretq_s16_u16(vmovl_u8(bytes));
    *lo = vmovl_s16(vget_low_s16(h));
    *hi = vmovl_high_s16(h);
}

void omk_q8_add_neon(const void *a, const void *b, void *out, size_t count, int is_signed,
                     const omk_q8_add_params *p) {
    const input_stage s1 = omk_q8_add_input(p->input1_offset, p->input1_multiplier, p->input1_shift, p->left_shift, is_signed);
    const input_stage s2 = omk_q8_add_input(p->input2_offset, p->input2_multiplier, p->input2_shift, p->left_shift, is_signed);
    const int32_t exponent = p->output_shift < 0 ? -p->output_shift : 0;
    const int32_t pot_mask = (int32_t)(((int64_t)1 << exponent) - 1);
    const int32x4_t mask = vdupq_n_s32(pot_mask), half = vdupq_n_s32(pot_mask >> 1);
    const int32x4_t out_mult = vdupq_n_s32(p->output_multiplier), right = vdupq_n_s32(-exponent);
    const int32x4_t zp = vdupq_n_s32(p->output_offset);
    const int32x4_t lower = vdupq_n_s32(is_signed ? -128 : 0), upper = vdupq_n_s32(is_signed ? 127 : 255);
    const int32x4_t act_min = vdupq_n_s32(p->activation_min), act_max = vdupq_n_s32(p->activation_max);
    const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
    uint8_t *po = (uint8_t *)out;
    for (size_t i = 0; i < count; i += 8) {
        const size_t n = count - i < 8 ? count - i : 8;
        uint8_t ta[8] = {0}, tb[8] = {0}, to[8];
        memcpy(ta, pa + i, n);
        memcpy(tb, pb + i, n);
        int32x4_t x[2], y[2], r[2];
        widen8(vld1_u8(ta), is_signed, &x[0], &x[1]);
        widen8(vld1_u8(tb), is_signed, &y[0], &y[1]);
        for (int h = 0; h < 2; h++) {
            const int32x4_t high = vqrdmulhq_s32(vaddq_s32(input4(x[h], &s1), input4(y[h], &s2)), out_mult);
            // RoundingDivideByPOT: x >> e, plus one when the remainder exceeds half (ties away from zero).
            const int32x4_t threshold = vsubq_s32(half, vreinterpretq_s32_u32(vcltzq_s32(high)));
            const int32x4_t up = vreinterpretq_s32_u32(vcgtq_s32(vandq_s32(high, mask), threshold));
            int32x4_t v = vsubq_s32(vshlq_s32(high, right), up);
            // The zero point is added in int16 lanes (wrapping), then saturated to the element type.
            v = vshrq_n_s32(vshlq_n_s32(vaddq_s32(v, zp), 16), 16);
            v = vminq_s32(vmaxq_s32(v, lower), upper);
            r[h] = vminq_s32(vmaxq_s32(v, act_min), act_max);
        }
        const int16x8_t narrow = vcombine_s16(vmovn_s32(r[0]), vmovn_s32(r[1]));
        vst1_u8(to, vreinterpret_u8_s8(vmovn_s16(narrow)));
        memcpy(po + i, to, n);
    }
}

#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "fixed_point_simd.h"

#define OMK_TARGET_512 __attribute__((target("avx512f,avx512bw,avx512vl")))
#define OMK_TARGET_256 __attribute__((target("avx2")))

static OMK_TARGET_512 inline __m512i input16(__m512i x, const input_stage *s) {
    __m512i v = _mm512_add_epi32(x, _mm512_set1_epi32(s->offset));
    v = _mm512_sra_epi32(_mm512_sll_epi32(v, _mm_cvtsi32_si128(s->pre_left)), _mm_cvtsi32_si128(s->pre_right));
    v = omk_srdhm16(v, _mm512_set1_epi32(s->multiplier));
    return _mm512_sra_epi32(_mm512_sll_epi32(v, _mm_cvtsi32_si128(s->post_left)), _mm_cvtsi32_si128(s->post_right));
}

OMK_TARGET_512 void omk_q8_add_avx512(const void *a, const void *b, void *out, size_t count, int is_signed,
                                      const omk_q8_add_params *p) {
    const input_stage s1 = omk_q8_add_input(p->input1_offset, p->input1_multiplier, p->input1_shift, p->left_shift, is_signed);
    const input_stage s2 = omk_q8_add_input(p->input2_offset, p->input2_multiplier, p->input2_shift, p->left_shift, is_signed);
    const int32_t exponent = p->output_shift < 0 ? -p->output_shift : 0;
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
    const __m512i out_mult = _mm512_set1_epi32(p->output_multiplier);
    const __m128i count_exp = _mm_cvtsi32_si128(exponent);
    // RoundingDivideByPOT: x >> e, plus one when the remainder exceeds half (ties away from zero).
    const int32_t pot_mask = (int32_t)(((int64_t)1 << exponent) - 1);
    const __m512i mask = _mm512_set1_epi32(pot_mask), half = _mm512_set1_epi32(pot_mask >> 1);
    const __m512i zp = _mm512_set1_epi32(p->output_offset);
    const __m512i lower = _mm512_set1_epi32(is_signed ? -128 : 0), upper = _mm512_set1_epi32(is_signed ? 127 : 255);
    const __m512i act_min = _mm512_set1_epi32(p->activation_min), act_max = _mm512_set1_epi32(p->activation_max);
    const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
    uint8_t *po = (uint8_t *)out;
    for (size_t i = 0; i < count; i += 16) {
        const size_t n = count - i < 16 ? count - i : 16;
        const __mmask16 m = (__mmask16)(n == 16 ? 0xFFFF : ((1u << n) - 1));
        const __m128i xa = _mm_maskz_loadu_epi8(m, pa + i), xb = _mm_maskz_loadu_epi8(m, pb + i);
        const __m512i x = is_signed ? _mm512_cvtepi8_epi32(xa) : _mm512_cvtepu8_epi32(xa);
        const __m512i y = is_signed ? _mm512_cvtepi8_epi32(xb) : _mm512_cvtepu8_epi32(xb);
        const __m512i sum = _mm512_add_epi32(input16(x, &s1), input16(y, &s2));
        const __m512i high = omk_srdhm16(sum, out_mult);
        const __mmask16 negative = _mm512_cmplt_epi32_mask(high, zero);
        const __m512i threshold = _mm512_mask_add_epi32(half, negative, half, one);
        const __mmask16 up = _mm512_cmpgt_epi32_mask(_mm512_and_si512(high, mask), threshold);
        const __m512i shifted = _mm512_sra_epi32(high, count_exp);
        __m512i r = _mm512_mask_add_epi32(shifted, up, shifted, one);
        // The zero point is added in int16 lanes (wrapping), then saturated to the element type.
        r = _mm512_srai_epi32(_mm512_slli_epi32(_mm512_add_epi32(r, zp), 16), 16);
        r = _mm512_min_epi32(_mm512_max_epi32(r, lower), upper);
        r = _mm512_min_epi32(_mm512_max_epi32(r, act_min), act_max);
        _mm_mask_storeu_epi8(po + i, m, _mm512_cvtepi32_epi8(r));
    }
}

static OMK_TARGET_256 inline __m256i input8(__m256i x, const input_stage *s) {
    __m256i v = _mm256_add_epi32(x, _mm256_set1_epi32(s->offset));
    v = _mm256_sra_epi32(_mm256_sll_epi32(v, _mm_cvtsi32_si128(s->pre_left)), _mm_cvtsi32_si128(s->pre_right));
    v = omk_srdhm8(v, _mm256_set1_epi32(s->multiplier));
    return _mm256_sra_epi32(_mm256_sll_epi32(v, _mm_cvtsi32_si128(s->post_left)), _mm_cvtsi32_si128(s->post_right));
}

OMK_TARGET_256 void omk_q8_add_avx2(const void *a, const void *b, void *out, size_t count, int is_signed,
                                    const omk_q8_add_params *p) {
    const input_stage s1 = omk_q8_add_input(p->input1_offset, p->input1_multiplier, p->input1_shift, p->left_shift, is_signed);
    const input_stage s2 = omk_q8_add_input(p->input2_offset, p->input2_multiplier, p->input2_shift, p->left_shift, is_signed);
    const int32_t exponent = p->output_shift < 0 ? -p->output_shift : 0;
    const __m256i zero = _mm256_setzero_si256();
    const __m256i out_mult = _mm256_set1_epi32(p->output_multiplier);
    const __m128i count_exp = _mm_cvtsi32_si128(exponent);
    const int32_t pot_mask = (int32_t)(((int64_t)1 << exponent) - 1);
    const __m256i mask = _mm256_set1_epi32(pot_mask), half = _mm256_set1_epi32(pot_mask >> 1);
    const __m256i zp = _mm256_set1_epi32(p->output_offset);
    const __m256i lower = _mm256_set1_epi32(is_signed ? -128 : 0), upper = _mm256_set1_epi32(is_signed ? 127 : 255);
    const __m256i act_min = _mm256_set1_epi32(p->activation_min), act_max = _mm256_set1_epi32(p->activation_max);
    // The low byte of each 32-bit lane, gathered into the low 8 bytes.
    const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i gather = _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1);
    const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
    uint8_t *po = (uint8_t *)out;
    for (size_t i = 0; i < count; i += 8) {
        const size_t n = count - i < 8 ? count - i : 8;
        uint8_t ta[8] = {0}, tb[8] = {0}, to[8];
        memcpy(ta, pa + i, n);
        memcpy(tb, pb + i, n);
        const __m128i xa = _mm_loadl_epi64((const __m128i *)ta), xb = _mm_loadl_epi64((const __m128i *)tb);
        const __m256i x = is_signed ? _mm256_cvtepi8_epi32(xa) : _mm256_cvtepu8_epi32(xa);
        const __m256i y = is_signed ? _mm256_cvtepi8_epi32(xb) : _mm256_cvtepu8_epi32(xb);
        const __m256i sum = _mm256_add_epi32(input8(x, &s1), input8(y, &s2));
        const __m256i high = omk_srdhm8(sum, out_mult);
        const __m256i threshold = _mm256_sub_epi32(half, _mm256_cmpgt_epi32(zero, high));
        const __m256i up = _mm256_cmpgt_epi32(_mm256_and_si256(high, mask), threshold);
        __m256i r = _mm256_sub_epi32(_mm256_sra_epi32(high, count_exp), up);
        r = _mm256_srai_epi32(_mm256_slli_epi32(_mm256_add_epi32(r, zp), 16), 16);
        r = _mm256_min_epi32(_mm256_max_epi32(r, lower), upper);
        r = _mm256_min_epi32(_mm256_max_epi32(r, act_min), act_max);
        r = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(r, pick), gather);
        _mm_storel_epi64((__m128i *)to, _mm256_castsi256_si128(r));
        memcpy(po + i, to, n);
    }
}

#else

void omk_q8_add_avx512(const void *a, const void *b, void *out, size_t count, int is_signed,
                       const omk_q8_add_params *p) {
    (void)a; (void)b; (void)out; (void)count; (void)is_signed; (void)p;
}

void omk_q8_add_avx2(const void *a, const void *b, void *out, size_t count, int is_signed,
                     const omk_q8_add_params *p) {
    (void)a; (void)b; (void)out; (void)count; (void)is_signed; (void)p;
}

#endif

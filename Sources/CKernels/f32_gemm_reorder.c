#include "CKernels.h"

// Every product is rounded before it is added, as in LiteRT's builtin float GEMM (Eigen built
// without FMA): no fused multiply-adds, not even ones the compiler could form.
#pragma STDC FP_CONTRACT OFF

/// (tap, k) steps copied at a time into each row's contiguous buffer (a multiple of 8, so that a
/// step's position within its group of 2, 4 or 8 is its position within the chunk).
#define CHUNK 128
/// Most lanes (columns of a packed panel) one call handles.
#define LANES 16

// The loops over rows, over the steps of a group and over the partial sums have constant trip
// counts: unrolled completely, the accumulators stay in registers (an indexed array would not).
#if defined(__clang__)
#define REORDER_UNROLL _Pragma("clang loop unroll(full)")
#else
#define REORDER_UNROLL _Pragma("GCC unroll 8")
#endif

// Vectors across the lanes of a panel (the natural direction of the packed weights), written with
// the compilers' vector extensions so that each wrapper below gets its own instructions: AVX-512
// or AVX2 on x86, NEON on aarch64, SSE2 in the portable x86 build.
typedef float reorder_v8 __attribute__((vector_size(32), aligned(4), __may_alias__));
typedef float reorder_v16 __attribute__((vector_size(64), aligned(4), __may_alias__));

#define REORDER_NAME reorder_8x4
#define REORDER_VT reorder_v8
#define REORDER_VL 8
#define REORDER_R 4
#include "f32_gemm_reorder_body.h"
#undef REORDER_NAME
#undef REORDER_VT
#undef REORDER_VL
#undef REORDER_R

#define REORDER_NAME reorder_16x4
#define REORDER_VT reorder_v16
#define REORDER_VL 16
#define REORDER_R 4
#include "f32_gemm_reorder_body.h"
#undef REORDER_NAME
#undef REORDER_VT
#undef REORDER_VL
#undef REORDER_R

#define REORDER_NAME reorder_8x2
#define REORDER_VT reorder_v8
#define REORDER_VL 8
#define REORDER_R 2
#include "f32_gemm_reorder_body.h"
#undef REORDER_NAME
#undef REORDER_VT
#undef REORDER_VL
#undef REORDER_R

#define REORDER_NAME reorder_16x1
#define REORDER_VT reorder_v16
#define REORDER_VL 16
#define REORDER_R 1
#include "f32_gemm_reorder_body.h"
#undef REORDER_NAME
#undef REORDER_VT
#undef REORDER_VL
#undef REORDER_R

static inline float clamp(float v, float lower, float upper) {
    // NaN passes through, as in TFLite's std::min(std::max(x, lo), hi).
    return v < lower ? lower : (v > upper ? upper : v);
}

/// Stores rows `r0 ..< r0 + n` (at most `R`) of lanes [lane_begin, lane_end): the even/odd sum below
/// `four_way_begin`, the four-way sum from it, plus the bias, clamped.
static inline __attribute__((always_inline)) void store_rows(const int R, const int VL, const float *eo,
                                                             const float *four, size_t r0, size_t n, size_t lane_base,
                                                             size_t lane_begin, size_t lane_end,
                                                             size_t four_way_begin, const float *bias, float lower,
                                                             float upper, float *c, size_t ldc) {
    // Two plain runs of lanes (a per-lane choice between the arrays became a gather).
    const size_t split = four_way_begin < lane_begin ? lane_begin : (four_way_begin > lane_end ? lane_end : four_way_begin);
    for (size_t r = 0; r < n && r < (size_t)R; r++) {
        float *out = c + (r0 + r) * ldc;
        const float *e = eo + r * (size_t)VL - lane_base, *f = four + r * (size_t)VL - lane_base;
        for (size_t l = lane_begin; l < split; l++) out[l] = clamp(e[l] + bias[l], lower, upper);
        for (size_t l = split; l < lane_end; l++) out[l] = clamp(f[l] + bias[l], lower, upper);
    }
}

/// Calls FN with need_eo and need_four as constants, so that each combination is compiled on its own
/// and keeps only the accumulators it uses in registers.
#define REORDER_CALL(FN, ...)                                                                                   \
    do {                                                                                                       \
        if (need_eo && need_four) FN(__VA_ARGS__, 1, 1);                                                       \
        else if (need_eo) FN(__VA_ARGS__, 1, 0);                                                               \
        else FN(__VA_ARGS__, 0, 1);                                                                            \
    } while (0)

/// The kernel for one instruction set: `wide` picks the row counts that fit its registers
/// (2: 32 AVX-512 registers, 4 rows per call; otherwise 2 rows of 8 lanes or 1 row of 16).
static inline __attribute__((always_inline)) void reorder(const int wide, const float *const *a, size_t mr,
                                                          size_t rows, size_t taps, size_t depth, const float *b,
                                                          size_t nr, size_t lane_begin, size_t lane_end,
                                                          size_t four_way_begin, int gemv_combine, const float *bias,
                                                          float lower, float upper, float *c, size_t ldc) {
    if (lane_end > nr) lane_end = nr;
    if (lane_end > LANES) lane_end = LANES;
    if (rows == 0 || lane_begin >= lane_end || depth == 0) return;
    const int need_eo = lane_begin < four_way_begin, need_four = lane_end > four_way_begin;
    // 8 lanes when the wanted lanes fit one aligned group of 8 (the usual few channels past the last
    // multiple of 8), else all 16.
    const size_t base8 = lane_begin / 8 * 8;
    const int narrow = lane_end <= base8 + 8 && base8 + 8 <= nr;
    float eo[4 * 16], four[4 * 16];
    if (narrow && wide) {
        for (size_t r0 = 0; r0 < rows; r0 += 4) {
            const size_t n = rows - r0;
            REORDER_CALL(reorder_8x4, a, mr, r0, n < 4 ? n : 4, taps, depth, b, nr, base8, gemv_combine,
                        (float(*)[8])eo, (float(*)[8])four);
            store_rows(4, 8, eo, four, r0, n, base8, lane_begin, lane_end, four_way_begin, bias, lower, upper, c, ldc);
        }
    } else if (narrow) {
        for (size_t r0 = 0; r0 < rows; r0 += 2) {
            const size_t n = rows - r0;
            REORDER_CALL(reorder_8x2, a, mr, r0, n < 2 ? n : 2, taps, depth, b, nr, base8, gemv_combine,
                        (float(*)[8])eo, (float(*)[8])four);
            store_rows(2, 8, eo, four, r0, n, base8, lane_begin, lane_end, four_way_begin, bias, lower, upper, c, ldc);
        }
    } else if (wide) {
        for (size_t r0 = 0; r0 < rows; r0 += 4) {
            const size_t n = rows - r0;
            REORDER_CALL(reorder_16x4, a, mr, r0, n < 4 ? n : 4, taps, depth, b, nr, 0, gemv_combine,
                         (float(*)[16])eo, (float(*)[16])four);
            store_rows(4, 16, eo, four, r0, n, 0, lane_begin, lane_end, four_way_begin, bias, lower, upper, c, ldc);
        }
    } else {
        for (size_t r0 = 0; r0 < rows; r0++) {
            REORDER_CALL(reorder_16x1, a, mr, r0, 1, taps, depth, b, nr, 0, gemv_combine, (float(*)[16])eo,
                         (float(*)[16])four);
            store_rows(1, 16, eo, four, r0, 1, 0, lane_begin, lane_end, four_way_begin, bias, lower, upper, c, ldc);
        }
    }
}

void omk_f32_gemm_reorder_portable(const float *const *a, size_t mr, size_t rows, size_t taps, size_t depth,
                                   const float *b, size_t nr, size_t lane_begin, size_t lane_end,
                                   size_t four_way_begin, int gemv_combine, const float *bias, float lower,
                                   float upper, float *c, size_t ldc) {
    reorder(0, a, mr, rows, taps, depth, b, nr, lane_begin, lane_end, four_way_begin, gemv_combine, bias, lower, upper,
            c, ldc);
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2,fma"))) void omk_f32_gemm_reorder_avx2(
    const float *const *a, size_t mr, size_t rows, size_t taps, size_t depth, const float *b, size_t nr,
    size_t lane_begin, size_t lane_end, size_t four_way_begin, int gemv_combine, const float *bias, float lower,
    float upper, float *c, size_t ldc) {
    reorder(0, a, mr, rows, taps, depth, b, nr, lane_begin, lane_end, four_way_begin, gemv_combine, bias, lower, upper,
            c, ldc);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma"))) void omk_f32_gemm_reorder_avx512(
    const float *const *a, size_t mr, size_t rows, size_t taps, size_t depth, const float *b, size_t nr,
    size_t lane_begin, size_t lane_end, size_t four_way_begin, int gemv_combine, const float *bias, float lower,
    float upper, float *c, size_t ldc) {
    reorder(1, a, mr, rows, taps, depth, b, nr, lane_begin, lane_end, four_way_begin, gemv_combine, bias, lower, upper,
            c, ldc);
}
#else
void omk_f32_gemm_reorder_avx2(const float *const *a, size_t mr, size_t rows, size_t taps, size_t depth,
                               const float *b, size_t nr, size_t lane_begin, size_t lane_end, size_t four_way_begin,
                               int gemv_combine, const float *bias, float lower, float upper, float *c, size_t ldc) {
    omk_f32_gemm_reorder_portable(a, mr, rows, taps, depth, b, nr, lane_begin, lane_end, four_way_begin,
                                  gemv_combine, bias, lower, upper, c, ldc);
}

void omk_f32_gemm_reorder_avx512(const float *const *a, size_t mr, size_t rows, size_t taps, size_t depth,
                                 const float *b, size_t nr, size_t lane_begin, size_t lane_end,
                                 size_t four_way_begin, int gemv_combine, const float *bias, float lower, float upper,
                                 float *c, size_t ldc) {
    omk_f32_gemm_reorder_portable(a, mr, rows, taps, depth, b, nr, lane_begin, lane_end, four_way_begin,
                                  gemv_combine, bias, lower, upper, c, ldc);
}
#endif

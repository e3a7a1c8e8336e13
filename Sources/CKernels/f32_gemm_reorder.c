#include "CKernels.h"

// Every product is rounded before it is added, as in LiteRT's builtin float GEMM (Eigen built
// without FMA): no fused multiply-adds, not even ones the compiler could form.
#pragma STDC FP_CONTRACT OFF

/// Rows computed together: the inner loops run over them, so the compiler vectorizes across rows.
#define ROWS 8
/// (tap, k) steps transposed at a time into the row-major scratch below (a multiple of 8, so that
/// the position of a step within its group of 2 or 4 is its position within the chunk).
#define CHUNK 128
/// Most lanes (columns of a packed panel) one call handles.
#define LANES 16

static inline float clamp(float v, float lower, float upper) {
    // NaN passes through, as in TFLite's std::min(std::max(x, lo), hi).
    return v < lower ? lower : (v > upper ? upper : v);
}

void omk_f32_gemm_reorder(const float *const *a, size_t mr, size_t rows, size_t taps, size_t depth,
                          const float *b, size_t nr, size_t lane_begin, size_t lane_end, size_t four_way_begin,
                          int gemv_combine, const float *bias, float lower, float upper, float *c, size_t ldc) {
    if (lane_end > nr) lane_end = nr;
    if (lane_end > LANES) lane_end = LANES;
    if (rows == 0 || lane_begin >= lane_end || depth == 0) return;
    const size_t total = taps * depth;
    float xt[CHUNK][ROWS];
    float acc[LANES][4][ROWS];
    float sum[LANES][ROWS];
    int combined[LANES];
    for (size_t r0 = 0; r0 < rows; r0 += ROWS) {
        const size_t n = rows - r0 < ROWS ? rows - r0 : ROWS;
        for (size_t l = lane_begin; l < lane_end; l++) {
            for (int s = 0; s < 4; s++)
                for (int r = 0; r < ROWS; r++) acc[l][s][r] = 0;
            combined[l] = 0;
        }
        size_t t = 0, k = 0;
        for (size_t base = 0; base < total; base += CHUNK) {
            const size_t m = total - base < CHUNK ? total - base : CHUNK;
            // Transpose this chunk of the rows' (tap, k) values: xt[j][r]. Rows past `n` repeat
            // the last one (their results are not stored).
            for (size_t j = 0; j < m; j++) {
                for (size_t r = 0; r < ROWS; r++) xt[j][r] = a[t * mr + r0 + (r < n ? r : n - 1)][k];
                if (++k == depth) {
                    k = 0;
                    t++;
                }
            }
            for (size_t l = lane_begin; l < lane_end; l++) {
                const int four = l >= four_way_begin;
                // Up to the last multiple of 4 (four-way) or 8 (even/odd) in partial sums, the rest
                // added one by one to their combination.
                const size_t blocked = four ? total / 4 * 4 : total / 8 * 8;
                const float *w = b + base * nr + l;
                size_t j = 0;
                const size_t jb = blocked > base ? (blocked - base < m ? blocked - base : m) : 0;
                if (four) {
                    for (; j + 4 <= jb; j += 4) {
                        for (int s = 0; s < 4; s++) {
                            const float wk = w[(j + s) * nr];
                            for (int r = 0; r < ROWS; r++) acc[l][s][r] += xt[j + s][r] * wk;
                        }
                    }
                } else {
                    for (; j + 2 <= jb; j += 2) {
                        for (int s = 0; s < 2; s++) {
                            const float wk = w[(j + s) * nr];
                            for (int r = 0; r < ROWS; r++) acc[l][s][r] += xt[j + s][r] * wk;
                        }
                    }
                }
                for (; j < m; j++) {
                    if (!combined[l]) {
                        for (int r = 0; r < ROWS; r++)
                            sum[l][r] = four ? (gemv_combine ? (acc[l][0][r] + acc[l][2][r]) + (acc[l][1][r] + acc[l][3][r]) : (acc[l][0][r] + acc[l][1][r]) + (acc[l][2][r] + acc[l][3][r]))
                                             : acc[l][0][r] + acc[l][1][r];
                        combined[l] = 1;
                    }
                    const float wk = w[j * nr];
                    for (int r = 0; r < ROWS; r++) sum[l][r] += xt[j][r] * wk;
                }
            }
        }
        for (size_t l = lane_begin; l < lane_end; l++) {
            const int four = l >= four_way_begin;
            if (!combined[l]) {
                for (int r = 0; r < ROWS; r++)
                    sum[l][r] = four ? (gemv_combine ? (acc[l][0][r] + acc[l][2][r]) + (acc[l][1][r] + acc[l][3][r]) : (acc[l][0][r] + acc[l][1][r]) + (acc[l][2][r] + acc[l][3][r]))
                                     : acc[l][0][r] + acc[l][1][r];
            }
            for (size_t r = 0; r < n; r++) c[(r0 + r) * ldc + l] = clamp(sum[l][r] + bias[l], lower, upper);
        }
    }
}

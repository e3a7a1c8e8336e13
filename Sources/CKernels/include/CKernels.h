#ifndef OPENMLKIT_CKERNELS_H
#define OPENMLKIT_CKERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Which SIMD level the CPU offers to these kernels: 0 = none (use the portable Swift path),
/// 1 = AVX2 + FMA, 2 = AVX-512 (F, BW, VL, DQ). Read once; `OPENMLKIT_KERNELS=portable` forces 0.
int omk_cpu_level(void);

/// One float GEMM tile of up to 8 rows by 8 columns (AVX2 + FMA; call only when omk_cpu_level() >= 1).
///
/// `a[tap * 8 + r]` points at row r's `depth` values for each tap (rows past `rows` must point at
/// valid memory; their results are not stored). `b` is a packed panel: for every (tap, k) in order,
/// 8 consecutive weights. Each output starts from `bias[j]` and accumulates a fused multiply-add per
/// (tap, k), in that order; the result is clamped to [lower, upper] and the first `columns` (<= 8)
/// values of each of the first `rows` rows are stored at `c + r * ldc`.
void omk_f32_gemm_8x8_fma(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                          const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns);

#endif

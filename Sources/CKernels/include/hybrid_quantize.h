#ifndef OPENMLKIT_HYBRID_QUANTIZE_H
#define OPENMLKIT_HYBRID_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

/// The smallest and largest of `count` (>= 1) floats, as a scan `lo = x[i] < lo ? x[i] : lo` (and
/// `>` for hi) from x[0] finds them, up to the sign of a zero. Returns 1, leaving lo and hi unset,
/// when some value is NaN (the scan's result then depends on where; the caller keeps its own loop).
/// AVX2; call only when omk_cpu_level() >= 1.
int omk_f32_minmax_avx2(const float *x, size_t count, float *lo, float *hi);

/// The quantization step of LiteRT's hybrid kernels, straight to the widened operand the int16 GEMM
/// reads: `q = clamp(round_half_away(x[i] * scale_inv) + offset, qmin, qmax)` (the product and the
/// sum in float; NaN gives q = 0) and `out[i] = q - offset`. With offset 0 and [-127, 127] this is
/// `SymmetricQuantizeFloats`, with the row's zero point and [-128, 127] `AsymmetricQuantizeFloats`
/// (the NEON order the x86 wheel runs: round, then add the offset). AVX2; omk_cpu_level() >= 1.
void omk_f32_quantize_i16_avx2(const float *x, size_t count, float scale_inv, int32_t offset, int32_t qmin,
                               int32_t qmax, int16_t *out);

/// omk_f32_quantize_i16_avx2 on 16 lanes, the same integers (the table's `hybrid_quantize_i16` at
/// the AVX-512 levels). AVX-512 F/BW/VL/DQ; omk_cpu_level() >= 2.
void omk_f32_quantize_i16_avx512(const float *x, size_t count, float scale_inv, int32_t offset, int32_t qmin,
                                 int32_t qmax, int16_t *out);

#endif

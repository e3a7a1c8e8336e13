#ifndef OMK_Q8_IM2COL_H
#define OMK_Q8_IM2COL_H

// The im2col rows of the 8-bit VNNI GEMM (private: not part of the module's public header).

#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
/// The rows of CONV_2D output pixels `first..<first + count` (batch-major), `kp` bytes apart at
/// `dst`: every tap's input channels in (ky, kx) order (flipped for int8), the input zero point for
/// a tap in the padding (as LiteRT's im2col), then zeros up to `kp`; `dst` has 64 bytes of slack
/// after the last row (AVX-512; call only when omk_cpu_level() >= 3).
void omk_q8_im2col_vnni(const omk_q8_im2col_params *g, size_t first, size_t count, uint8_t *dst, size_t kp);

/// Rows the 8-bit GEMMs gather or copy into their scratch at a time, for rows `kp` bytes long
/// (`omk_q8_gemm_scratch_bytes` sizes the scratch for this many).
size_t omk_q8_block_rows(size_t kp);
#endif

#endif

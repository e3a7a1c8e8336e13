#include "CKernels.h"

#include <string.h>

// 8-bit MAX_POOL_2D by output rows: the maxima over the window's rows first, as one flat row of
// `padded width · C` bytes (vectorized whatever C is), then over the window's columns, then the
// clamp. Signed bytes are compared with their top bit flipped. The body (q8_maxpool_body.h) is
// compiled once per target: baseline (on aarch64, NEON), AVX2 and AVX-512.

size_t omk_q8_maxpool_padded_width(const omk_q8_maxpool_params *p) {
    if (p->output_width == 0 || p->filter_width == 0) return 0;
    return (p->output_width - 1) * p->stride_width + p->filter_width;
}

#define OMK_MP_NAME omk_q8_maxpool_rows_portable
#define OMK_MP_TARGET
#include "q8_maxpool_body.h"
#undef OMK_MP_NAME
#undef OMK_MP_TARGET

#if defined(__x86_64__) || defined(__i386__)
#define OMK_MP_NAME omk_q8_maxpool_rows_avx2
#define OMK_MP_TARGET __attribute__((target("avx2,fma")))
#include "q8_maxpool_body.h"
#undef OMK_MP_NAME
#undef OMK_MP_TARGET

#define OMK_MP_NAME omk_q8_maxpool_rows_avx512
#define OMK_MP_TARGET __attribute__((target("avx512f,avx512bw,avx512vl")))
#include "q8_maxpool_body.h"
#undef OMK_MP_NAME
#undef OMK_MP_TARGET
#endif

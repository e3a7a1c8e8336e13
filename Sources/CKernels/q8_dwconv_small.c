#include "CKernels.h"

#include <string.h>

// 8-bit DEPTHWISE_CONV_2D accumulators one output row at a time, for the shapes the packed row
// kernels (q8_dwconv*.c) handle badly or not at all: few channels (their blocks of 16 channels run
// mostly empty below 16) and any depth multiplier (theirs must be 1). The whole output row is one
// flat vector of `output_width · C` int32 accumulators, so the vector width does not depend on C:
// each input row the window touches is widened once (minus the zero point, each input channel
// repeated `depth_multiplier` times, zeros in the padding), and every tap adds `row[i] · w_tap[i]`
// over the flat row (the row read from the tap's column offset; gathered first when the stride is
// not 1), with the filter tiled along the row once when the node is prepared. Wrapping int32 sums
// of exact products: the same integers as the portable loops, in any order.
//
// The body (q8_dwconv_small_body.h) is compiled once per target: baseline (on aarch64, NEON), AVX2
// and AVX-512; the compiler vectorizes its flat loops.

size_t omk_q8_dwconv_small_padded_width(const omk_q8_dwconv_small_params *p) {
    if (p->output_width == 0 || p->filter_width == 0) return 0;
    return (p->output_width - 1) * p->stride_width + (p->filter_width - 1) * p->dilation_width + 1;
}

size_t omk_q8_dwconv_small_scratch(const omk_q8_dwconv_small_params *p) {
    return (omk_q8_dwconv_small_padded_width(p) + p->output_width) * p->input_channels * p->depth_multiplier;
}

void omk_q8_dwconv_small_tile_weights(const omk_q8_dwconv_small_params *p, const int16_t *filter, int16_t *tiled) {
    const size_t c = p->input_channels * p->depth_multiplier, taps = p->filter_height * p->filter_width;
    for (size_t t = 0; t < taps; t++)
        for (size_t ox = 0; ox < p->output_width; ox++)
            memcpy(tiled + (t * p->output_width + ox) * c, filter + t * c, c * sizeof *tiled);
}

#define OMK_DWS_NAME omk_q8_dwconv_small_row_portable
#define OMK_DWS_TARGET
#include "q8_dwconv_small_body.h"
#undef OMK_DWS_NAME
#undef OMK_DWS_TARGET

#if defined(__x86_64__) || defined(__i386__)
#define OMK_DWS_NAME omk_q8_dwconv_small_row_avx2
#define OMK_DWS_TARGET __attribute__((target("avx2,fma")))
#include "q8_dwconv_small_body.h"
#undef OMK_DWS_NAME
#undef OMK_DWS_TARGET

#define OMK_DWS_NAME omk_q8_dwconv_small_row_avx512
#define OMK_DWS_TARGET __attribute__((target("avx512f,avx512bw,avx512vl")))
#include "q8_dwconv_small_body.h"
#undef OMK_DWS_NAME
#undef OMK_DWS_TARGET
#endif

#ifndef OMK_Q8_DWCONV_H
#define OMK_Q8_DWCONV_H

// The packed layout shared by q8_dwconv.c (packing, portable) and its row kernels
// (q8_dwconv_avx512.c, q8_dwconv_avx2.c); private to CKernels. See q8_dwconv.c for the method.

#include "CKernels.h"

#include <string.h>

/// Input columns a tile's window buffer holds, and groups of 4 filter rows (filter height ≤ 24:
/// keyword-spotting models have 1-D depthwise filters of 9 to 21 taps).
#define DW_VMAX 64
#define DW_GMAX 6

/// What omk_q8_dwconv_pack found, kept at the start of the packed buffer.
typedef struct {
    int32_t kernel, groups, has_left, has_negfix, reserved[12];
} dw_header;

static inline const void *dw_align64(const void *p) { return (const void *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }

/// Per-channel output-stage parameters, as the kernels read them.
typedef struct {
    int32_t bias, multiplier, left, zero_point;
    int64_t addend, shift, negfix;
} dw_channel;

/// Bytes of output-stage parameters per 16 lanes, in the layout the kernels read: int32 bias,
/// multiplier of the even lanes, multiplier of the odd lanes (in the even positions), left shift,
/// zero point; then int64 addend, shift and negfix of the even and of the odd lanes. AVX2 keeps
/// each half of 8 lanes the same way in half the bytes.
#define DW_PARAM_BYTES (5 * 64 + 6 * 64)

/// Where the packed blocks start: after the header and the per-channel parameters (kept 64-byte aligned).
static inline size_t dw_blocks_offset(size_t channels) {
    return sizeof(dw_header) + (channels * sizeof(dw_channel) + 63) / 64 * 64;
}

/// Bytes of a block's weights: VNNI blocks of 64 channels hold per (group, filter column, part, q)
/// 64 bytes, room for two parts (see omk_q8_dwconv_pack); AVX2 blocks of 16 channels per (group,
/// filter column, pair, half) 32 bytes.
static inline size_t dw_weight_bytes(const omk_q8_dwconv_shape *s, int kernel, size_t groups) {
    return kernel == 3 ? groups * s->filter_width * 2 * 4 * 64 : groups * s->filter_width * 4 * 32;
}

/// Bytes per block: VNNI blocks start with 64 bytes holding their number of parts (int32), then the
/// weights and 4 × 16 lanes of parameters; AVX2 blocks hold the weights and 2 × 8 lanes.
static inline size_t dw_block_bytes(const omk_q8_dwconv_shape *s, int kernel, size_t groups) {
    if (kernel == 3) return 64 + dw_weight_bytes(s, kernel, groups) + 4 * DW_PARAM_BYTES;
    return dw_weight_bytes(s, kernel, groups) + DW_PARAM_BYTES;
}

/// NEON blocks (kernel 2) of 16 channels: the output stage as arrays of 16 (int32 bias, multiplier,
/// left shift, zero point; int64 addend, shift, negfix: 640 bytes), then the weights `[KH][KW][16]`
/// as int16.
#define DW_NEON_PARAM_BYTES 640
static inline size_t dw_neon_block_bytes(const omk_q8_dwconv_shape *s) {
    return DW_NEON_PARAM_BYTES + s->filter_height * s->filter_width * 16 * sizeof(int16_t);
}

/// Where one output row reads: per group slot (4g + k) the input row's first byte for this
/// channel block, or NULL when the filter row lies outside the image (or past the filter).
typedef struct {
    const uint8_t *row[4 * DW_GMAX];
    int inside[4 * DW_GMAX], past[4 * DW_GMAX];
} dw_rows;

static inline void dw_row_sources(const omk_q8_dwconv_shape *s, const uint8_t *image, size_t oy, size_t groups,
                                  dw_rows *r) {
    const ptrdiff_t iy0 = (ptrdiff_t)(oy * s->stride_height) - s->pad_top;
    for (size_t k = 0; k < 4 * groups; k++) {
        const ptrdiff_t iy = iy0 + (ptrdiff_t)(k * s->dilation_height);
        const int inside = k < s->filter_height && iy >= 0 && iy < (ptrdiff_t)s->input_height;
        r->inside[k] = inside;
        r->past[k] = k >= s->filter_height;
        r->row[k] = inside ? image + (size_t)iy * s->input_width * s->channels : NULL;
    }
}

/// The x86 row kernels ( call only at the CPU levels omk_q8_dwconv_pack checked): output rows
/// [first, end) from the blocks at `packed` (after the header and the per-channel parameters).
void omk_q8_dwconv_rows_vnni(const omk_q8_dwconv_shape *s, const dw_header *h, const uint8_t *packed,
                             const uint8_t *input, uint8_t *output, size_t first, size_t end);
void omk_q8_dwconv_rows_avx2(const omk_q8_dwconv_shape *s, const dw_header *h, const uint8_t *packed,
                             const uint8_t *input, uint8_t *output, size_t first, size_t end);

#if defined(__aarch64__)
/// The NEON row kernel (q8_dwconv_neon.c), kernel 2.
void omk_q8_dwconv_rows_neon(const omk_q8_dwconv_shape *s, const dw_header *h, const uint8_t *packed,
                             const uint8_t *input, uint8_t *output, size_t first, size_t end);
#endif

#endif

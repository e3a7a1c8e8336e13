#include "CKernels.h"

// The per-tile and per-row work around the int16 GEMM of dynamic-range (hybrid) convolutions:
// portable C, so that it runs the same everywhere and the compilers vectorize it.

// Products are rounded before they are added (the scale and bias step matches LiteRT's order).
#pragma STDC FP_CONTRACT OFF

void omk_q16_tap_pointers(const omk_q16_window *g, size_t first, size_t count, size_t mr, const int16_t **pointers) {
    const size_t pixels_per_image = g->output_height * g->output_width;
    const size_t image_stride = g->input_height * g->input_width * g->channels;
    // The first pixel's position by division, the next ones by stepping (a division per pixel cost
    // more than the pointers themselves).
    size_t b = first / pixels_per_image, oy = first % pixels_per_image / g->output_width, ox = first % g->output_width;
    {
        // The usual tile: one output row, every window inside the image. Each tap's pointers are
        // then its first pixel's plus a stride.
        const ptrdiff_t iy0 = (ptrdiff_t)(oy * g->stride_height) - g->pad_top;
        const ptrdiff_t ix0 = (ptrdiff_t)(ox * g->stride_width) - g->pad_left;
        const ptrdiff_t last_iy = iy0 + (ptrdiff_t)((g->filter_height - 1) * g->dilation_height);
        const ptrdiff_t last_ix =
            ix0 + (ptrdiff_t)((mr - 1) * g->stride_width + (g->filter_width - 1) * g->dilation_width);
        if (count == mr && ox + mr <= g->output_width && iy0 >= 0 && ix0 >= 0 &&
            last_iy < (ptrdiff_t)g->input_height && last_ix < (ptrdiff_t)g->input_width) {
            const int16_t *origin = g->input + b * image_stride + ((size_t)iy0 * g->input_width + (size_t)ix0) * g->channels;
            const size_t step = g->stride_width * g->channels;
            const int16_t **slot = pointers;
            for (size_t ky = 0; ky < g->filter_height; ky++)
                for (size_t kx = 0; kx < g->filter_width; kx++, slot += mr) {
                    const int16_t *start =
                        origin + (ky * g->dilation_height * g->input_width + kx * g->dilation_width) * g->channels;
                    for (size_t r = 0; r < mr; r++) slot[r] = start + r * step;
                }
            return;
        }
    }
    for (size_t r = 0; r < mr; r++) {
        if (r > 0 && r < count && ++ox == g->output_width) {
            ox = 0;
            if (++oy == g->output_height) {
                oy = 0;
                b++;
            }
        }
        const ptrdiff_t iy0 = (ptrdiff_t)(oy * g->stride_height) - g->pad_top;
        const ptrdiff_t ix0 = (ptrdiff_t)(ox * g->stride_width) - g->pad_left;
        const int16_t *image = g->input + b * image_stride;
        const int16_t **slot = pointers + r;
        for (size_t ky = 0; ky < g->filter_height; ky++) {
            const ptrdiff_t iy = iy0 + (ptrdiff_t)(ky * g->dilation_height);
            const int row_inside = iy >= 0 && iy < (ptrdiff_t)g->input_height;
            const int16_t *line = image + (row_inside ? (size_t)iy : 0) * g->input_width * g->channels;
            for (size_t kx = 0; kx < g->filter_width; kx++, slot += mr) {
                const ptrdiff_t ix = ix0 + (ptrdiff_t)(kx * g->dilation_width);
                *slot = row_inside && ix >= 0 && ix < (ptrdiff_t)g->input_width ? line + (size_t)ix * g->channels
                                                                                   : g->zero;
            }
        }
    }
}

void omk_hybrid_finish(const int32_t *acc, size_t count, const float *weight_scale, float batch_scale,
                       const float *bias, float lower, float upper, float *out) {
    for (size_t c = 0; c < count; c++) {
        const float scale = weight_scale[c] * batch_scale;
        const float v = (float)acc[c] * scale + bias[c];
        // min(max(v, lower), upper) as its comparisons: a NaN passes.
        const float m = lower >= v ? lower : v;
        out[c] = upper < m ? upper : m;
    }
}

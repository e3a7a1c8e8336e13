#include "CKernels.h"

#include <string.h>

// The float CONV_2D window of a tile of output pixels, copied into contiguous rows for the GEMM
// microkernels when a tap has too few channels for the indirect loop (see Conv2DKernel.gatheredRows).

/// Copies `n` floats. Window rows are short (a 3x3 filter over 3 channels: 9 floats a filter row), too short for a call to memcpy to pay: fixed-size blocks the compiler inlines, then
/// one float at a time.
static inline void copy_floats(float *dst, const float *src, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) memcpy(dst + i, src + i, 8 * sizeof(float));
    if (i + 4 <= n) {
        memcpy(dst + i, src + i, 4 * sizeof(float));
        i += 4;
    }
    for (; i < n; i++) dst[i] = src[i];
}

static inline void zero_floats(float *dst, size_t n) {
    for (size_t i = 0; i < n; i++) dst[i] = 0.0f;
}

/// An output pixel's position (image, row, column) and where its window starts in the input.
typedef struct {
    size_t b, oy, ox;
} pixel_cursor;

/// The cursor at pixel `p` (batch-major), by division; the next pixels are reached by stepping.
static inline pixel_cursor cursor_at(const omk_f32_window *g, size_t p) {
    const size_t pixels_per_image = g->output_height * g->output_width;
    const pixel_cursor c = {p / pixels_per_image, p % pixels_per_image / g->output_width, p % g->output_width};
    return c;
}

static inline void next_pixel(const omk_f32_window *g, pixel_cursor *c) {
    if (++c->ox == g->output_width) {
        c->ox = 0;
        if (++c->oy == g->output_height) {
            c->oy = 0;
            ++c->b;
        }
    }
}

/// The cursor's image, and the input row and column of its window's top-left tap (may be negative).
static inline const float *window_origin(const omk_f32_window *g, const pixel_cursor *c, ptrdiff_t *iy0,
                                         ptrdiff_t *ix0) {
    *iy0 = (ptrdiff_t)(c->oy * g->stride_height) - g->pad_top;
    *ix0 = (ptrdiff_t)(c->ox * g->stride_width) - g->pad_left;
    return g->input + c->b * g->input_height * g->input_width * g->channels;
}

// no_builtin: the compiler would otherwise turn the short loops above back into library calls.
__attribute__((no_builtin("memcpy"), no_builtin("memset")))
void omk_f32_gather_rows(const omk_f32_window *g, size_t first, size_t count, size_t mr, float *scratch,
                         const float **pointers) {
    const size_t depth = g->depth;
    const size_t row_length = g->filter_height * g->filter_width * depth;
    const size_t line_stride = g->input_width * g->channels;
    const size_t window_row = g->filter_width * depth;
    pixel_cursor cursor = cursor_at(g, first);
    for (size_t r = 0; r < mr; r++, next_pixel(g, &cursor)) {
        if (r >= count) {
            pointers[r] = pointers[count - 1];
            continue;
        }
        float *dst = scratch + r * row_length;
        pointers[r] = dst;
        ptrdiff_t iy0, ix0;
        const float *image = window_origin(g, &cursor, &iy0, &ix0);
        // The whole window row inside the image, undilated, over every channel: one run of memory.
        const ptrdiff_t last_x = ix0 + (ptrdiff_t)((g->filter_width - 1) * g->dilation_width);
        const int contiguous = ix0 >= 0 && last_x < (ptrdiff_t)g->input_width && g->dilation_width == 1 &&
                               depth == g->channels;
        for (size_t ky = 0; ky < g->filter_height; ky++) {
            const ptrdiff_t iy = iy0 + (ptrdiff_t)(ky * g->dilation_height);
            if (iy < 0 || iy >= (ptrdiff_t)g->input_height) {
                zero_floats(dst, window_row);
                dst += window_row;
                continue;
            }
            const float *line = image + (size_t)iy * line_stride;
            if (contiguous) {
                copy_floats(dst, line + (size_t)ix0 * g->channels, window_row);
                dst += window_row;
                continue;
            }
            for (size_t kx = 0; kx < g->filter_width; kx++) {
                const ptrdiff_t ix = ix0 + (ptrdiff_t)(kx * g->dilation_width);
                if (ix < 0 || ix >= (ptrdiff_t)g->input_width) {
                    zero_floats(dst, depth);
                } else {
                    copy_floats(dst, line + (size_t)ix * g->channels, depth);
                }
                dst += depth;
            }
        }
    }
}

__attribute__((no_builtin("memcpy"), no_builtin("memset")))
void omk_f32_window_rows(const omk_f32_window *g, size_t first, size_t count, size_t mr, float *scratch,
                         const float *zero, const float **pointers) {
    const size_t channels = g->channels;
    const size_t window_row = g->filter_width * channels;
    const size_t row_length = g->filter_height * window_row;
    const size_t line_stride = g->input_width * channels;
    pixel_cursor cursor = cursor_at(g, first);
    if (count == mr && cursor.ox + mr <= g->output_width) {
        // The usual tile: one output row, so one input row per filter row. When the whole tile's
        // windows lie inside the image in width, each pointer is the row's start plus a stride.
        ptrdiff_t iy0, ix0;
        const float *image = window_origin(g, &cursor, &iy0, &ix0);
        const ptrdiff_t last_ix = ix0 + (ptrdiff_t)((mr - 1) * g->stride_width) + (ptrdiff_t)g->filter_width;
        if (ix0 >= 0 && last_ix <= (ptrdiff_t)g->input_width) {
            const size_t step = g->stride_width * channels;
            for (size_t ky = 0; ky < g->filter_height; ky++) {
                const ptrdiff_t iy = iy0 + (ptrdiff_t)(ky * g->dilation_height);
                const float **slot = pointers + ky * mr;
                if (iy < 0 || iy >= (ptrdiff_t)g->input_height) {
                    for (size_t r = 0; r < mr; r++) slot[r] = zero;
                    continue;
                }
                const float *start = image + (size_t)iy * line_stride + (size_t)ix0 * channels;
                for (size_t r = 0; r < mr; r++) slot[r] = start + r * step;
            }
            return;
        }
    }
    for (size_t r = 0; r < mr; r++, next_pixel(g, &cursor)) {
        if (r >= count) {
            for (size_t ky = 0; ky < g->filter_height; ky++) pointers[ky * mr + r] = pointers[ky * mr + count - 1];
            continue;
        }
        ptrdiff_t iy0, ix0;
        const float *image = window_origin(g, &cursor, &iy0, &ix0);
        const int inside = ix0 >= 0 && ix0 + (ptrdiff_t)g->filter_width <= (ptrdiff_t)g->input_width;
        for (size_t ky = 0; ky < g->filter_height; ky++) {
            const ptrdiff_t iy = iy0 + (ptrdiff_t)(ky * g->dilation_height);
            const float **slot = &pointers[ky * mr + r];
            if (iy < 0 || iy >= (ptrdiff_t)g->input_height) {
                *slot = zero;
                continue;
            }
            const float *line = image + (size_t)iy * line_stride;
            if (inside) {
                *slot = line + (size_t)ix0 * channels;
                continue;
            }
            // A window row across the left or right edge: copied, with zeros for the padding.
            float *dst = scratch + r * row_length + ky * window_row;
            for (size_t kx = 0; kx < g->filter_width; kx++) {
                const ptrdiff_t ix = ix0 + (ptrdiff_t)kx;
                if (ix < 0 || ix >= (ptrdiff_t)g->input_width) {
                    zero_floats(dst + kx * channels, channels);
                } else {
                    copy_floats(dst + kx * channels, line + (size_t)ix * channels, channels);
                }
            }
            *slot = dst;
        }
    }
}

#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#include "q8_im2col.h"

#define OMK_VNNI __attribute__((target("avx512vnni,avx512bw,avx512vl,avx512dq,avx512f")))
#define OMK_INLINE __attribute__((always_inline)) inline

/// Copies `n` bytes XOR `flips` with 64-byte vectors, the last one masked.
static OMK_VNNI OMK_INLINE void copy_bytes(uint8_t *dst, const uint8_t *src, size_t n, __m512i flips) {
    for (; n >= 64; n -= 64, dst += 64, src += 64) {
        _mm512_storeu_si512((void *)dst, _mm512_xor_si512(_mm512_loadu_si512((const void *)src), flips));
    }
    if (n) {
        const __mmask64 m = (__mmask64)((1ULL << n) - 1);
        _mm512_mask_storeu_epi8((void *)dst, m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, (const void *)src), flips));
    }
}

/// Sets `n` bytes to `value`.
static OMK_VNNI OMK_INLINE void fill_bytes(uint8_t *dst, __m512i value, size_t n) {
    for (; n >= 64; n -= 64, dst += 64) _mm512_storeu_si512((void *)dst, value);
    if (n) _mm512_mask_storeu_epi8((void *)dst, (__mmask64)((1ULL << n) - 1), value);
}

/// Where one im2col row reads: the scalars of omk_q8_im2col_params, unpacked once per block.
typedef struct {
    const uint8_t *input, *end;
    size_t c, fh, fw, oh, ow, sh, sw, dh, dw, span, k, line_bytes, image_bytes;
    ptrdiff_t height, width, pad_top, pad_left, reach;
} im2col_geometry;

/// The im2col row of one output pixel, byte by byte exact: each tap's channels, or the zero point
/// for a tap in the padding, then zeros up to `kp`. For the pixels at the borders and for filter
/// rows longer than 64 bytes.
static OMK_VNNI __attribute__((noinline)) void im2col_pixel(const im2col_geometry *g, size_t b, size_t oy,
                                                           size_t ox, __m512i zero, __m512i flips, uint8_t *d,
                                                           size_t kp) {
    const uint8_t *image = g->input + b * g->image_bytes;
    const ptrdiff_t iy0 = (ptrdiff_t)(oy * g->sh) - g->pad_top, ix0 = (ptrdiff_t)(ox * g->sw) - g->pad_left;
    const int inside = g->dw == 1 && ix0 >= 0 && ix0 + g->reach < g->width;
    for (size_t ky = 0; ky < g->fh; ky++) {
        const ptrdiff_t iy = iy0 + (ptrdiff_t)(ky * g->dh);
        if (iy < 0 || iy >= g->height) {
            fill_bytes(d + ky * g->span, zero, g->span);
            continue;
        }
        if (inside) {
            copy_bytes(d + ky * g->span, image + (size_t)iy * g->line_bytes + (size_t)ix0 * g->c, g->span, flips);
            continue;
        }
        for (size_t kx = 0; kx < g->fw; kx++) {
            const ptrdiff_t ix = ix0 + (ptrdiff_t)(kx * g->dw);
            uint8_t *t = d + ky * g->span + kx * g->c;
            if (ix < 0 || ix >= g->width) {
                fill_bytes(t, zero, g->c);
            } else {
                copy_bytes(t, image + (size_t)iy * g->line_bytes + (size_t)ix * g->c, g->c, flips);
            }
        }
    }
    fill_bytes(d + g->k, _mm512_setzero_si512(), kp - g->k);
}

/// Filter rows that one output row reads (up to this many take the fast path).
enum { MAX_FAST_FILTER_ROWS = 16 };

/// `count` consecutive im2col rows `kp` bytes apart, filter rows of at most 64 bytes: filter row ky
/// of row t from `src[ky] + t * step[ky]`, XOR `flips`, one 64-byte load and store each (see im2col),
/// then zeros from `k`. Inlined with a constant `fh` for the common 3 rows.
static OMK_VNNI OMK_INLINE void im2col_stretch(const uint8_t *const *src, const size_t *step, const size_t fh,
                                               size_t span, size_t k, __m512i flips, uint8_t *d, size_t kp,
                                               size_t count) {
    const uint8_t *p[MAX_FAST_FILTER_ROWS];
    for (size_t ky = 0; ky < fh; ky++) p[ky] = src[ky];
    for (size_t t = 0; t < count; t++, d += kp) {
        for (size_t ky = 0; ky < fh; ky++) {
            _mm512_storeu_si512((void *)(d + ky * span),
                                _mm512_xor_si512(_mm512_loadu_si512((const void *)p[ky]), flips));
            p[ky] += step[ky];
        }
        _mm512_storeu_si512((void *)(d + k), _mm512_setzero_si512());
    }
}

/// The rows of output pixels `first..<first + count` (batch-major), `kp` bytes apart: every tap's
/// input channels in (ky, kx) order, the input zero point for a tap in the padding (as LiteRT's
/// im2col), then zeros up to `kp`.
///
/// Fast path: when a filter row is at most 64 contiguous bytes (no horizontal dilation), each moves
/// with one 64-byte load and store. The bytes stored past it land where the rest of this row and
/// the next are written later (or in the 64 bytes of slack at the end of the scratch); the load
/// past it stays inside the input except near its end, where the output row takes masked loads.
OMK_VNNI void omk_q8_im2col_vnni(const omk_q8_im2col_params *params, size_t first, size_t count,
                                 uint8_t *restrict dst, size_t kp) {
    im2col_geometry g;
    g.input = params->input;
    g.c = params->channels;
    g.fh = params->filter_height;
    g.fw = params->filter_width;
    g.oh = params->output_height;
    g.ow = params->output_width;
    g.sh = params->stride_height;
    g.sw = params->stride_width;
    g.dh = params->dilation_height;
    g.dw = params->dilation_width;
    g.height = (ptrdiff_t)params->input_height;
    g.width = (ptrdiff_t)params->input_width;
    g.pad_top = params->pad_top;
    g.pad_left = params->pad_left;
    g.span = g.fw * g.c;
    g.k = g.fh * g.span;
    g.line_bytes = params->input_width * g.c;
    g.image_bytes = params->input_height * g.line_bytes;
    g.end = g.input + params->batch * g.image_bytes;
    g.reach = (ptrdiff_t)((g.fw - 1) * g.dw);
    // int8 activations are flipped on the way (the zero point too); the zeros past k need not be.
    const __m512i flips = _mm512_set1_epi8(params->flip ? (char)0x80 : 0);
    const __m512i zero = _mm512_xor_si512(_mm512_set1_epi8((char)params->zero), flips);
    const __m512i zeros = _mm512_setzero_si512();
    // 64 bytes of the zero point, which a filter row in the padding reads.
    uint8_t padding_bytes[64];
    memset(padding_bytes, params->zero, sizeof padding_bytes);
    const int fast = g.dw == 1 && g.span <= 64 && g.fh <= MAX_FAST_FILTER_ROWS && kp - g.k <= 64;
    const __mmask64 span_mask = fast ? ~(__mmask64)0 >> (64 - g.span) : 0;
    const size_t per_image = g.oh * g.ow;
    size_t b = first / per_image, oy = first % per_image / g.ow, ox = first % g.ow;
    size_t i = 0;
    while (i < count) {
        // The pixels of one output row: the filter rows they read are the same.
        const size_t run = count - i < g.ow - ox ? count - i : g.ow - ox;
        const uint8_t *image = g.input + b * g.image_bytes;
        const ptrdiff_t iy0 = (ptrdiff_t)(oy * g.sh) - g.pad_top;
        const uint8_t *lines[MAX_FAST_FILTER_ROWS];
        const uint8_t *furthest = image;
        if (fast) {
            for (size_t ky = 0; ky < g.fh; ky++) {
                const ptrdiff_t iy = iy0 + (ptrdiff_t)(ky * g.dh);
                lines[ky] = iy < 0 || iy >= g.height ? NULL : image + (size_t)iy * g.line_bytes;
                if (lines[ky] != NULL) furthest = lines[ky];
            }
        }
        // Whether 64 bytes from the last column's window still lie inside the input.
        const int unmasked = furthest + g.line_bytes + 64 <= g.end;
        // The input lines the next output row reads beyond these: the hardware prefetchers miss them
        // (a first layer's input is cold: several interleaved strided streams).
        if (fast && ox == 0) {
            const uint8_t *next = furthest + g.line_bytes, *stop = furthest + (g.sh + 1) * g.line_bytes;
            if (stop > g.end) stop = g.end;
            for (const uint8_t *q = next; q < stop; q += 64) _mm_prefetch((const char *)q, _MM_HINT_T0);
        }
        size_t j = 0;
        while (j < run) {
            uint8_t *d = dst + (i + j) * kp;
            const ptrdiff_t ix0 = (ptrdiff_t)(ox * g.sw) - g.pad_left;
            if (!fast || ix0 < 0 || ix0 + g.reach >= g.width) {
                im2col_pixel(&g, b, oy, ox, zero, flips, d, kp);
                j++;
                ox++;
                continue;
            }
            // The pixels from here whose whole window lies inside the image horizontally.
            size_t stretch = (size_t)((g.width - 1 - g.reach - ix0) / (ptrdiff_t)g.sw) + 1;
            if (stretch > run - j) stretch = run - j;
            if (unmasked) {
                // Each filter row from its line, or from the zero point's bytes (no step) in the padding.
                const uint8_t *src[MAX_FAST_FILTER_ROWS];
                size_t step[MAX_FAST_FILTER_ROWS];
                for (size_t ky = 0; ky < g.fh; ky++) {
                    src[ky] = lines[ky] != NULL ? lines[ky] + (size_t)ix0 * g.c : padding_bytes;
                    step[ky] = lines[ky] != NULL ? g.sw * g.c : 0;
                }
                if (g.fh == 3) {
                    im2col_stretch(src, step, 3, g.span, g.k, flips, d, kp, stretch);
                } else {
                    im2col_stretch(src, step, g.fh, g.span, g.k, flips, d, kp, stretch);
                }
            } else {
                for (size_t t = 0; t < stretch; t++) {
                    const size_t offset = (size_t)(ix0 + (ptrdiff_t)(t * g.sw)) * g.c;
                    uint8_t *e = d + t * kp;
                    for (size_t ky = 0; ky < g.fh; ky++) {
                        __m512i v = zero;
                        if (lines[ky] != NULL) {
                            v = _mm512_xor_si512(
                                _mm512_maskz_loadu_epi8(span_mask, (const void *)(lines[ky] + offset)), flips);
                        }
                        _mm512_storeu_si512((void *)(e + ky * g.span), v);
                    }
                    _mm512_storeu_si512((void *)(e + g.k), zeros);
                }
            }
            j += stretch;
            ox += stretch;
        }
        i += run;
        if (ox == g.ow) {
            ox = 0;
            if (++oy == g.oh) {
                oy = 0;
                b++;
            }
        }
    }
}

#endif

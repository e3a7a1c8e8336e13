#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#define OMK_VNNI __attribute__((target("avx512vnni,avx512bw,avx512vl,avx512f")))
#define OMK_INLINE __attribute__((always_inline)) inline

/// Sixteen channels of one tap: the bytes widened to 32-bit lanes, minus the zero point, whose low
/// halves (int16) `vpdpwssd` multiplies by the weights' low halves (their high halves are zero).
static OMK_VNNI OMK_INLINE __m512i dw_tap(__m512i a, __m128i bytes, int x_signed, __m512i zx, __m512i w) {
    const __m512i x = _mm512_sub_epi32(x_signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes), zx);
    return _mm512_dpwssd_epi32(a, x, w);
}

/// `blocks` (constant) consecutive 16-channel blocks from channel c, each with its own accumulator
/// so that the vpdpwssd chains overlap; `last` masks the channels of the final block.
static OMK_VNNI OMK_INLINE void dw_blocks(const uint8_t *x, const int32_t *w, size_t c, const size_t blocks,
                                          __mmask16 last, size_t channels, size_t tap_rows, size_t tap_columns,
                                          size_t x_step, size_t x_row_step, size_t w_row_step, int x_signed,
                                          __m512i zx, int32_t *acc) {
    __m512i a[4];
    for (size_t j = 0; j < blocks; j++) a[j] = _mm512_setzero_si512();
    const uint8_t *xr = x + c;
    const int32_t *wr = w + c;
    for (size_t ty = 0; ty < tap_rows; ty++) {
        const uint8_t *xp = xr;
        const int32_t *wp = wr;
        for (size_t tx = 0; tx < tap_columns; tx++) {
            for (size_t j = 0; j < blocks; j++) {
                const __mmask16 m = j + 1 == blocks ? last : 0xFFFF;
                const __m128i bytes = _mm_maskz_loadu_epi8(m, (const void *)(xp + 16 * j));
                const __m512i wv = _mm512_maskz_loadu_epi32(m, wp + 16 * j);
                a[j] = x_signed ? dw_tap(a[j], bytes, 1, zx, wv) : dw_tap(a[j], bytes, 0, zx, wv);
            }
            xp += x_step;
            wp += channels;
        }
        xr += x_row_step;
        wr += w_row_step;
    }
    for (size_t j = 0; j < blocks; j++) {
        _mm512_mask_storeu_epi32(acc + c + 16 * j, j + 1 == blocks ? last : 0xFFFF, a[j]);
    }
}

OMK_VNNI void omk_q8_dwconv_pixel_vnni(const uint8_t *x, const int32_t *w, size_t channels, size_t tap_rows,
                                       size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                                       int x_signed, int32_t zero_point, int32_t *acc) {
    const __m512i zx = _mm512_set1_epi32(zero_point);
    size_t c = 0;
    for (; c + 64 <= channels; c += 64) {
        dw_blocks(x, w, c, 4, 0xFFFF, channels, tap_rows, tap_columns, x_step, x_row_step, w_row_step, x_signed, zx,
                  acc);
    }
    for (; c < channels; c += 16) {
        const size_t n = channels - c < 16 ? channels - c : 16;
        const __mmask16 m = (__mmask16)(n == 16 ? 0xFFFF : ((1u << n) - 1));
        dw_blocks(x, w, c, 1, m, channels, tap_rows, tap_columns, x_step, x_row_step, w_row_step, x_signed, zx, acc);
    }
}

#else

void omk_q8_dwconv_pixel_vnni(const uint8_t *x, const int32_t *w, size_t channels, size_t tap_rows,
                              size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step, int x_signed,
                              int32_t zero_point, int32_t *acc) {
    (void)x; (void)w; (void)channels; (void)tap_rows; (void)tap_columns; (void)x_step; (void)x_row_step;
    (void)w_row_step; (void)x_signed; (void)zero_point; (void)acc;
}

#endif

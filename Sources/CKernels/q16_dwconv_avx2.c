#include "CKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define OMK_TARGET __attribute__((target("avx2")))

OMK_TARGET void omk_q16_dwconv_pixel_avx2(const int16_t *x, const int16_t *w, size_t channels, size_t tap_rows,
                                          size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                                          int32_t *acc) {
    size_t c = 0;
    for (; c + 16 <= channels; c += 16) {
        __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
        const int16_t *xr = x + c, *wr = w + c;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const int16_t *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                const __m256i xv = _mm256_loadu_si256((const __m256i *)xp);
                const __m256i wv = _mm256_loadu_si256((const __m256i *)wp);
                // Exact 16x16 -> 32-bit products of the low and high eight channels.
                const __m256i lo = _mm256_mullo_epi16(xv, wv), hi = _mm256_mulhi_epi16(xv, wv);
                const __m256i p0 = _mm256_unpacklo_epi16(lo, hi), p1 = _mm256_unpackhi_epi16(lo, hi);
                // unpack works within 128-bit lanes: p0 = channels 0-3, 8-11; p1 = 4-7, 12-15.
                a0 = _mm256_add_epi32(a0, _mm256_permute2x128_si256(p0, p1, 0x20));
                a1 = _mm256_add_epi32(a1, _mm256_permute2x128_si256(p0, p1, 0x31));
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        _mm256_storeu_si256((__m256i *)(acc + c), a0);
        _mm256_storeu_si256((__m256i *)(acc + c + 8), a1);
    }
    for (; c < channels; c++) {
        int32_t a = 0;
        const int16_t *xr = x + c, *wr = w + c;
        for (size_t ty = 0; ty < tap_rows; ty++) {
            const int16_t *xp = xr, *wp = wr;
            for (size_t tx = 0; tx < tap_columns; tx++) {
                a = (int32_t)((uint32_t)a + (uint32_t)((int32_t)*xp * (int32_t)*wp));
                xp += x_step;
                wp += channels;
            }
            xr += x_row_step;
            wr += w_row_step;
        }
        acc[c] = a;
    }
}

#else

void omk_q16_dwconv_pixel_avx2(const int16_t *x, const int16_t *w, size_t channels, size_t tap_rows,
                               size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                               int32_t *acc) {
    (void)x; (void)w; (void)channels; (void)tap_rows; (void)tap_columns; (void)x_step; (void)x_row_step;
    (void)w_row_step; (void)acc;
}

#endif

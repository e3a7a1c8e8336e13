#include "CKernels.h"

#include <limits.h>

static inline int32_t srdhm(int32_t a, int32_t b) {
    if (a == b && a == INT32_MIN) return INT32_MAX;
    const int64_t product = (int64_t)a * (int64_t)b;
    const int64_t nudge = product >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
    return (int32_t)((product + nudge) / ((int64_t)1 << 31));  // C division truncates toward zero
}

static inline int32_t rounding_divide_by_pot(int32_t x, int exponent) {
    if (exponent == 0) return x;
    const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

void omk_requantize_i32(int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                        const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                        int32_t hi) {
    for (size_t c = 0; c < count; c++) {
        const int32_t x = (int32_t)((uint32_t)acc[c] + (uint32_t)bias[c]);
        const int s = shift[c];
        const int left = s > 0 ? s : 0, right = s > 0 ? 0 : -s;
        int32_t v;
        if (gemm_rounding[c]) {
            const int32_t high = srdhm((int32_t)((uint32_t)x << (left & 31)), multiplier[c]);
            v = right == 0 ? high : (int32_t)(((int64_t)high + ((int64_t)1 << (right - 1))) >> right);
        } else {
            const int32_t scaled = left >= 32 ? 0 : (int32_t)((uint32_t)x << left);
            v = rounding_divide_by_pot(srdhm(scaled, multiplier[c]), right);
        }
        v = (int32_t)((uint32_t)v + (uint32_t)zero_point);
        acc[c] = v < lo ? lo : (v > hi ? hi : v);
    }
}

// IEEE binary16 to binary32, exactly (every half value, NaN payloads included, has one float that
// equals it). Loading an fp16-weight model converts every weight once; the per-element Swift
// conversion took a tenth of such a model's load.
#include "CKernels.h"
#include <string.h>

#define OMK_F16_BODY                                                                                      \
    for (size_t i = 0; i < count; i++) {                                                                  \
        uint16_t h;                                                                                       \
        memcpy(&h, (const uint8_t *)source + 2 * i, 2);                                                   \
        const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;                                             \
        const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;                              \
        uint32_t bits;                                                                                    \
        if (exponent == 31) {                                                                             \
            bits = sign | 0x7F800000u | (mantissa << 13);                                                 \
        } else if (exponent != 0) {                                                                       \
            bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);                                   \
        } else {                                                                                          \
            /* Zero or subnormal: mantissa · 2^-24, exact in float (the product of an integer below */   \
            /* 2^10 and a power of two). */                                                               \
            float magnitude = (float)mantissa * 5.9604644775390625e-8f;                                   \
            uint32_t m;                                                                                   \
            memcpy(&m, &magnitude, 4);                                                                    \
            bits = sign | m;                                                                              \
        }                                                                                                 \
        memcpy(destination + i, &bits, 4);                                                                \
    }

static void f16_to_f32_portable(const void *source, float *destination, size_t count) { OMK_F16_BODY }

#if defined(__x86_64__)
// The same loop, which the compiler vectorizes with AVX2's blends.
__attribute__((target("avx2"))) static void f16_to_f32_avx2(const void *source, float *destination, size_t count) {
    OMK_F16_BODY
}
#endif

void omk_f16_to_f32(const void *source, float *destination, size_t count) {
#if defined(__x86_64__)
    if (omk_cpu_level() >= 1) {
        f16_to_f32_avx2(source, destination, count);
        return;
    }
#endif
    f16_to_f32_portable(source, destination, count);
}

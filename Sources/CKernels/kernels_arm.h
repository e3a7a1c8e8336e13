#ifndef OMK_KERNELS_ARM_H
#define OMK_KERNELS_ARM_H

// The aarch64 kernels the dispatch table points at (private: not part of the module's public
// header). Each has the contract of the x86 function of the same operation in CKernels.h; they
// exist only when compiled for aarch64.

#include "CKernels.h"

#if defined(__aarch64__)
void omk_f32_gemm_8x16_neon(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                            const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns);
void omk_f32_gemv_16_neon(const float *const *a, size_t taps, size_t depth, const float *b, const float *bias,
                          float lower, float upper, float *c, size_t columns);
void omk_f32_dwconv_pixel_neon(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                               size_t x_step, size_t x_row_step, size_t w_row_step, const float *bias, float lower,
                               float upper, float *out);
void omk_f32_dwconv_pixels4_neon(const float *x, const float *w, size_t channels, size_t tap_rows,
                                 size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                                 size_t pixel_step, const float *bias, float lower, float upper, float *out);
void omk_f32_dwconv_run_neon(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                             size_t x_step, size_t x_row_step, size_t w_row_step, size_t pixel_step, size_t count,
                             const float *bias, float lower, float upper, float *out);
void omk_q16_gemm_8x8_neon(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b, int32_t *acc,
                           size_t ldacc);
void omk_q16_dwconv_pixel_neon(const int16_t *x, const int16_t *w, size_t channels, size_t tap_rows,
                               size_t tap_columns, size_t x_step, size_t x_row_step, size_t w_row_step,
                               int32_t *acc);
void omk_requantize_i32_neon(int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                             int32_t hi);
void omk_requantize_i32_to_8_neon(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                  const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                                  int32_t hi, uint8_t *out);
void omk_requantize_gemm_to_8_neon(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                                   const int32_t *left, const int64_t *addend, const int64_t *shift,
                                   int32_t zero_point, int32_t lo, int32_t hi, uint8_t *out);
void omk_q8_add_neon(const void *a, const void *b, void *out, size_t count, int is_signed,
                     const omk_q8_add_params *p);
void omk_q8_binary_neon(const omk_q8_binary_params *p, const void *a, const void *b, void *out, size_t lanes,
                        size_t runs, size_t stride, int a_scalar);

/// The 8-bit GEMM and CONV_2D of omk_q8_gemm_vnni / omk_q8_conv_vnni (same packed weights and
/// parameters, same results): widening multiply-adds (`_neon`), SDOT on activations offset by −128
/// with the weights' column sums added back (`_dotprod`), SUDOT on the unsigned activations as they
/// are (`_i8mm`).
#define OMK_Q8_ARM(SUFFIX)                                                                                         \
    void omk_q8_gemm_##SUFFIX(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows,              \
                              size_t group_begin, size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch);   \
    void omk_q8_conv_##SUFFIX(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin,        \
                              size_t row_end, size_t group_begin, size_t group_end, uint8_t *out, size_t ldo,      \
                              uint8_t *scratch);
OMK_Q8_ARM(neon)
OMK_Q8_ARM(dotprod)
OMK_Q8_ARM(i8mm)
#undef OMK_Q8_ARM
#endif

#endif

#include "CKernels.h"
#include "kernels_arm.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif
#if defined(__aarch64__) && defined(__APPLE__)
#include <sys/sysctl.h>
#endif

// One table of kernels per CPU, chosen once: every caller (Swift's nodes when they are prepared, the
// ISA-neutral entry points below) reads the same pointers, and nothing is decided per tile or pixel.

/// x86: 0 none, 1 AVX2 + FMA, 2 AVX-512 (F, BW, VL, DQ), 3 AVX-512 with VNNI.
static int detect_x86(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("fma"))
        return __builtin_cpu_supports("avx512vnni") ? 3 : 2;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
#endif
    return 0;
}

#if defined(__aarch64__) && defined(__APPLE__)
/// Whether sysctl reports an optional feature (untested: there is no Apple machine in CI).
static int apple_feature(const char *name) {
    int value = 0;
    size_t size = sizeof value;
    return sysctlbyname(name, &value, &size, NULL, 0) == 0 && value != 0;
}
#endif

/// aarch64: 1 NEON (always there), 2 with the dot-product instructions, 3 with I8MM as well.
static int detect_arm(void) {
#if defined(__aarch64__)
    int dotprod = 0, i8mm = 0;
#if defined(__linux__)
    const unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
    dotprod = (hwcap & (1UL << 20)) != 0;  // HWCAP_ASIMDDP
    i8mm = (hwcap2 & (1UL << 13)) != 0;    // HWCAP2_I8MM
#elif defined(__APPLE__)
    dotprod = apple_feature("hw.optional.arm.FEAT_DotProd");
    i8mm = apple_feature("hw.optional.arm.FEAT_I8MM");
#endif
    return dotprod ? (i8mm ? 3 : 2) : 1;
#else
    return 0;
#endif
}

/// The x86 and aarch64 levels, lowered (never raised) by OPENMLKIT_KERNELS.
static void forced_levels(const char *forced, int *x86, int *arm) {
    if (forced == NULL) return;
    int x = *x86, a = *arm;
    if (strcmp(forced, "portable") == 0) x = a = 0;
    if (strcmp(forced, "avx2") == 0 && x > 1) x = 1;
    if (strcmp(forced, "avx512") == 0 && x > 2) x = 2;
    if (strcmp(forced, "neon") == 0 && a > 1) a = 1;
    if (strcmp(forced, "dotprod") == 0 && a > 2) a = 2;
    *x86 = x;
    *arm = a;
}

/// The table for the given levels (at most one of them non-zero on a real CPU).
static void fill(omk_kernel_table *t, int x86, int arm) {
    memset(t, 0, sizeof *t);
    t->x86_level = x86;
    t->arm_level = arm;
    t->name = "portable";
    t->requantize_i32 = omk_requantize_i32;
    t->f32_gemm_reorder = omk_f32_gemm_reorder_portable;
    t->f32_add = omk_f32_add_portable;
    t->f32_clamp = omk_f32_clamp_portable;
    t->f32_prelu = omk_f32_prelu_portable;
    t->f32_logistic = omk_f32_logistic_portable;
    t->f32_max_pixel = omk_f32_max_pixel_portable;
    t->hybrid_finish = omk_hybrid_finish;
#if defined(__x86_64__) || defined(__i386__)
    if (x86 >= 1) {
        t->name = x86 >= 3 ? "avx512+vnni" : (x86 >= 2 ? "avx512" : "avx2+fma");
        t->f32_gemm_8x16 = x86 >= 2 ? omk_f32_gemm_8x16_avx512 : omk_f32_gemm_8x16_avx2;
        t->f32_gemv_16 = x86 >= 2 ? omk_f32_gemv_16_avx512 : omk_f32_gemv_16_avx2;
        t->f32_dwconv_pixel = omk_f32_dwconv_pixel_avx2;
        t->f32_gemm_reorder = x86 >= 2 ? omk_f32_gemm_reorder_avx512 : omk_f32_gemm_reorder_avx2;
        t->f32_add = x86 >= 2 ? omk_f32_add_avx512 : omk_f32_add_avx2;
        t->f32_clamp = x86 >= 2 ? omk_f32_clamp_avx512 : omk_f32_clamp_avx2;
        t->f32_prelu = x86 >= 2 ? omk_f32_prelu_avx512 : omk_f32_prelu_avx2;
        t->f32_logistic = x86 >= 2 ? omk_f32_logistic_avx512 : omk_f32_logistic_avx2;
        t->f32_max_pixel = x86 >= 2 ? omk_f32_max_pixel_avx512 : omk_f32_max_pixel_avx2;
        t->f32_dwconv_run = x86 >= 2 ? omk_f32_dwconv_run_avx512 : omk_f32_dwconv_run_avx2;
        t->q16_gemm_8x8 = omk_q16_gemm_8x8_avx2;
        t->q16_dwconv_pixel = omk_q16_dwconv_pixel_avx2;
        t->requantize_i32 = omk_requantize_i32_avx2;
        t->requantize_i32_to_8 = omk_requantize_i32_to_8_avx2;
        t->requantize_gemm_to_8 = omk_requantize_gemm_to_8_avx2;
        t->q8_add = x86 >= 2 ? omk_q8_add_avx512 : omk_q8_add_avx2;
        t->q8_binary = x86 >= 2 ? omk_q8_binary_avx512 : omk_q8_binary_avx2;
        t->q8_dwconv_kernel = x86 >= 3 ? 3 : 1;
        t->q8_dwconv_small_row = x86 >= 2 ? omk_q8_dwconv_small_row_avx512 : omk_q8_dwconv_small_row_avx2;
        t->q8_maxpool_rows = x86 >= 2 ? omk_q8_maxpool_rows_avx512 : omk_q8_maxpool_rows_avx2;
        t->q8_quantize_f32 = x86 >= 2 ? omk_q8_quantize_f32_avx512 : omk_q8_quantize_f32_avx2;
        t->q8_dwconv_fallback = x86 >= 3 ? 1 : 0;
        t->q8_gemm = omk_q8_gemm_avx2;
        t->q8_conv = omk_q8_conv_avx2;
        t->hybrid_finish = omk_hybrid_finish_avx2;
        t->hybrid_quantize_i16 = x86 >= 2 ? omk_f32_quantize_i16_avx512 : omk_f32_quantize_i16_avx2;
    }
    if (x86 >= 2) {
        t->f32_gemm_8x32 = omk_f32_gemm_8x32_avx512;
        t->q16_gemm_8x16 = x86 >= 3 ? omk_q16_gemm_8x16_vnni : omk_q16_gemm_8x16_avx512;
        t->requantize_i32_to_8 = omk_requantize_i32_to_8_avx512;
        t->requantize_gemm_to_8 = omk_requantize_gemm_to_8_avx512;
    }
    if (x86 >= 3) {
        t->q8_gemm = omk_q8_gemm_vnni;
        t->q8_conv = omk_q8_conv_vnni;
        t->hybrid_gemm = omk_hybrid_gemm_vnni;
        t->hybrid_conv = omk_hybrid_conv_vnni;
    }
#endif
#if defined(__aarch64__)
    if (arm >= 1) {
        t->name = arm >= 3 ? "neon+i8mm" : (arm >= 2 ? "neon+dotprod" : "neon");
        t->f32_gemm_8x16 = omk_f32_gemm_8x16_neon;
        t->f32_gemv_16 = omk_f32_gemv_16_neon;
        t->f32_dwconv_pixel = omk_f32_dwconv_pixel_neon;
        t->f32_dwconv_run = omk_f32_dwconv_run_neon;
        t->q16_gemm_8x8 = omk_q16_gemm_8x8_neon;
        t->q16_dwconv_pixel = omk_q16_dwconv_pixel_neon;
        t->requantize_i32 = omk_requantize_i32_neon;
        t->requantize_i32_to_8 = omk_requantize_i32_to_8_neon;
        t->requantize_gemm_to_8 = omk_requantize_gemm_to_8_neon;
        t->q8_add = omk_q8_add_neon;
        t->q8_binary = omk_q8_binary_neon;
        t->q8_dwconv_kernel = 2;
        t->q8_dwconv_small_row = omk_q8_dwconv_small_row_portable;
        t->q8_maxpool_rows = omk_q8_maxpool_rows_portable;
        t->q8_gemm = arm >= 3 ? omk_q8_gemm_i8mm : (arm >= 2 ? omk_q8_gemm_dotprod : omk_q8_gemm_neon);
        t->q8_conv = arm >= 3 ? omk_q8_conv_i8mm : (arm >= 2 ? omk_q8_conv_dotprod : omk_q8_conv_neon);
    }
#endif
}

static omk_kernel_table table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void fill_once(void) {
    int x86 = detect_x86(), arm = detect_arm();
    forced_levels(getenv("OPENMLKIT_KERNELS"), &x86, &arm);
    fill(&table, x86, arm);
}

const omk_kernel_table *omk_kernels(void) {
    pthread_once(&table_once, fill_once);
    return &table;
}

int omk_kernel_table_named(const char *name, omk_kernel_table *out) {
    static const struct { const char *name; int x86, arm; } names[] = {
        {"portable", 0, 0}, {"avx2", 1, 0}, {"avx512", 2, 0}, {"avx512+vnni", 3, 0},
        {"neon", 0, 1},     {"dotprod", 0, 2}, {"i8mm", 0, 3},
    };
    const int x86 = detect_x86(), arm = detect_arm();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(names[i].name, name) != 0) continue;
        if (names[i].x86 > x86 || names[i].arm > arm) return 0;
        fill(out, names[i].x86, names[i].arm);
        return 1;
    }
    return 0;
}

int omk_cpu_level(void) { return omk_kernels()->x86_level; }

void omk_f32_gemm_8x16(const float *const *a, size_t rows, size_t taps, size_t depth, const float *b,
                       const float *bias, float lower, float upper, float *c, size_t ldc, size_t columns) {
    omk_kernels()->f32_gemm_8x16(a, rows, taps, depth, b, bias, lower, upper, c, ldc, columns);
}

void omk_f32_gemv_16(const float *const *a, size_t taps, size_t depth, const float *b, const float *bias,
                     float lower, float upper, float *c, size_t columns) {
    omk_kernels()->f32_gemv_16(a, taps, depth, b, bias, lower, upper, c, columns);
}

void omk_f32_dwconv_pixel(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                          size_t x_step, size_t x_row_step, size_t w_row_step, const float *bias, float lower,
                          float upper, float *out) {
    omk_kernels()->f32_dwconv_pixel(x, w, channels, tap_rows, tap_columns, x_step, x_row_step, w_row_step, bias,
                                    lower, upper, out);
}

void omk_f32_gemm_reorder(const float *const *a, size_t mr, size_t rows, size_t taps, size_t depth, const float *b,
                          size_t nr, size_t lane_begin, size_t lane_end, size_t four_way_begin, int gemv_combine,
                          const float *bias, float lower, float upper, float *c, size_t ldc) {
    omk_kernels()->f32_gemm_reorder(a, mr, rows, taps, depth, b, nr, lane_begin, lane_end, four_way_begin, gemv_combine,
                                    bias, lower, upper, c, ldc);
}

void omk_f32_add(const float *a, const float *b, float *y, size_t count, float lower, float upper) {
    omk_kernels()->f32_add(a, b, y, count, lower, upper);
}

void omk_f32_clamp(const float *x, float *y, size_t count, float lower, float upper) {
    omk_kernels()->f32_clamp(x, y, count, lower, upper);
}

void omk_f32_prelu(const float *x, const float *alpha, float *y, size_t rows, size_t channels) {
    omk_kernels()->f32_prelu(x, alpha, y, rows, channels);
}

void omk_f32_logistic(const float *x, float *y, size_t count) { omk_kernels()->f32_logistic(x, y, count); }

void omk_f32_max_pixel(const float *first, size_t channels, size_t rows, size_t cols, size_t col_step, size_t row_step,
                       float lower, float upper, float *out) {
    omk_kernels()->f32_max_pixel(first, channels, rows, cols, col_step, row_step, lower, upper, out);
}

void omk_f32_dwconv_run(const float *x, const float *w, size_t channels, size_t tap_rows, size_t tap_columns,
                        size_t x_step, size_t x_row_step, size_t w_row_step, size_t pixel_step, size_t count,
                        const float *bias, float lower, float upper, float *out) {
    omk_kernels()->f32_dwconv_run(x, w, channels, tap_rows, tap_columns, x_step, x_row_step, w_row_step, pixel_step,
                                  count, bias, lower, upper, out);
}

void omk_q16_gemm_8x8(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b, int32_t *acc,
                      size_t ldacc) {
    omk_kernels()->q16_gemm_8x8(a, taps, depth, b, acc, ldacc);
}

void omk_q16_gemm_8x16(const int16_t *const *a, size_t taps, size_t depth, const int16_t *b0, const int16_t *b1,
                       int32_t *acc, size_t ldacc) {
    omk_kernels()->q16_gemm_8x16(a, taps, depth, b0, b1, acc, ldacc);
}

void omk_q16_dwconv_pixel(const int16_t *x, const int16_t *w, size_t channels, size_t tap_rows, size_t tap_columns,
                          size_t x_step, size_t x_row_step, size_t w_row_step, int32_t *acc) {
    omk_kernels()->q16_dwconv_pixel(x, w, channels, tap_rows, tap_columns, x_step, x_row_step, w_row_step, acc);
}

void omk_q8_gemm(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows, size_t group_begin,
                 size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch) {
    omk_kernels()->q8_gemm(p, a, lda, rows, group_begin, group_end, out, ldo, scratch);
}

void omk_q8_conv(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g, size_t row_begin, size_t row_end,
                 size_t group_begin, size_t group_end, uint8_t *out, size_t ldo, uint8_t *scratch) {
    omk_kernels()->q8_conv(p, g, row_begin, row_end, group_begin, group_end, out, ldo, scratch);
}

void omk_requantize(int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                    const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo, int32_t hi) {
    omk_kernels()->requantize_i32(acc, count, bias, multiplier, shift, gemm_rounding, zero_point, lo, hi);
}

void omk_requantize_to_8(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                         const int32_t *shift, const uint8_t *gemm_rounding, int32_t zero_point, int32_t lo,
                         int32_t hi, uint8_t *out) {
    omk_kernels()->requantize_i32_to_8(acc, count, bias, multiplier, shift, gemm_rounding, zero_point, lo, hi, out);
}

void omk_requantize_gemm_to_8(const int32_t *acc, size_t count, const int32_t *bias, const int32_t *multiplier,
                              const int32_t *left, const int64_t *addend, const int64_t *shift, int32_t zero_point,
                              int32_t lo, int32_t hi, uint8_t *out) {
    omk_kernels()->requantize_gemm_to_8(acc, count, bias, multiplier, left, addend, shift, zero_point, lo, hi, out);
}

void omk_q8_add(const void *a, const void *b, void *out, size_t count, int is_signed, const omk_q8_add_params *p) {
    omk_kernels()->q8_add(a, b, out, count, is_signed, p);
}

void omk_q8_binary(const omk_q8_binary_params *p, const void *a, const void *b, void *out, size_t lanes, size_t runs,
                   size_t stride, int a_scalar) {
    omk_kernels()->q8_binary(p, a, b, out, lanes, runs, stride, a_scalar);
}

void omk_q8_dwconv_small_row(const omk_q8_dwconv_small_params *p, const uint8_t *input, size_t row,
                             int16_t *scratch, int32_t *acc) {
    omk_kernels()->q8_dwconv_small_row(p, input, row, scratch, acc);
}

void omk_q8_maxpool_rows(const omk_q8_maxpool_params *p, const uint8_t *input, uint8_t *output, size_t first_row,
                         size_t end_row, uint8_t *scratch) {
    omk_kernels()->q8_maxpool_rows(p, input, output, first_row, end_row, scratch);
}

void omk_q8_quantize_f32(const float *x, size_t count, float reciprocal, int32_t zero_point, int32_t lo, int32_t hi,
                         uint8_t *out) {
    omk_kernels()->q8_quantize_f32(x, count, reciprocal, zero_point, lo, hi, out);
}

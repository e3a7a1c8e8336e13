#ifndef OMK_HARNESS_H
#define OMK_HARNESS_H

// Shared pieces of the C kernel harness (see harness.c): the random source, the result tally, the
// float clamp, and the per-operation test functions of harness_float.c and harness_quant.c.

#include "CKernels.h"

#include <stddef.h>
#include <stdint.h>

/// A uniformly random integer in [lo, hi], a raw 64-bit word, and a float mixing moderate, huge,
/// tiny and zero values (xorshift; the seed is fixed unless --seed sets it).
int32_t rnd(int32_t lo, int32_t hi);
uint64_t next_random(void);
float rndf(void);
void seed_random(uint64_t seed);

/// Records `cases` cases of `op` for `variant`, `failed` of them differing from the reference.
void result(const char *variant, const char *op, int cases, int failed);
/// Tests and failures recorded so far.
extern int tests, failures;

/// x86's min(hi, max(lo, v)): the clamp every float kernel applies.
float clampf(float v, float lo, float hi);

/// Each tests one table's entries (skipping NULL ones) against the scalar references.
void test_f32_gemm(const char *name, const omk_kernel_table *t);
void test_f32_dwconv(const char *name, const omk_kernel_table *t);
void test_f32_reorder(const char *name, const omk_kernel_table *t);
void test_f32_elementwise(const char *name, const omk_kernel_table *t);
void test_q16(const char *name, const omk_kernel_table *t);
void test_requantize(const char *name, const omk_kernel_table *t);
void test_requantize_to_8(const char *name, const omk_kernel_table *t);
void test_add(const char *name, const omk_kernel_table *t);
void test_binary(const char *name, const omk_kernel_table *t);
void test_q8_gemm(const char *name, const omk_kernel_table *t);
void test_q8_conv(const char *name, const omk_kernel_table *t);
void test_q8_dwconv(const char *name, const omk_kernel_table *t);
void test_q8_dwconv_small(const char *name, const omk_kernel_table *t);
void test_q8_maxpool(const char *name, const omk_kernel_table *t);
void test_q8_quantize(const char *name, const omk_kernel_table *t);
void test_hybrid(const char *name, const omk_kernel_table *t);

#endif

// The C kernel harness: every SIMD variant this CPU can run (x86: avx2, avx512, avx512+vnni;
// aarch64: neon, dotprod, i8mm), each operation of its kernel table, against scalar references
// written here from the contracts in CKernels.h, on random and edge-case inputs. Integer kernels
// must match bit for bit; float kernels too (they keep LiteRT's order and rounding, so the bound
// is 0 ULP), compared as bit patterns.
//
// Usage: harness [--only VARIANT|none] [--require v1,v2,...] [--expect-table NAME] [--seed N]
//   --only          test just this named variant (none: only the process table below);
//   --require       fail unless every listed variant can run here (no silent skipping);
//   --expect-table  fail unless the process table (OPENMLKIT_KERNELS applied) is NAME ("any":
//                   whichever it is), then also test the ISA-neutral entry points as "active".
// Prints one line per variant and operation, then `N kernel tests passed on ARCH` or
// `M of N kernel tests failed on ARCH` (N: variant × case, plus one for the table check); exits 0
// only when all pass, and fails when it tested nothing.
// Build: scripts/test-arm (aarch64 under qemu) or scripts/test-kernels-native (this CPU), from
// harness.c, harness_float.c, harness_quant.c and harness_q8_rows.c.

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__aarch64__)
#define ARCH "aarch64"
#else
#define ARCH "x86_64"
#endif

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

void seed_random(uint64_t seed) { rng_state = seed | 1; }

uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
int32_t rnd(int32_t lo, int32_t hi) {
    return (int32_t)(lo + (int64_t)(next_random() % (uint64_t)((int64_t)hi - lo + 1)));
}
float rndf(void) {
    // Mostly moderate values, now and then large, tiny, or exactly zero.
    const int kind = rnd(0, 19);
    if (kind == 0) return 0.0f;
    if (kind == 1) return (float)rnd(-1000, 1000) * 1e6f;
    if (kind == 2) return (float)rnd(-1000, 1000) * 1e-9f;
    return (float)rnd(-100000, 100000) / 8192.0f;
}

int tests = 0, failures = 0;

void result(const char *variant, const char *op, int cases, int failed) {
    tests += cases;
    failures += failed;
    printf("%-12s %-22s %4d cases %s\n", variant, op, cases, failed ? "FAILED" : "ok");
    if (failed) printf("%-12s %-22s %4d of %d cases differ from the reference\n", variant, op, failed, cases);
}

float clampf(float v, float lo, float hi) {
    const float t = lo > v ? lo : v;
    return hi < t ? hi : t;
}

// ---------------------------------------------------------------- driver

static void run_table(const char *name, const omk_kernel_table *t) {
    test_f32_gemm(name, t);
    test_f32_dwconv(name, t);
    test_f32_reorder(name, t);
    test_f32_elementwise(name, t);
    test_q16(name, t);
    test_requantize(name, t);
    test_requantize_to_8(name, t);
    test_add(name, t);
    test_binary(name, t);
    test_q8_gemm(name, t);
    test_q8_conv(name, t);
    test_q8_dwconv(name, t);
    test_q8_dwconv_small(name, t);
    test_q8_maxpool(name, t);
    test_q8_quantize(name, t);
    test_hybrid(name, t);
}

/// The process table (OPENMLKIT_KERNELS applied) through the ISA-neutral entry points.
static omk_kernel_table neutral(void) {
    omk_kernel_table t = *omk_kernels();
    if (t.f32_gemm_8x16) t.f32_gemm_8x16 = omk_f32_gemm_8x16;
    if (t.f32_gemv_16) t.f32_gemv_16 = omk_f32_gemv_16;
    if (t.f32_dwconv_pixel) t.f32_dwconv_pixel = omk_f32_dwconv_pixel;
    if (t.f32_dwconv_run) t.f32_dwconv_run = omk_f32_dwconv_run;
    t.f32_gemm_reorder = omk_f32_gemm_reorder;
    t.f32_add = omk_f32_add;
    t.f32_clamp = omk_f32_clamp;
    t.f32_prelu = omk_f32_prelu;
    t.f32_logistic = omk_f32_logistic;
    t.f32_max_pixel = omk_f32_max_pixel;
    if (t.q16_gemm_8x8) t.q16_gemm_8x8 = omk_q16_gemm_8x8;
    if (t.q16_gemm_8x16) t.q16_gemm_8x16 = omk_q16_gemm_8x16;
    if (t.q16_dwconv_pixel) t.q16_dwconv_pixel = omk_q16_dwconv_pixel;
    if (t.q8_gemm) t.q8_gemm = omk_q8_gemm;
    if (t.q8_conv) t.q8_conv = omk_q8_conv;
    if (t.requantize_i32 != omk_requantize_i32) t.requantize_i32 = omk_requantize;
    if (t.q8_add) t.q8_add = omk_q8_add;
    if (t.q8_binary) t.q8_binary = omk_q8_binary;
    if (t.q8_dwconv_small_row) t.q8_dwconv_small_row = omk_q8_dwconv_small_row;
    if (t.q8_maxpool_rows) t.q8_maxpool_rows = omk_q8_maxpool_rows;
    if (t.q8_quantize_f32) t.q8_quantize_f32 = omk_q8_quantize_f32;
    if (t.requantize_i32_to_8) t.requantize_i32_to_8 = omk_requantize_to_8;
    if (t.requantize_gemm_to_8) t.requantize_gemm_to_8 = omk_requantize_gemm_to_8;
    return t;
}

int main(int argc, char **argv) {
    const char *require = NULL, *expect = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--require") == 0 && i + 1 < argc) require = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--expect-table") == 0 && i + 1 < argc) expect = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed_random(strtoull(argv[++i], NULL, 10));
        else {
            fprintf(stderr, "usage: %s [--only VARIANT|none] [--require v1,v2] [--expect-table NAME] [--seed N]\n",
                    argv[0]);
            return 2;
        }
    }
    const char *variants[] = {"avx2", "avx512", "avx512+vnni", "neon", "dotprod", "i8mm"};
    int missing = 0;
    if (require) {
        char list[256];
        snprintf(list, sizeof list, "%s", require);
        for (char *v = strtok(list, ","); v; v = strtok(NULL, ",")) {
            omk_kernel_table t;
            if (!omk_kernel_table_named(v, &t)) {
                printf("required variant %s cannot run on this CPU\n", v);
                missing++;
            }
        }
    }
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        omk_kernel_table t;
        if (only && strcmp(only, variants[i]) != 0) continue;
        if (omk_kernel_table_named(variants[i], &t)) {
            run_table(variants[i], &t);
        } else {
            printf("%-12s not available on this CPU\n", variants[i]);
        }
    }
    const omk_kernel_table *active = omk_kernels();
    printf("process table: %s (OPENMLKIT_KERNELS=%s)\n", active->name,
           getenv("OPENMLKIT_KERNELS") ? getenv("OPENMLKIT_KERNELS") : "");
    if (expect) {
        // The table check counts as one test.
        tests++;
        if (strcmp(expect, "any") != 0 && strcmp(active->name, expect) != 0) {
            printf("expected the process table %s, got %s\n", expect, active->name);
            failures++;
        }
        const omk_kernel_table t = neutral();
        run_table("active", &t);
    }
    const int failed = failures + missing, total = tests + missing;
    if (failed || total == 0) {
        printf("%d of %d kernel tests failed on %s\n", failed ? failed : 1, total ? total : 1, ARCH);
        return 1;
    }
    printf("%d kernel tests passed on %s\n", total, ARCH);
    return 0;
}

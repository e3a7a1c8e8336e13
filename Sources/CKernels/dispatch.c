#include "CKernels.h"

#include <stdlib.h>
#include <string.h>

static int detect_cpu(void) {
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

/// The CPU's level, lowered (never raised) by OPENMLKIT_KERNELS=portable|avx2|avx512 so that every path
/// the dispatch can choose can be tested on one machine.
static int detect(void) {
    const int level = detect_cpu();
    const char *forced = getenv("OPENMLKIT_KERNELS");
    if (forced != NULL && strcmp(forced, "portable") == 0) return 0;
    if (forced != NULL && strcmp(forced, "avx2") == 0) return level < 1 ? level : 1;
    if (forced != NULL && strcmp(forced, "avx512") == 0) return level < 2 ? level : 2;
    return level;
}

int omk_cpu_level(void) {
    static int level = -1;
    if (level < 0) level = detect();
    return level;
}

#include "CKernels.h"

#include <stdlib.h>
#include <string.h>

static int detect(void) {
    const char *forced = getenv("OPENMLKIT_KERNELS");
    if (forced != NULL && strcmp(forced, "portable") == 0) return 0;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("fma"))
        return 2;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
#endif
    return 0;
}

int omk_cpu_level(void) {
    static int level = -1;
    if (level < 0) level = detect();
    return level;
}

// The body of one reorder kernel, included by f32_gemm_reorder.c once per vector width and row
// count. Before including, define:
//   REORDER_NAME  the function's name
//   REORDER_VT    a GCC/Clang vector type of REORDER_VL floats (unaligned, may alias floats)
//   REORDER_VL    lanes per vector (8 or 16)
//   REORDER_R     rows computed together (independent chains)
//
// It computes, for rows r0 ..< r0 + n of a tile (rows past n repeat the last one: their sums are
// not used) and the lanes lane_base ..< lane_base + VL of a packed panel, the two sums LiteRT's
// float GEMM (Eigen) forms for the outputs that are not one running sum:
//   - even/odd: two partial sums over the even and odd (tap, k) steps up to the last multiple of 8,
//     added, then the remaining products one by one;
//   - four-way: four partial sums over the steps mod 4 up to the last multiple of 4, combined
//     (s0 + s1) + (s2 + s3) (or (s0 + s2) + (s1 + s3) with gemv_combine), then the rest one by one.
// Every product is rounded before it is added (the file has FP_CONTRACT OFF). Either sum may be
// skipped (need_eo / need_four 0, constants in every caller); its output is then left unwritten.

static inline __attribute__((always_inline)) void REORDER_NAME(
    const float *const *a, size_t mr, size_t r0, size_t n, size_t taps, size_t depth, const float *b, size_t nr,
    size_t lane_base, int gemv_combine, float eo_out[REORDER_R][REORDER_VL], float four_out[REORDER_R][REORDER_VL],
    const int need_eo, const int need_four) {
    const size_t total = taps * depth, p8 = total / 8 * 8, p4 = total / 4 * 4;
    float xb[REORDER_R][CHUNK];
    REORDER_VT e[REORDER_R], o[REORDER_R], s[REORDER_R][4], eo[REORDER_R], f[REORDER_R];
    const REORDER_VT zero = {0};
    REORDER_UNROLL
    for (int r = 0; r < REORDER_R; r++) {
        e[r] = o[r] = s[r][0] = s[r][1] = s[r][2] = s[r][3] = eo[r] = f[r] = zero;
    }
    int eo_started = 0, four_started = 0;
    size_t t = 0, k = 0;
    for (size_t base = 0; base < total; base += CHUNK) {
        const size_t m = total - base < CHUNK ? total - base : CHUNK;
        // This chunk of each row's (tap, k) values, contiguous: read in place when the chunk lies
        // within one tap (always, for one tap: a pointwise convolution), else copied.
        const float *xs[REORDER_R];
        if (k + m <= depth) {
            REORDER_UNROLL
            for (int r = 0; r < REORDER_R; r++) xs[r] = a[t * mr + r0 + ((size_t)r < n ? (size_t)r : n - 1)] + k;
            k += m;
            if (k == depth) {
                k = 0;
                t++;
            }
        } else {
            size_t tt = t, kk = k;
            for (size_t j = 0; j < m;) {
                const size_t run = depth - kk < m - j ? depth - kk : m - j;
                REORDER_UNROLL
                for (int r = 0; r < REORDER_R; r++) {
                    const size_t row = r0 + ((size_t)r < n ? (size_t)r : n - 1);
                    const float *src = a[tt * mr + row] + kk;
                    for (size_t i = 0; i < run; i++) xb[r][j + i] = src[i];
                }
                j += run;
                kk += run;
                if (kk == depth) {
                    kk = 0;
                    tt++;
                }
            }
            t = tt;
            k = kk;
            REORDER_UNROLL
            for (int r = 0; r < REORDER_R; r++) xs[r] = xb[r];
        }
        const float *w = b + base * nr + lane_base;
        size_t j = 0;
        // Whole groups of 8 steps before p8: both partial-sum schemes, by position.
        for (; j + 8 <= m && base + j < p8; j += 8) {
            REORDER_UNROLL
            for (int q = 0; q < 8; q++) {
                REORDER_VT wv;
                __builtin_memcpy(&wv, w + (j + (size_t)q) * nr, sizeof wv);
                REORDER_UNROLL
                for (int r = 0; r < REORDER_R; r++) {
                    const REORDER_VT p = xs[r][j + (size_t)q] * wv;
                    if (need_eo) {
                        if (q & 1) o[r] += p;
                        else e[r] += p;
                    }
                    if (need_four) s[r][q & 3] += p;
                }
            }
        }
        // The last steps (at most 7 in all): from p8 the even/odd sums go on one by one; a group of 4
        // before p4 still feeds the four-way sums by position, after p4 they go on one by one too.
        if (j < m && need_eo && !eo_started) {
            REORDER_UNROLL
            for (int r = 0; r < REORDER_R; r++) eo[r] = e[r] + o[r];
            eo_started = 1;
        }
        if (j < m && base + j < p4) {
            REORDER_UNROLL
            for (int q = 0; q < 4; q++) {
                REORDER_VT wv;
                __builtin_memcpy(&wv, w + (j + (size_t)q) * nr, sizeof wv);
                REORDER_UNROLL
                for (int r = 0; r < REORDER_R; r++) {
                    const REORDER_VT p = xs[r][j + (size_t)q] * wv;
                    if (need_eo) eo[r] += p;
                    if (need_four) s[r][q] += p;
                }
            }
            j += 4;
        }
        if (j < m && need_four && !four_started) {
            REORDER_UNROLL
            for (int r = 0; r < REORDER_R; r++)
                f[r] = gemv_combine ? (s[r][0] + s[r][2]) + (s[r][1] + s[r][3])
                                    : (s[r][0] + s[r][1]) + (s[r][2] + s[r][3]);
            four_started = 1;
        }
        for (; j < m; j++) {
            REORDER_VT wv;
            __builtin_memcpy(&wv, w + j * nr, sizeof wv);
            REORDER_UNROLL
            for (int r = 0; r < REORDER_R; r++) {
                const REORDER_VT p = xs[r][j] * wv;
                if (need_eo) eo[r] += p;
                if (need_four) f[r] += p;
            }
        }
    }
    if (need_eo && !eo_started)
        REORDER_UNROLL
        for (int r = 0; r < REORDER_R; r++) eo[r] = e[r] + o[r];
    if (need_four && !four_started)
        REORDER_UNROLL
        for (int r = 0; r < REORDER_R; r++)
            f[r] = gemv_combine ? (s[r][0] + s[r][2]) + (s[r][1] + s[r][3]) : (s[r][0] + s[r][1]) + (s[r][2] + s[r][3]);
    REORDER_UNROLL
    for (int r = 0; r < REORDER_R; r++) {
        if (need_eo) __builtin_memcpy(eo_out[r], &eo[r], sizeof eo[r]);
        if (need_four) __builtin_memcpy(four_out[r], &f[r], sizeof f[r]);
    }
}

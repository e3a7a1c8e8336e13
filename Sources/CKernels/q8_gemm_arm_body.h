// One variant of the aarch64 8-bit GEMM (private; included by q8_gemm_neon.c once per variant with
// OMK_VARIANT (name suffix), OMK_VARIANT_TARGET (function attribute) and OMK_VARIANT_KIND (1 NEON
// widening multiply-adds, 2 SDOT, 3 USDOT) defined). Everything here is static except the two
// entry points omk_q8_gemm_<variant> and omk_q8_conv_<variant>.

#define OMK_CAT_(a, b) a##_##b
#define OMK_CAT(a, b) OMK_CAT_(a, b)
#define OMK_FN(name) OMK_CAT(name, OMK_VARIANT)

/// One tile: up to 4 rows (`r[i]`, each `depth` readable bytes, activation = byte XOR `fl`) by one
/// block of 16 columns (`w`: the block's 64 bytes of quad 0; quads `stride` bytes apart), added
/// into `acc[row][4 columns]`.
static OMK_VARIANT_TARGET void OMK_FN(tile)(const uint8_t *const *r, size_t depth, uint32_t fl, const int8_t *w,
                                           size_t stride, int32x4_t acc[4][4]) {
    const size_t quads = depth / 4, rest = depth % 4;
    for (size_t q = 0; q <= quads; q++) {
        if (q == quads && rest == 0) break;
        uint32_t word[4];
        OMK_UNROLL
        for (int i = 0; i < 4; i++) {
            if (q < quads) {
                memcpy(&word[i], r[i] + 4 * q, 4);
            } else {
                // The last 1...3 bytes, zero-extended (their packed weights are zero).
                word[i] = 0;
                memcpy(&word[i], r[i] + 4 * q, rest);
            }
            word[i] ^= fl;
        }
#if OMK_VARIANT_KIND == 1
        // 64 bytes of 16 columns × 4 k, deinterleaved into one vector of 16 columns per k.
        const int8x16x4_t v = vld4q_s8(w);
        int16x8_t wl[4], wh[4];
        OMK_UNROLL
        for (int k = 0; k < 4; k++) {
            wl[k] = vmovl_s8(vget_low_s8(v.val[k]));
            wh[k] = vmovl_high_s8(v.val[k]);
        }
        OMK_UNROLL
        for (int i = 0; i < 4; i++) {
            // The row's 4 activations (0...255) as int16 lanes.
            const int16x4_t x = vget_low_s16(vreinterpretq_s16_u16(vmovl_u8(vcreate_u8((uint64_t)word[i]))));
#define OMK_STEP(K)                                                                \
    acc[i][0] = vmlal_lane_s16(acc[i][0], vget_low_s16(wl[K]), x, K);              \
    acc[i][1] = vmlal_lane_s16(acc[i][1], vget_high_s16(wl[K]), x, K);             \
    acc[i][2] = vmlal_lane_s16(acc[i][2], vget_low_s16(wh[K]), x, K);              \
    acc[i][3] = vmlal_lane_s16(acc[i][3], vget_high_s16(wh[K]), x, K);
            OMK_STEP(0) OMK_STEP(1) OMK_STEP(2) OMK_STEP(3)
#undef OMK_STEP
        }
#else
        const int8x16_t w0 = vld1q_s8(w), w1 = vld1q_s8(w + 16), w2 = vld1q_s8(w + 32), w3 = vld1q_s8(w + 48);
        OMK_UNROLL
        for (int i = 0; i < 4; i++) {
#if OMK_VARIANT_KIND == 2
            // Signed activations a − 128 (the caller adds 128 · Σ w back).
            const int8x16_t x = vreinterpretq_s8_u32(vdupq_n_u32(word[i] ^ 0x80808080u));
            acc[i][0] = vdotq_s32(acc[i][0], w0, x);
            acc[i][1] = vdotq_s32(acc[i][1], w1, x);
            acc[i][2] = vdotq_s32(acc[i][2], w2, x);
            acc[i][3] = vdotq_s32(acc[i][3], w3, x);
#else
            const uint8x16_t x = vreinterpretq_u8_u32(vdupq_n_u32(word[i]));
            acc[i][0] = vusdotq_s32(acc[i][0], x, w0);
            acc[i][1] = vusdotq_s32(acc[i][1], x, w1);
            acc[i][2] = vusdotq_s32(acc[i][2], x, w2);
            acc[i][3] = vusdotq_s32(acc[i][3], x, w3);
#endif
        }
#endif
        w += stride;
    }
}

#if OMK_VARIANT_KIND == 2
/// 128 · Σ_k w[k][c] for the `n` blocks of one column group: each 16-byte vector holds 4 columns'
/// 4 k, so two pairwise widening adds leave one sum per column.
static void OMK_FN(column_terms)(const int8_t *w, size_t quads, size_t n, int32_t *terms) {
    for (size_t j = 0; j < n; j++) {
        int32x4_t s[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
        const int8_t *b = w + 64 * j;
        for (size_t q = 0; q < quads; q++, b += 64 * n) {
            for (int v = 0; v < 4; v++) s[v] = vaddq_s32(s[v], vpaddlq_s16(vpaddlq_s8(vld1q_s8(b + 16 * v))));
        }
        for (int v = 0; v < 4; v++) vst1q_s32(terms + 16 * j + 4 * v, vshlq_n_s32(s[v], 7));
    }
}
#endif

/// `count` rows (≤ ROW_BLOCK) at `a`, `lda` apart, `depth` bytes each read as byte XOR `fl`, times
/// column groups [group_begin, group_end) of the packed weights (`quads` per column), finished
/// into `out + r * ldo + c`. `terms`: the uint8 row terms (or NULL).
static OMK_VARIANT_TARGET void OMK_FN(block)(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t count,
                                            size_t depth, uint32_t fl, const int32_t *terms, size_t group_begin,
                                            size_t group_end, uint8_t *out, size_t ldo) {
    const size_t quads = (p->depth + 3) / 4;
    for (size_t g = group_begin; g < group_end; g++) {
        const size_t col = g * 64, cols = p->columns - col < 64 ? p->columns - col : 64;
        const size_t n = (cols + 15) / 16;
        const int8_t *wg = (const int8_t *)p->weights + g * quads * 256;
        int32_t colterm[64] = {0};
#if OMK_VARIANT_KIND == 2
        OMK_FN(column_terms)(wg, quads, n, colterm);
#endif
        for (size_t i0 = 0; i0 < count; i0 += 4) {
            const size_t rows = count - i0 < 4 ? count - i0 : 4;
            const uint8_t *r[4];
            int32_t t[4];
            for (size_t i = 0; i < 4; i++) {
                // Rows past the last repeat it (not stored).
                const size_t row = i0 + (i < rows ? i : rows - 1);
                r[i] = a + row * lda;
                t[i] = terms ? terms[row] : 0;
            }
            for (size_t j = 0; j < n; j++) {
                const size_t c = col + 16 * j, width = cols - 16 * j < 16 ? cols - 16 * j : 16;
                int32x4_t acc[4][4];
                for (int v = 0; v < 4; v++) {
                    const int32x4_t b = vaddq_s32(vld1q_s32(p->bias + c + 4 * v), vld1q_s32(colterm + 16 * j + 4 * v));
                    for (int i = 0; i < 4; i++) acc[i][v] = vaddq_s32(b, vdupq_n_s32(t[i]));
                }
                OMK_FN(tile)(r, depth, fl, wg + 64 * j, 64 * n, acc);
                for (size_t i = 0; i < rows; i++) finish(p, acc[i], c, width, out + (i0 + i) * ldo + c);
            }
        }
    }
}

OMK_VARIANT_TARGET void OMK_FN(omk_q8_gemm)(const omk_q8_gemm_params *p, const uint8_t *a, size_t lda, size_t rows,
                                           size_t group_begin, size_t group_end, uint8_t *out, size_t ldo,
                                           uint8_t *scratch) {
    (void)scratch;
    const size_t groups = (p->columns + 63) / 64;
    if (group_end > groups) group_end = groups;
    const int flip = p->flip_activations != 0;
    int32_t terms[ROW_BLOCK];
    for (size_t r0 = 0; r0 < rows; r0 += ROW_BLOCK) {
        const size_t count = rows - r0 < ROW_BLOCK ? rows - r0 : ROW_BLOCK;
        if (!flip) row_terms(a + r0 * lda, lda, count, p->depth, p->row_scale, terms);
        OMK_FN(block)(p, a + r0 * lda, lda, count, p->depth, flip ? 0x80808080u : 0, flip ? NULL : terms,
                      group_begin, group_end, out + r0 * ldo, ldo);
    }
}

OMK_VARIANT_TARGET void OMK_FN(omk_q8_conv)(const omk_q8_gemm_params *p, const omk_q8_im2col_params *g,
                                           size_t row_begin, size_t row_end, size_t group_begin, size_t group_end,
                                           uint8_t *out, size_t ldo, uint8_t *scratch) {
    const size_t kp = (p->depth + 3) / 4 * 4, groups = (p->columns + 63) / 64;
    if (group_end > groups) group_end = groups;
    int32_t terms[ROW_BLOCK];
    for (size_t r0 = row_begin; r0 < row_end; r0 += ROW_BLOCK) {
        const size_t count = row_end - r0 < ROW_BLOCK ? row_end - r0 : ROW_BLOCK;
        // The rows as the GEMM reads them: flipped for int8 already, zero-padded to whole quads.
        im2col_rows(g, r0, count, scratch, kp);
        if (!p->flip_activations) row_terms(scratch, kp, count, kp, p->row_scale, terms);
        OMK_FN(block)(p, scratch, kp, count, kp, 0, p->flip_activations ? NULL : terms, group_begin, group_end,
                      out + r0 * ldo, ldo);
    }
}

#undef OMK_FN
#undef OMK_CAT
#undef OMK_CAT_

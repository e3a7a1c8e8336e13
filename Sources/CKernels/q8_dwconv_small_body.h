// One variant of omk_q8_dwconv_small_row (private; included by q8_dwconv_small.c once per target
// with OMK_DWS_NAME (the function's name) and OMK_DWS_TARGET (its attribute, possibly empty)
// defined). The flat loops are written for the compiler to vectorize at the target's width.

OMK_DWS_TARGET void OMK_DWS_NAME(const omk_q8_dwconv_small_params *p, const uint8_t *input, size_t row,
                                 int16_t *scratch, int32_t *acc) {
    const size_t in_c = p->input_channels, m = p->depth_multiplier, c = in_c * m;
    const size_t ow = p->output_width, n = ow * c, kw = p->filter_width;
    const size_t wp = omk_q8_dwconv_small_padded_width(p);
    const size_t b = row / p->output_height, oy = row % p->output_height;
    const uint8_t *image = input + b * p->input_height * p->input_width * in_c;
    int16_t *expanded = scratch, *gathered = scratch + wp * c;
    const int32_t zx = p->input_zero_point;
    // Wrapping int32 sums, as unsigned arithmetic (signed overflow is undefined in C).
    uint32_t *sum = (uint32_t *)acc;
    memset(acc, 0, n * sizeof *acc);
    // The columns of the padded row that lie inside the image: [lo, hi).
    ptrdiff_t lo = p->pad_left, hi = p->pad_left + (ptrdiff_t)p->input_width;
    if (lo < 0) lo = 0;
    if (lo > (ptrdiff_t)wp) lo = (ptrdiff_t)wp;
    if (hi > (ptrdiff_t)wp) hi = (ptrdiff_t)wp;
    if (hi < lo) hi = lo;
    const size_t count = (size_t)(hi - lo) * in_c;
    for (size_t ky = 0; ky < p->filter_height; ky++) {
        const ptrdiff_t iy = (ptrdiff_t)(oy * p->stride_height + ky * p->dilation_height) - p->pad_top;
        if (iy < 0 || iy >= (ptrdiff_t)p->input_height) continue;  // a padding row adds nothing
        // The input row widened minus the zero point, each channel repeated m times, zeros outside.
        const uint8_t *src = image + (size_t)iy * p->input_width * in_c + (size_t)(lo - p->pad_left) * in_c;
        int16_t *dst = expanded + (size_t)lo * c;
        memset(expanded, 0, (size_t)lo * c * sizeof *expanded);
        memset(expanded + (size_t)hi * c, 0, (wp - (size_t)hi) * c * sizeof *expanded);
        if (m == 1 && p->activations_signed) {
            for (size_t i = 0; i < count; i++) dst[i] = (int16_t)((int8_t)src[i] - zx);
        } else if (m == 1) {
            for (size_t i = 0; i < count; i++) dst[i] = (int16_t)(src[i] - zx);
        } else {
            for (size_t i = 0; i < count; i++) {
                const int32_t x = p->activations_signed ? (int32_t)(int8_t)src[i] : (int32_t)src[i];
                for (size_t j = 0; j < m; j++) dst[i * m + j] = (int16_t)(x - zx);
            }
        }
        for (size_t kx = 0; kx < kw; kx++) {
            const int16_t *w = p->weights + (ky * kw + kx) * n;
            const int16_t *x = expanded + kx * p->dilation_width * c;
            if (p->stride_width != 1) {
                for (size_t ox = 0; ox < ow; ox++)
                    memcpy(gathered + ox * c, x + ox * p->stride_width * c, c * sizeof *gathered);
                x = gathered;
            }
            for (size_t i = 0; i < n; i++) sum[i] += (uint32_t)((int32_t)x[i] * (int32_t)w[i]);
        }
    }
}

// One variant of omk_q8_maxpool_rows (private; included by q8_maxpool.c once per target with
// OMK_MP_NAME (the function's name) and OMK_MP_TARGET (its attribute, possibly empty) defined).

OMK_MP_TARGET void OMK_MP_NAME(const omk_q8_maxpool_params *p, const uint8_t *input, uint8_t *output,
                               size_t first_row, size_t end_row, uint8_t *scratch) {
    const size_t c = p->channels, ow = p->output_width, kw = p->filter_width, sw = p->stride_width;
    const size_t wp = omk_q8_maxpool_padded_width(p), n = wp * c;
    // Signed bytes are compared with their top bit flipped: then unsigned order is signed order.
    const uint8_t flip = p->is_signed ? 0x80 : 0;
    const uint8_t lo = (uint8_t)((uint8_t)p->lo ^ flip), hi = (uint8_t)((uint8_t)p->hi ^ flip);
    ptrdiff_t first = p->pad_left, last = p->pad_left + (ptrdiff_t)p->input_width;
    if (first < 0) first = 0;
    if (first > (ptrdiff_t)wp) first = (ptrdiff_t)wp;
    if (last > (ptrdiff_t)wp) last = (ptrdiff_t)wp;
    if (last < first) last = first;
    const size_t inside = (size_t)(last - first) * c;
    for (size_t row = first_row; row < end_row; row++) {
        const size_t b = row / p->output_height, oy = row % p->output_height;
        const uint8_t *image = input + b * p->input_height * p->input_width * c;
        // The column maxima over the window's rows inside the image; 0 (the lowest value) in the
        // padding and where no row is inside, which the clamp then turns into `lo`, as LiteRT's
        // lowest-value start does.
        memset(scratch, 0, n);
        for (size_t ky = 0; ky < p->filter_height; ky++) {
            const ptrdiff_t iy = (ptrdiff_t)(oy * p->stride_height + ky) - p->pad_top;
            if (iy < 0 || iy >= (ptrdiff_t)p->input_height) continue;
            const uint8_t *src = image + ((size_t)iy * p->input_width + (size_t)(first - p->pad_left)) * c;
            uint8_t *dst = scratch + (size_t)first * c;
            for (size_t i = 0; i < inside; i++) {
                const uint8_t v = (uint8_t)(src[i] ^ flip);
                dst[i] = dst[i] > v ? dst[i] : v;
            }
        }
        uint8_t *out = output + row * ow * c;
        if (sw == 1) {
            // Flat over the row: out[i] = max over kx of scratch[i + kx·c].
            const size_t m = ow * c;
            for (size_t i = 0; i < m; i++) out[i] = scratch[i];
            for (size_t kx = 1; kx < kw; kx++) {
                const uint8_t *s = scratch + kx * c;
                for (size_t i = 0; i < m; i++) out[i] = out[i] > s[i] ? out[i] : s[i];
            }
        } else {
            for (size_t ox = 0; ox < ow; ox++) {
                const uint8_t *s = scratch + ox * sw * c;
                uint8_t *o = out + ox * c;
                for (size_t j = 0; j < c; j++) o[j] = s[j];
                for (size_t kx = 1; kx < kw; kx++) {
                    const uint8_t *t = s + kx * c;
                    for (size_t j = 0; j < c; j++) o[j] = o[j] > t[j] ? o[j] : t[j];
                }
            }
        }
        const size_t m = ow * c;
        for (size_t i = 0; i < m; i++) {
            uint8_t v = out[i];
            v = v < lo ? lo : v;
            v = v > hi ? hi : v;
            out[i] = (uint8_t)(v ^ flip);
        }
    }
}

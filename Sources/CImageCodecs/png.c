#include "CImageCodecs.h"

// Apple platforms decode and encode with ImageIO (OpenMLKitVision/Codecs/ImageIOCodec+Apple.swift) and
// do not link libpng (Package.swift makes OpenMLKitVision depend on this target only elsewhere);
// the guard keeps a whole-package build on macOS from needing the library's headers.
#if !defined(__APPLE__)

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct omk_png_state {
    const uint8_t *data;
    size_t size;
    size_t offset;
    char message[256];
};

static void omk_png_error(png_structp png, png_const_charp message) {
    struct omk_png_state *state = (struct omk_png_state *)png_get_error_ptr(png);
    snprintf(state->message, sizeof state->message, "%s", message ? message : "PNG error");
    png_longjmp(png, 1);
}

static void omk_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void omk_png_read(png_structp png, png_bytep out, png_size_t count) {
    struct omk_png_state *state = (struct omk_png_state *)png_get_io_ptr(png);
    if (count > state->size - state->offset) png_error(png, "PNG data is truncated");
    memcpy(out, state->data + state->offset, count);
    state->offset += count;
}

int omk_png_decode(const uint8_t *data, size_t size, uint8_t **pixels, uint32_t *width, uint32_t *height,
                   uint8_t **exif, size_t *exif_size, char *error, size_t error_size) {
    struct omk_png_state state = {data, size, 0, {0}};
    png_structp png = NULL;
    png_infop info = NULL;
    uint8_t *volatile buffer = NULL;
    png_bytep *volatile rows = NULL;
    *pixels = NULL;
    *width = 0;
    *height = 0;
    *exif = NULL;
    *exif_size = 0;
    if (size < 8 || png_sig_cmp((png_const_bytep)data, 0, 8) != 0) {
        snprintf(error, error_size, "not a PNG file (bad signature)");
        return 1;
    }
    png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, omk_png_error, omk_png_warning);
    if (!png) {
        snprintf(error, error_size, "cannot create the PNG decoder");
        return 1;
    }
    info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        snprintf(error, error_size, "cannot create the PNG decoder");
        return 1;
    }
    if (setjmp(png_jmpbuf(png))) {
        snprintf(error, error_size, "%s", state.message[0] ? state.message : "PNG error");
        png_destroy_read_struct(&png, &info, NULL);
        free(buffer);
        free(rows);
        return 1;
    }
    png_set_user_limits(png, OMK_MAX_DIMENSION, OMK_MAX_DIMENSION);
    png_set_read_fn(png, &state, omk_png_read);
    png_read_info(png, info);
    png_uint_32 w = 0, h = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(png, info, &w, &h, &depth, &color, &interlace, NULL, NULL);
    if ((uint64_t)w * h > OMK_MAX_PIXELS) png_error(png, "PNG has too many pixels");
    if (depth == 16) png_set_strip_16(png);
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    png_set_filler(png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)w * 4) png_error(png, "unexpected PNG row size after conversion");
    buffer = malloc((size_t)w * 4 * h);
    rows = malloc(sizeof(png_bytep) * h);
    if (!buffer || !rows) png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < h; y++) rows[y] = buffer + (size_t)y * w * 4;
    png_read_image(png, rows);
    png_read_end(png, info); /* an eXIf chunk may follow the image data */
#ifdef PNG_eXIf_SUPPORTED
    {
        png_bytep exif_bytes = NULL;
        png_uint_32 exif_length = png_get_eXIf_1(png, info, &exif_length, &exif_bytes) ? exif_length : 0;
        if (exif_bytes && exif_length > 0) {
            *exif = malloc(exif_length);
            if (*exif) {
                memcpy(*exif, exif_bytes, exif_length);
                *exif_size = exif_length;
            }
        }
    }
#endif
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    *pixels = buffer;
    *width = w;
    *height = h;
    return 0;
}

struct omk_png_output {
    uint8_t *data;
    size_t size;
    size_t capacity;
    char message[256];
};

static void omk_png_write(png_structp png, png_bytep bytes, png_size_t count) {
    struct omk_png_output *out = (struct omk_png_output *)png_get_io_ptr(png);
    if (count > out->capacity - out->size) {
        size_t capacity = out->capacity ? out->capacity : 65536;
        while (count > capacity - out->size) capacity *= 2;
        uint8_t *grown = realloc(out->data, capacity);
        if (!grown) png_error(png, "out of memory");
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->size, bytes, count);
    out->size += count;
}

static void omk_png_flush(png_structp png) { (void)png; }

static void omk_png_write_error(png_structp png, png_const_charp message) {
    struct omk_png_output *out = (struct omk_png_output *)png_get_error_ptr(png);
    snprintf(out->message, sizeof out->message, "%s", message ? message : "PNG error");
    png_longjmp(png, 1);
}

int omk_png_encode_rgb(const uint8_t *pixels, uint32_t width, uint32_t height, uint8_t **result, size_t *result_size,
                       char *error, size_t error_size) {
    struct omk_png_output out = {NULL, 0, 0, {0}};
    png_structp png = NULL;
    png_infop info = NULL;
    *result = NULL;
    *result_size = 0;
    if (width == 0 || height == 0 || width > OMK_MAX_DIMENSION || height > OMK_MAX_DIMENSION) {
        snprintf(error, error_size, "cannot encode a %ux%u image", width, height);
        return 1;
    }
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &out, omk_png_write_error, omk_png_warning);
    if (!png) {
        snprintf(error, error_size, "cannot create the PNG encoder");
        return 1;
    }
    info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        snprintf(error, error_size, "cannot create the PNG encoder");
        return 1;
    }
    if (setjmp(png_jmpbuf(png))) {
        snprintf(error, error_size, "%s", out.message[0] ? out.message : "PNG error");
        png_destroy_write_struct(&png, &info);
        free(out.data);
        return 1;
    }
    png_set_write_fn(png, &out, omk_png_write, omk_png_flush);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(pixels + (size_t)y * width * 3));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    *result = out.data;
    *result_size = out.size;
    return 0;
}

#endif // !defined(__APPLE__)

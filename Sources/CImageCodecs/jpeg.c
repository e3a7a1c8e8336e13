#include "CImageCodecs.h"

// Apple platforms decode and encode with ImageIO (OpenMLKitVision/Codecs/ImageIOCodec+Apple.swift) and
// do not link libjpeg (Package.swift makes OpenMLKitVision depend on this target only elsewhere);
// the guard keeps a whole-package build on macOS from needing the library's headers.
#if !defined(__APPLE__)

#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct omk_jpeg_error {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    int truncated;
};

static void omk_jpeg_error_exit(j_common_ptr cinfo) {
    struct omk_jpeg_error *err = (struct omk_jpeg_error *)cinfo->err;
    longjmp(err->jump, 1);
}

/* Warnings are not printed; a premature end of data is remembered so that a truncated file is an
   error rather than an image padded with grey. */
static void omk_jpeg_emit_message(j_common_ptr cinfo, int level) {
    struct omk_jpeg_error *err = (struct omk_jpeg_error *)cinfo->err;
    if (level < 0 && err->base.msg_code == JWRN_JPEG_EOF) err->truncated = 1;
}

static void omk_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

int omk_jpeg_decode(const uint8_t *data, size_t size, uint8_t **pixels, uint32_t *width, uint32_t *height,
                    char *error, size_t error_size) {
    struct jpeg_decompress_struct cinfo;
    struct omk_jpeg_error err;
    uint8_t *volatile buffer = NULL;
    uint8_t *volatile row4 = NULL;
    *pixels = NULL;
    *width = 0;
    *height = 0;
    if (size == 0 || size > (size_t)0xffffffffu) {
        snprintf(error, error_size, "JPEG data is empty or too large");
        return 1;
    }
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = omk_jpeg_error_exit;
    err.base.emit_message = omk_jpeg_emit_message;
    err.base.output_message = omk_jpeg_output_message;
    err.truncated = 0;
    if (setjmp(err.jump)) {
        char message[JMSG_LENGTH_MAX];
        err.base.format_message((j_common_ptr)&cinfo, message);
        snprintf(error, error_size, "%s", message);
        jpeg_destroy_decompress(&cinfo);
        free(buffer);
        free(row4);
        return 1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, (const unsigned char *)data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    /* CMYK (and YCCK, which libjpeg turns into CMYK) is converted to RGB without a colour profile:
       R = (255 - C)(255 - K) / 255, rounded as Pillow rounds it. Photoshop (an Adobe APP14 marker)
       stores the four channels inverted. */
    const int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    const int inverted = cmyk && cinfo.saw_Adobe_marker;
    if (cinfo.image_width == 0 || cinfo.image_height == 0 || cinfo.image_width > OMK_MAX_DIMENSION ||
        cinfo.image_height > OMK_MAX_DIMENSION ||
        (uint64_t)cinfo.image_width * cinfo.image_height > OMK_MAX_PIXELS) {
        snprintf(error, error_size, "JPEG size %ux%u is outside 1...%d per side or above %u pixels",
                 (unsigned)cinfo.image_width, (unsigned)cinfo.image_height, OMK_MAX_DIMENSION, OMK_MAX_PIXELS);
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_components != (cmyk ? 4 : 3)) {
        snprintf(error, error_size, "JPEG decoder produced %d components, expected %d", cinfo.output_components,
                 cmyk ? 4 : 3);
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    size_t stride = (size_t)cinfo.output_width * 3;
    buffer = malloc(stride * cinfo.output_height);
    /* One CMYK row, converted into the RGB buffer after it is read. */
    row4 = cmyk ? malloc((size_t)cinfo.output_width * 4) : NULL;
    if (!buffer || (cmyk && !row4)) {
        free(row4);
        free(buffer);
        snprintf(error, error_size, "out of memory for a %ux%u image", (unsigned)cinfo.output_width,
                 (unsigned)cinfo.output_height);
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        uint8_t *out = buffer + stride * cinfo.output_scanline;
        JSAMPROW row = cmyk ? row4 : out;
        if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) break;
        if (err.truncated) break;
        if (cmyk) {
            for (size_t x = 0; x < cinfo.output_width; x++) {
                const uint8_t *p = row4 + 4 * x;
                const unsigned nk = inverted ? p[3] : 255u - p[3];
                for (int c = 0; c < 3; c++) {
                    const unsigned ink = inverted ? 255u - p[c] : p[c];
                    unsigned t = ink * nk + 128u;
                    out[3 * x + c] = (uint8_t)(nk - (((t >> 8) + t) >> 8));
                }
            }
        }
    }
    free(row4);
    row4 = NULL;
    if (err.truncated || cinfo.output_scanline < cinfo.output_height) {
        snprintf(error, error_size, "JPEG data is truncated (premature end of data at row %u of %u)",
                 (unsigned)cinfo.output_scanline, (unsigned)cinfo.output_height);
        jpeg_destroy_decompress(&cinfo);
        free(buffer);
        return 1;
    }
    jpeg_finish_decompress(&cinfo);
    *width = cinfo.output_width;
    *height = cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    *pixels = buffer;
    return 0;
}

void omk_free(void *pointer) { free(pointer); }

#endif // !defined(__APPLE__)

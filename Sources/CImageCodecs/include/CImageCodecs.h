#ifndef OPENMLKIT_CIMAGECODECS_H
#define OPENMLKIT_CIMAGECODECS_H

#include <stddef.h>
#include <stdint.h>

/// Thin wrappers around the system libjpeg(-turbo) and libpng.
///
/// Both libraries report errors by longjmp; these functions catch that in C, free what they
/// allocated and return a nonzero status with a message in `error` instead. Pixels are returned in
/// a malloc'd buffer that the caller releases with `omk_free`.

/// Largest width or height accepted, a guard against hostile headers asking for huge buffers.
#define OMK_MAX_DIMENSION 32768

/// Largest pixel count accepted (128 Mi pixels: a 48 MP phone photo fits), so that a small hostile
/// file cannot make the decoder allocate gigabytes.
#define OMK_MAX_PIXELS (1u << 27)

/// Decodes a baseline or progressive JPEG to tightly packed RGB8 (3 bytes per pixel).
/// Grayscale, YCbCr and CMYK/YCCK files are converted to RGB (CMYK without a colour profile, as Pillow does).
/// Returns 0 on success; otherwise writes a NUL-terminated message of at most `error_size` bytes.
int omk_jpeg_decode(const uint8_t *data, size_t size, uint8_t **pixels, uint32_t *width, uint32_t *height,
                    char *error, size_t error_size);

/// Decodes a PNG to tightly packed RGBA8 (4 bytes per pixel): palettes and grayscale are expanded,
/// 16-bit samples are reduced to 8 bits, and images without alpha get alpha 255. No gamma correction.
/// When the file has an `eXIf` chunk, a malloc'd copy of its TIFF bytes is returned in `*exif`
/// (NULL otherwise; release with `omk_free`).
/// Returns 0 on success; otherwise writes a NUL-terminated message of at most `error_size` bytes.
int omk_png_decode(const uint8_t *data, size_t size, uint8_t **pixels, uint32_t *width, uint32_t *height,
                   uint8_t **exif, size_t *exif_size, char *error, size_t error_size);

/// Encodes tightly packed RGB8 pixels as a PNG held in a malloc'd buffer (`*out`, `*out_size`).
/// Returns 0 on success; otherwise writes a message to `error`.
int omk_png_encode_rgb(const uint8_t *pixels, uint32_t width, uint32_t height, uint8_t **out, size_t *out_size,
                       char *error, size_t error_size);

/// Releases a buffer returned by the functions above.
void omk_free(void *pointer);

#endif

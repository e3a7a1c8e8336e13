#ifndef OPENMLKIT_CIMAGECODECS_H
#define OPENMLKIT_CIMAGECODECS_H
/// Placeholder until the JPEG/PNG wrappers land.
int omk_codecs_version(void);
#endif
